"""Write the report (and the README's generated blocks) as GitHub-flavoured Markdown, piece by piece.

A piece of text is either plain (a ``str``, escaped where it is used) or
already Markdown (:class:`Markdown`, as the functions here return it), so that
no character of a result (a ``_``, a ``|``) is read as markup. Figures are
referenced by their path relative to the report (which sits in the results
root), so ``report.md`` must stay next to the experiment folders. Each section
carries an explicit ``<a id>`` anchor so that the same links work in Markdown
and in the HTML made from it.
"""

from __future__ import annotations

import re
from typing import Iterable

__all__ = [
    "Markdown", "escape", "line", "code", "strong", "link", "badge", "anchor_tag", "cell", "heading", "bullets",
    "table", "code_block", "figure", "document"
]

_SPECIAL = re.compile(r"([\\`*_\[\]<|])")


class Markdown(str):
    """Text that is already Markdown: :func:`line` keeps it as it is."""


def escape(text: str) -> str:
    """Backslash-escape the characters Markdown (and tables) would interpret."""
    return _SPECIAL.sub(r"\\\1", text)


def line(*pieces: str) -> Markdown:
    """One line of pieces: plain strings escaped, :class:`Markdown` kept; newlines folded to spaces."""
    return Markdown("".join(piece if isinstance(piece, Markdown) else escape(piece) for piece in pieces)
                    .replace("\n", " "))


def code(text: str) -> Markdown:
    """Inline code (declaration names, commands, file names)."""
    return Markdown((f"``{text}``" if "`" in text else f"`{text}`").replace("|", "\\|"))


def strong(text: str) -> Markdown:
    return Markdown(f"**{escape(text)}**")


def link(text: str, href: str) -> Markdown:
    """A link to an anchor of the report (``#claims``) or to a file next to it."""
    return Markdown(f"[{escape(text)}]({href})")


def badge(verdict: str) -> Markdown:
    """A verdict (``held``, ``failed``, ``not run``, ``ok``) in bold, failures in capitals so they stand out (the
    HTML colours it)."""
    return Markdown(f"**{verdict.upper() if verdict in ('failed', 'missing') else verdict}**")


def anchor_tag(name: str) -> Markdown:
    """An invisible link target with id ``name`` (a section, or a table row that links point to)."""
    return Markdown(f'<a id="{name}"></a>')


def cell(*lines: str | None) -> Markdown:
    """A table cell of several lines (joined by ``<br>``); empty ones (``None``, ``""``) are left out."""
    return Markdown("<br>".join(line(text) for text in lines if text))


def heading(level: int, text: str, anchor: str) -> str:
    """A section heading, after its anchor."""
    return f'{anchor_tag(anchor)}\n\n{"#" * level} {escape(text)}'


def bullets(items: Iterable[str]) -> str:
    """An unordered list, an item a line."""
    return "\n".join(f"- {line(item)}" for item in items)


def table(header: tuple[str, ...], rows: Iterable[Iterable[str]]) -> str:
    """A table with a header row; a cell is a piece (:func:`cell` for several lines), an empty one a space."""
    lines = ["| " + " | ".join(map(escape, header)) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(line(item) or " " for item in row) + " |" for row in rows])


def code_block(text: str, title: str | None = None) -> str:
    """Preformatted text (commands, tracebacks) under an optional bold title, fenced by more backticks than any
    run of them in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return (f"**{escape(title)}:**\n\n" if title else "") + f"{fence}text\n{text.rstrip()}\n{fence}"


def figure(number: int, relative: str, caption: str) -> str:
    """Figure ``number``: the image file ``relative`` to the report, anchored, with its numbered caption."""
    return f"{anchor_tag(f'figure-{number}')}\n\n![Figure {number}]({relative})\n\n*Figure {number}.* {escape(caption)}"


def document(blocks: Iterable[str]) -> str:
    """Blocks (paragraphs, tables, ...) as one Markdown text."""
    return "\n\n".join(blocks) + "\n"
