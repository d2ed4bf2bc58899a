"""Render the report's blocks as GitHub-flavoured Markdown.

Figures are referenced by their path relative to the report (which sits in the
results root), so ``report.md`` must stay next to the experiment folders.
Each section carries an explicit ``<a id>`` anchor so that the same links work
in Markdown and HTML.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from lejepa_wm.report.blocks import (Anchor, Badge, Block, BulletList, Code, CodeBlock, CsvBlock, FigureBlock, Heading,
                                     Line, Link, Paragraph, Strong, Table, Text)

__all__ = ["escape", "render_markdown"]

_SPECIAL = re.compile(r"([\\`*_\[\]<|])")


def escape(text: str) -> str:
    """Backslash-escape the characters Markdown (and tables) would interpret."""
    return _SPECIAL.sub(r"\\\1", text)


_INLINE: dict[type, Callable[[Any], str]] = {
    Text: lambda piece: escape(piece.text),
    Code: lambda piece: (f"``{piece.text}``" if "`" in piece.text else f"`{piece.text}`").replace("|", "\\|"),
    Strong: lambda piece: f"**{escape(piece.text)}**",
    Link: lambda piece: f"[{escape(piece.text)}]({piece.href})",
    # a verdict in bold; failures in capitals so they stand out
    Badge: lambda piece: f"**{piece.text.upper() if piece.text in ('failed', 'missing') else piece.text}**",
    Anchor: lambda piece: f'<a id="{piece.text}"></a>',
}


def _line(pieces: Line) -> str:
    """A line of inline pieces, newlines folded to spaces."""
    return "".join(_INLINE[type(piece)](piece) for piece in pieces).replace("\n", " ")


def _fenced(text: str) -> str:
    """A fenced code block whose fence is longer than any backtick run in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def _table(item: Table) -> str:
    """A table; a cell's lines are joined by ``<br>``."""
    head = "| " + " | ".join(map(escape, item.header)) + " |"
    rows = ["| " + " | ".join("<br>".join(map(_line, content)) or " " for content in row) + " |" for row in item.rows]
    return "\n".join([head, "|" + "---|" * len(item.header), *rows])


_BLOCKS: dict[type, Callable[[Any], str]] = {
    Heading: lambda item: f'<a id="{item.anchor}"></a>\n\n{"#" * item.level} {escape(item.text)}',
    Paragraph: lambda item: _line(item.content),
    BulletList: lambda item: "\n".join(f"- {_line(entry)}" for entry in item.items),
    Table: _table,
    CodeBlock: lambda item: (f"**{escape(item.title)}:**\n\n" if item.title else "") + _fenced(item.text),
    FigureBlock: lambda item: (f'<a id="figure-{item.number}"></a>\n\n![Figure {item.number}]({item.relative})\n\n'
                               f"*Figure {item.number}.* {escape(item.caption)}"),
    CsvBlock: lambda item: f"All runs: [{escape(item.relative)}]({item.relative})",
}


def render_markdown(blocks: list[Block]) -> str:
    """The whole report as Markdown text."""
    return "\n\n".join(_BLOCKS[type(item)](item) for item in blocks) + "\n"
