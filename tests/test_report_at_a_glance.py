"""The report reads at a glance: a summary table on top, a table of contents, every verdict linked to its checks,
rows and figures, every link landing on an anchor, and the paper's R² beside the same quantity wherever the paper
states an R²; every term it uses is in the glossary."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from lejepa_wm.claims import CLAIMS
from lejepa_wm.experiments.encoders import ENCODERS
from lejepa_wm.experiments.flows import RENDERERS
from lejepa_wm.experiments.objectives import SIGREG_STATISTICS
from lejepa_wm.experiments.distribution import METHODS as DISTRIBUTION_METHODS
from lejepa_wm.experiments.scaling import METHODS as SCALING_METHODS
from lejepa_wm.experiments.worlds import CHANNELS
from lejepa_wm.records import VERDICTS
from lejepa_wm.report.document import build_document
from lejepa_wm.report.gather import gather
from lejepa_wm.report.lean import LeanSection
from lejepa_wm.report.render_html import render_html

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"
FIXTURES = Path(__file__).parent / "fixtures" / "report"
GLOSSARY = ROOT / "docs" / "GLOSSARY.md"
ENVIRONMENT = {"python": "CPython 3.11.7", "platform": "Linux-test", "packages": {"torch": "2.13.0"},
               "cpu": "Test CPU", "cores": 2, "gpus": [], "load_average": [1.0, 1.0, 1.0]}
NO_LEAN = LeanSection(False, (), None, None)
VOCABULARY = ("residual ratio", "raw observation", "λ = 0 control", "distance to a rotation", "scale-free",
              "standard error", "held-out", "linear probe", "test R²", "fit", "validation", "split", "seed",
              "requirement", "precondition", "no prediction", "headline", "H₂", "rate ratio",
              "shortcut", "MALA", "Procrustes error", "unit-Jacobian", "embedding std", "regularizer's effect",
              "axiom ledger", "Lean declaration", "wall time", "compute", "OU")
"""Phrases the report uses beyond the package's own names (which are collected from its tables)."""


def _document(out: Path, scale: str) -> str:
    return build_document(gather(out, scale), NO_LEAN, ENVIRONMENT, "now", "x")


@pytest.fixture()
def fixture_results(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    shutil.copytree(FIXTURES, out)
    for figure in ("scaling/quick/r2_vs_dim.png", "distribution/quick/r2_vs_beta.png"):
        Image.new("RGB", (4, 4)).save(out / figure)  # a readable image: the report validates every figure
    return out


def _shipped() -> list[tuple[Path, str]]:
    return [(REFERENCE, scale) for scale in ("quick", "full") if (REFERENCE / "scaling" / scale).is_dir()]


def test_the_summary_table_comes_first_with_one_line_per_claim_then_the_contents(fixture_results: Path) -> None:
    text = _document(fixture_results, "quick")
    first_table = text.index("\n|")
    headings = {anchor: text.index(f'<a id="{anchor}"></a>\n\n#') for anchor in ("at-a-glance", "contents", "claims")}
    assert headings["at-a-glance"] < first_table < headings["contents"] < headings["claims"]
    header, _, *rows = text[first_table + 1:headings["contents"]].strip().splitlines()
    assert header.startswith("| Claim |") and header.endswith("| Verdict |")
    assert [re.match(r"\| \[([^\]]+)\]", row).group(1) for row in rows] == [claim.id for claim in CLAIMS]


def test_each_verdict_links_to_its_checks_rows_and_figures(fixture_results: Path) -> None:
    text = _document(fixture_results, "quick")
    t1 = next(line for line in text.splitlines() if line.startswith("| [T1](#claim-t1) |"))
    for target in ("#check-t1", "#result-t1-scaling", "#figure-1"):
        assert f"]({target})" in t1, target
    assert '<a id="check-t1"></a>' in text and '<a id="result-t1-scaling"></a>' in text
    assert '<a id="figure-1"></a>' in text and '<a id="claim-t1"></a>' in text


@pytest.mark.parametrize("source", ["fixture", "shipped"])
def test_every_link_of_the_report_lands_on_an_anchor_in_markdown_and_html(source: str, fixture_results: Path) -> None:
    documents = [(fixture_results, "quick")] if source == "fixture" else _shipped()
    if not documents:
        pytest.skip("no shipped results in reference/")
    for out, scale in documents:
        markdown = _document(out, scale)
        targets = set(re.findall(r"\]\(#([^)]+)\)", markdown))
        anchors = set(re.findall(r'<a id="([^"]+)"></a>', markdown))
        assert targets and targets <= anchors, sorted(targets - anchors)
        html = render_html(markdown, out, "report")
        assert set(re.findall(r'href="#([^"]+)"', html)) <= set(re.findall(r'id="([^"]+)"', html))


def test_the_papers_r2_stands_beside_the_same_quantity_wherever_the_paper_states_one() -> None:
    documents = _shipped()
    if not documents:
        pytest.skip("no shipped results in reference/")
    for out, scale in documents:
        gathered = gather(out, scale)
        markdown = build_document(gathered, NO_LEAN, ENVIRONMENT, "now", "x")
        section = markdown.split('<a id="paper"></a>')[1].split('<a id="contents"></a>')[0]
        beside = {(claim, experiment) for claim, experiment in
                  re.findall(r"^\| \[([^\]]+)\]\(#claim-[^)]+\) \| \[([^\]]+)\]", section, flags=re.M)}
        stated = {(row.claim, row.source) for experiment in gathered.experiments for row in experiment.rows
                  if row.paper and re.search(r"R\^2|R²", row.paper)}
        assert stated and stated <= {(claim, experiment.replace("\\_", "_")) for claim, experiment in beside}, (
            scale, sorted(stated), sorted(beside))
        assert "R²" in section


def _glossary_terms() -> set[str]:
    text = GLOSSARY.read_text(encoding="utf-8")
    terms = set()
    for line in text.splitlines():
        if line.startswith("- **"):
            terms |= {term.lower() for term in re.findall(r"\*\*([^*]+)\*\*", line.split(" — ")[0])}
    return terms


def test_every_term_the_report_uses_is_in_the_glossary() -> None:
    documents = _shipped()
    if not documents:
        pytest.skip("no shipped results in reference/")
    text = "\n".join(_document(out, scale) for out, scale in documents).replace("\\_", "_")
    named = {*VERDICTS, *(claim.id for claim in CLAIMS), *ENCODERS, *RENDERERS, *CHANNELS, *SIGREG_STATISTICS,
             *SCALING_METHODS, *DISTRIBUTION_METHODS, "ok", "present", "missing"}
    used = {term for term in named if re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text)}
    unused = [phrase for phrase in VOCABULARY if phrase.lower() not in text.lower()]
    assert not unused, f"the vocabulary lists phrases the report no longer uses: {unused}"
    defined = _glossary_terms()
    missing = sorted(term for term in used | set(VOCABULARY) if term.lower() not in defined)
    assert not missing, f"terms the report uses that docs/GLOSSARY.md does not define: {missing}"


def test_the_full_scale_report_is_shipped_as_html_beside_its_markdown() -> None:
    shipped = Path(__file__).resolve().parents[1] / "reference"
    html, markdown = (shipped / "report.html").read_text(encoding="utf-8"), (shipped / "report.md").read_text("utf-8")
    assert "results at scale full" in html and "results at scale full" in markdown
    assert (shipped / "report.html").stat().st_size < 2 * 1024 * 1024  # a shipped file stays under 2 MB
