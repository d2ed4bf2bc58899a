"""Render the report's blocks as GitHub-flavoured Markdown.

Figures are referenced by their path relative to the report (which sits in the
results root), so ``report.md`` must stay next to the experiment folders.
Each section carries an explicit ``<a id>`` anchor so that the same links work
in Markdown and HTML.
"""

from __future__ import annotations

import re

from lejepa_wm.report.blocks import (Badge, Block, BulletList, Cell, Code, CodeBlock, CsvBlock, FigureBlock,
                                     Heading, Inline, Line, Link, Paragraph, Strong, Table, Text)

_SPECIAL = re.compile(r"([\\`*_\[\]<|])")


def escape(text: str) -> str:
    """Backslash-escape the characters Markdown (and tables) would interpret."""
    return _SPECIAL.sub(r"\\\1", text)


def badge(status: str) -> str:
    """A verdict in bold; failures in capitals so they stand out."""
    return f"**{status.upper() if status in ('failed', 'missing') else status}**"


def inline(piece: Inline) -> str:
    """One inline piece."""
    if isinstance(piece, Text):
        return escape(piece.text)
    if isinstance(piece, Code):
        fence = "``" if "`" in piece.text else "`"
        return f"{fence}{piece.text}{fence}".replace("|", "\\|")
    if isinstance(piece, Strong):
        return f"**{escape(piece.text)}**"
    if isinstance(piece, Link):
        return f"[{escape(piece.text)}]({piece.href})"
    if isinstance(piece, Badge):
        return badge(piece.status)
    raise TypeError(f"unknown inline piece {piece!r}")


def line(pieces: Line) -> str:
    """A line of inline pieces, newlines folded to spaces."""
    return "".join(inline(piece) for piece in pieces).replace("\n", " ")


def table_cell(content: Cell) -> str:
    """A table cell: its lines joined by ``<br>``."""
    return "<br>".join(line(pieces) for pieces in content) or " "


def fenced(text: str) -> str:
    """A fenced code block whose fence is longer than any backtick run in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


def block(item: Block) -> str:
    """One block as Markdown."""
    if isinstance(item, Heading):
        return f'<a id="{item.anchor}"></a>\n\n{"#" * item.level} {escape(item.text)}'
    if isinstance(item, Paragraph):
        return line(item.content)
    if isinstance(item, BulletList):
        return "\n".join(f"- {line(entry)}" for entry in item.items)
    if isinstance(item, Table):
        head = "| " + " | ".join(escape(title) for title in item.header) + " |"
        rule = "|" + "|".join("---" for _ in item.header) + "|"
        rows = ["| " + " | ".join(table_cell(content) for content in row) + " |" for row in item.rows]
        return "\n".join([head, rule, *rows])
    if isinstance(item, CodeBlock):
        title = f"**{escape(item.title)}:**\n\n" if item.title else ""
        return title + fenced(item.text)
    if isinstance(item, FigureBlock):
        return (f"![Figure {item.number}]({item.relative})\n\n"
                f"*Figure {item.number}.* {escape(item.caption)}")
    if isinstance(item, CsvBlock):
        return f"All runs: [{escape(item.relative)}]({item.relative})"
    raise TypeError(f"unknown block {item!r}")


def render_markdown(blocks: list[Block]) -> str:
    """The whole report as Markdown text."""
    return "\n\n".join(block(item) for item in blocks) + "\n"
