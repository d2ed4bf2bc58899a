"""Render the report's Markdown as one self-contained HTML file (with markdown-it-py).

The HTML is made from the very text of ``report.md``, so the two files always
say the same thing. Figures are embedded as base64 ``data:`` URIs and the style
sheet is inline, so the file can be mailed or archived alone. A
Content-Security-Policy forbids every external resource and every script: a
browser would refuse (and log) any attempt to load one. Verdicts (bold in
Markdown) become coloured badges, and the link to a CSV result table becomes
the table itself, folded (first :data:`_CSV_ROW_LIMIT` rows).
"""

from __future__ import annotations

import base64
import csv
import re
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt

from lejepa_wm.report.render_markdown import table

__all__ = ["render_html"]

_CSV_ROW_LIMIT = 200
_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 80rem;
       padding: 0 1rem; color: #1d1d1f; line-height: 1.45; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; max-width: 100%; }
th, td { border: 1px solid #c8c8cc; padding: 0.3rem 0.5rem; vertical-align: top; text-align: left;
         overflow-wrap: break-word; }
td { min-width: 4rem; }
td code { overflow-wrap: anywhere; }
th { background: #f0f0f3; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 0.88em; }
pre { background: #f6f6f8; border: 1px solid #d8d8dc; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; }
.badge { display: inline-block; border-radius: 0.3rem; padding: 0 0.35rem; font-weight: 600; white-space: nowrap; }
.held, .ok, .present { background: #d6f5d6; color: #135e13; }
.failed, .missing { background: #fbd5d5; color: #8a1010; }
.not-run { background: #ececec; color: #555; }
.measured { background: #dde8f8; color: #1c3f73; }
.not-resolved { background: #fff0c2; color: #6b4e00; }
img { max-width: 100%; border: 1px solid #e0e0e4; }
"""
# A verdict as render_markdown writes it (a Badge: bold, failures in capitals).
_BADGE = re.compile(r"<strong>(held|ok|present|FAILED|MISSING|not run|measured|not resolved)</strong>")
# The link of a CsvBlock, alone in its paragraph.
_CSV_LINK = re.compile(r'<p>All runs: <a href="([^"#]+\.csv)">[^<]*</a></p>')


def _badge(match: re.Match[str]) -> str:
    verdict = match.group(1).lower()
    return f'<span class="badge {verdict.replace(" ", "-")}">{verdict}</span>'


def _csv_table(markdown: MarkdownIt, path: Path) -> str:
    """A folded HTML table of the CSV file's first :data:`_CSV_ROW_LIMIT` rows (the gathering checked that it is a
    readable UTF-8 file)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        return f"<p>{escape(path.name)} is empty.</p>"
    header, body = rows[0], rows[1:]
    note = f" (first {_CSV_ROW_LIMIT} of {len(body)} rows)" if len(body) > _CSV_ROW_LIMIT else f" ({len(body)} rows)"
    return (f"<details><summary>All runs: <code>{escape(path.name)}</code>{note}</summary>"
            f"{markdown.render(table(tuple(header), body[:_CSV_ROW_LIMIT]))}</details>")


def render_html(text: str, folder: Path, title: str) -> str:
    """The Markdown ``text`` (whose file paths are relative to ``folder``) as one HTML document with no external
    resources."""
    markdown = MarkdownIt("commonmark", {"html": True}).enable("table")
    draw_image = markdown.renderer.rules["image"]

    def embedded_image(renderer: Any, tokens: Any, index: int, options: Any, env: Any) -> str:
        png = (folder / unquote(str(tokens[index].attrGet("src")))).read_bytes()  # a PNG the gathering checked
        tokens[index].attrSet("src", "data:image/png;base64," + base64.b64encode(png).decode("ascii"))
        return draw_image(tokens, index, options, env)

    markdown.add_render_rule("image", embedded_image)
    body = _BADGE.sub(_badge, markdown.render(text))
    body = _CSV_LINK.sub(lambda match: _csv_table(markdown, folder / unquote(match.group(1))), body)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )
