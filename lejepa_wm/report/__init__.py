"""``lejepa-wm report``: gather every result into ``report.md`` and a self-contained ``report.html``.

Modules, one job each: :mod:`.gather` reads the result files and judges every
claim (each verdict recomputed from the stored numbers), :mod:`.lean` reads the
axiom ledger and runs the static Lean audit, :mod:`.environment` describes the
machine, :mod:`.document` writes the report as Markdown (with the pieces of
:mod:`.render_markdown`) and :mod:`.render_html` makes the HTML from that
Markdown; :mod:`.readme` rewrites the README's generated blocks from the same
results (``lejepa-wm report --readme``, :mod:`lejepa_wm.commands.report`).

``report.md`` and ``report.html`` are rendered in memory and published together
(:func:`~lejepa_wm.atomic.publishing`, manifest ``report.published.json``): a
kill or a failure leaves the previous pair or the new one, never one of each.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from lejepa_wm import __version__
from lejepa_wm.atomic import atomic_write_text, publishing
from lejepa_wm.config import SCALES
from lejepa_wm.lean_audit import default_root
from lejepa_wm.report.document import build_document, report_title
from lejepa_wm.report.environment import collect_environment
from lejepa_wm.report.gather import Gathered, gather
from lejepa_wm.report.lean import gather_lean
from lejepa_wm.report.render_html import render_html
from lejepa_wm.validation import check_choice

__all__ = ["MARKDOWN_FILE", "HTML_FILE", "REPORT_PUBLISHED_FILE", "WrittenReport", "write_report"]

_DEFAULT_OUT = Path("results")
MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"
REPORT_PUBLISHED_FILE = "report.published.json"


@dataclass(frozen=True)
class WrittenReport:
    """The files written and the judged results they show."""

    markdown: Path
    html: Path
    gathered: Gathered


def write_report(out: Path = _DEFAULT_OUT, scale: str = "quick", root: Path | None = None) -> WrittenReport:
    """Gather the results below ``out`` at ``scale`` and publish ``report.md`` with ``report.html`` there.

    Both are rendered before either is written, then published as one set.
    ``root`` is the repository root holding ``LeJEPAProofs/`` (default: found
    as ``lejepa-wm audit-lean`` finds it).
    """
    check_choice(scale, SCALES, "scale")
    gathered = gather(out, scale)
    lean = gather_lean(root if root is not None else default_root())
    generated_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    markdown = build_document(gathered, lean, collect_environment(), generated_at, __version__)
    texts = {MARKDOWN_FILE: markdown, HTML_FILE: render_html(markdown, out, report_title(scale))}
    with publishing(out, {"scale": scale}, REPORT_PUBLISHED_FILE) as stage:
        for name, text in texts.items():
            atomic_write_text(stage.path / name, text)
    return WrittenReport(out / MARKDOWN_FILE, out / HTML_FILE, gathered)
