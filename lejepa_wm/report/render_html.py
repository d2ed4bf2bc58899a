"""Render the report's blocks as one self-contained HTML file.

Figures are embedded as base64 ``data:`` URIs and the style sheet is inline,
so the file can be mailed or archived alone. A Content-Security-Policy forbids
every external resource and every script: a browser would refuse (and log) any
attempt to load one. CSV tables are embedded folded (first :data:`_CSV_ROW_LIMIT`
rows).
"""

from __future__ import annotations

import base64
import csv
from html import escape
from pathlib import Path
from typing import Any, Callable

from lejepa_wm.report.blocks import (Anchor, Badge, Block, BulletList, Code, CodeBlock, CsvBlock, FigureBlock, Heading,
                                     Line, Link, Paragraph, Strong, Table, Text, cell)

__all__ = ["render_html"]

_CSV_ROW_LIMIT = 200
_MIME_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml"}
_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 80rem;
       padding: 0 1rem; color: #1d1d1f; line-height: 1.45; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; max-width: 100%; }
th, td { border: 1px solid #c8c8cc; padding: 0.3rem 0.5rem; vertical-align: top; text-align: left;
         overflow-wrap: break-word; }
td { min-width: 4rem; }
th { background: #f0f0f3; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.88em; }
pre { background: #f6f6f8; border: 1px solid #d8d8dc; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; }
.badge { display: inline-block; border-radius: 0.3rem; padding: 0 0.35rem; font-weight: 600; white-space: nowrap; }
.held, .ok, .present { background: #d6f5d6; color: #135e13; }
.failed, .missing { background: #fbd5d5; color: #8a1010; }
.not-run { background: #ececec; color: #555; }
.measured { background: #dde8f8; color: #1c3f73; }
.not-resolved { background: #fff0c2; color: #6b4e00; }
.error-title { font-weight: 600; color: #8a1010; margin-bottom: 0.2rem; }
figure { margin: 1.5rem 0; }
figure img { max-width: 100%; border: 1px solid #e0e0e4; }
figcaption { font-size: 0.9rem; color: #333; }
"""


_INLINE: dict[type, Callable[[Any], str]] = {
    Text: lambda piece: escape(piece.text),
    Code: lambda piece: "<code>" + escape(piece.text).replace(".", ".<wbr>").replace("_", "_<wbr>") + "</code>",
    Strong: lambda piece: f"<strong>{escape(piece.text)}</strong>",
    Link: lambda piece: f'<a href="{escape(piece.href)}">{escape(piece.text)}</a>',
    Badge: lambda piece: f'<span class="badge {escape(piece.text.replace(" ", "-"))}">{escape(piece.text)}</span>',
    Anchor: lambda piece: f'<a id="{escape(piece.text)}"></a>',
}


def _line(pieces: Line) -> str:
    """A line of inline pieces."""
    return "".join(_INLINE[type(piece)](piece) for piece in pieces)


def _table(item: Table) -> str:
    """A table; a cell's lines are separated by ``<br>``."""
    head = "<tr>" + "".join(f"<th>{escape(title)}</th>" for title in item.header) + "</tr>"
    body = "".join("<tr>" + "".join("<td>" + "<br>".join(map(_line, content)) + "</td>" for content in row) + "</tr>"
                   for row in item.rows)
    return f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"


def _csv_table(path: Path) -> str:
    """A folded HTML table of the CSV file's first :data:`_CSV_ROW_LIMIT` rows."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return f"<p>{escape(path.name)} cannot be read: {escape(str(exc))}</p>"
    if not rows:
        return f"<p>{escape(path.name)} is empty.</p>"
    header, body = rows[0], rows[1:]
    note = f" (first {_CSV_ROW_LIMIT} of {len(body)} rows)" if len(body) > _CSV_ROW_LIMIT else f" ({len(body)} rows)"
    shown = Table(tuple(header), tuple(tuple(map(cell, row)) for row in body[:_CSV_ROW_LIMIT]))
    return f"<details><summary>All runs: <code>{escape(path.name)}</code>{note}</summary>{_table(shown)}</details>"


def _figure(item: FigureBlock) -> str:
    """A figure embedded as a base64 ``data:`` URI (type from its suffix), with its numbered caption."""
    mime = _MIME_TYPES.get(item.path.suffix.lower())
    if mime is None:
        raise ValueError(f"figure {item.path} has unsupported type {item.path.suffix!r}; "
                         f"expected one of {sorted(_MIME_TYPES)}")
    uri = f"data:{mime};base64," + base64.b64encode(item.path.read_bytes()).decode("ascii")
    caption = f"<strong>Figure {item.number}.</strong> {escape(item.caption)}"
    return (f'<figure id="figure-{item.number}"><img src="{uri}" '
            f'alt="Figure {item.number}: {escape(item.caption)}"><figcaption>{caption}</figcaption></figure>')


_BLOCKS: dict[type, Callable[[Any], str]] = {
    Heading: lambda item: f'<h{item.level} id="{escape(item.anchor)}">{escape(item.text)}</h{item.level}>',
    Paragraph: lambda item: f"<p>{_line(item.content)}</p>",
    BulletList: lambda item: "<ul>" + "".join(f"<li>{_line(entry)}</li>" for entry in item.items) + "</ul>",
    Table: _table,
    CodeBlock: lambda item: (f'<p class="error-title">{escape(item.title)}</p>' if item.title else "")
                            + f"<pre>{escape(item.text)}</pre>",
    FigureBlock: _figure,
    CsvBlock: lambda item: _csv_table(item.path),
}


def render_html(blocks: list[Block], title: str) -> str:
    """The whole report as one HTML document with no external resources."""
    body = "\n".join(_BLOCKS[type(item)](item) for item in blocks)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
