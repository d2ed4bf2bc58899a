"""A tiny document model of the report, rendered as Markdown.

:mod:`.document` builds the report once as a list of blocks;
:mod:`.render_markdown` writes them and :mod:`.render_html` makes the HTML
from that Markdown, so the two files always say the same thing. Inline content is a sequence of :data:`Inline` pieces; a table cell is
a sequence of lines, each a sequence of pieces.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Union

__all__ = [
    "Text", "Code", "Strong", "Link", "Badge", "Anchor", "Inline", "Line", "Cell", "Heading", "Paragraph",
    "BulletList", "Table", "CodeBlock", "FigureBlock", "CsvBlock", "Block", "text_line", "cell", "paragraph",
    "cells"
]


@dataclass(frozen=True)
class Text:
    """Plain text."""

    text: str


class Code(Text):
    """Inline code (declaration names, commands, file names)."""


class Strong(Text):
    """Emphasized text."""


@dataclass(frozen=True)
class Link(Text):
    """A link to a file next to the report (Markdown) or an anchor inside it (both)."""

    href: str


class Badge(Text):
    """A verdict (``held``, ``failed``, ``not run``, ``ok``), coloured in HTML."""


class Anchor(Text):
    """An invisible link target with id ``text`` (a table row that links point to)."""


Inline = Text  # or one of its kinds: Code, Strong, Link, Badge, Anchor
Line = tuple[Inline, ...]
Cell = tuple[Line, ...]


@dataclass(frozen=True)
class Heading:
    """Section heading with an anchor id."""

    level: int
    text: str
    anchor: str


@dataclass(frozen=True)
class Paragraph:
    """One paragraph of inline pieces."""

    content: Line


@dataclass(frozen=True)
class BulletList:
    """An unordered list; each item is one line of inline pieces."""

    items: tuple[Line, ...]


@dataclass(frozen=True)
class Table:
    """A table with a header row."""

    header: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class CodeBlock:
    """Preformatted text: commands, tracebacks."""

    text: str
    title: str | None = None


@dataclass(frozen=True)
class FigureBlock:
    """An image file (``relative`` to the report's folder, ``path`` on disk), its caption and number."""

    relative: str
    path: Path
    caption: str
    number: int = 0


@dataclass(frozen=True)
class CsvBlock:
    """A CSV result table: linked from Markdown, embedded (folded) in HTML."""

    relative: str


Block = Union[Heading, Paragraph, BulletList, Table, CodeBlock, FigureBlock, CsvBlock]


def text_line(*pieces: Inline | str) -> Line:
    """A line from pieces, strings becoming :class:`Text`."""
    return tuple(Text(piece) if isinstance(piece, str) else piece for piece in pieces)


def cell(*lines: Line | str | None) -> Cell:
    """A cell from lines, a string becoming a one-piece line; empty ones (``None``, ``""``) are left out."""
    return tuple(text_line(line) if isinstance(line, str) else line for line in lines if line)


def paragraph(*pieces: Inline | str) -> Paragraph:
    """A paragraph from pieces, strings becoming :class:`Text`."""
    return Paragraph(text_line(*pieces))


def cells(*items: Cell | Inline | str) -> tuple[Cell, ...]:
    """A table row; a string or an inline piece becomes a one-line cell."""
    return tuple(item if isinstance(item, tuple) else cell(text_line(item)) for item in items)
