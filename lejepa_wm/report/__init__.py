"""``lejepa-wm report``: gather every result into ``report.md`` and a self-contained ``report.html``.

Modules, one job each: :mod:`.gather` reads the result files and judges every
claim (:mod:`.verdicts`), :mod:`.lean` reads the axiom ledger and runs the
static Lean audit, :mod:`.environment` describes the machine,
:mod:`.document` lays the report out as blocks (:mod:`.blocks`), and
:mod:`.render_markdown` / :mod:`.render_html` write them.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from lejepa_wm import __version__
from lejepa_wm.atomic import atomic_write_text
from lejepa_wm.config import SCALES
from lejepa_wm.report.blocks import Heading
from lejepa_wm.report.document import build_document, claim_counts
from lejepa_wm.report.environment import collect_environment
from lejepa_wm.report.gather import Gathered, gather
from lejepa_wm.report.lean import gather_lean
from lejepa_wm.report.render_html import render_html
from lejepa_wm.report.render_markdown import render_markdown
from lejepa_wm.validation import check_choice

DEFAULT_OUT = Path("results")
MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"


@dataclass(frozen=True)
class WrittenReport:
    """The files written and the judged results they show."""

    markdown: Path
    html: Path
    gathered: Gathered


def write_report(out: Path = DEFAULT_OUT, scale: str = "quick", root: Path | None = None) -> WrittenReport:
    """Gather the results below ``out`` at ``scale`` and write ``report.md`` then ``report.html`` there.

    ``root`` is the repository root holding ``LeJEPAProofs/`` (default: found
    as ``lejepa-wm audit-lean`` finds it).
    """
    from lejepa_wm.lean_audit import default_root

    check_choice(scale, SCALES, "scale")
    out = Path(out)
    gathered = gather(out, scale)
    lean = gather_lean(root if root is not None else default_root())
    generated_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    blocks = build_document(gathered, lean, collect_environment(), generated_at, __version__)
    title = next(item.text for item in blocks if isinstance(item, Heading))
    markdown = atomic_write_text(out / MARKDOWN_FILE, render_markdown(blocks))
    html = atomic_write_text(out / HTML_FILE, render_html(blocks, title))
    return WrittenReport(markdown, html, gathered)


def claim_summary(gathered: Gathered) -> str:
    """``7 of 10 claims held, 1 failed, 1 not resolved, 0 measured, 1 not run``."""
    return claim_counts(gathered)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm report``."""
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results root (default: results)")
    parser.add_argument("--scale", choices=SCALES, default="quick", help="which experiment results to show")


def main(args: argparse.Namespace) -> int:
    """Write the report and say where it is; 0 once written (the verdicts are in the report)."""
    written = write_report(args.out, args.scale)
    print(f"{claim_summary(written.gathered)} (scale {args.scale})")
    print(f"wrote {written.markdown}")
    print(f"wrote {written.html}")
    return 0
