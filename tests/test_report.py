"""The report rendered from fixture results: content, verdicts from the numbers, figures, errors, browser."""

from __future__ import annotations

import argparse
import ast
import base64
import json
import os
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lejepa_wm.claims import CLAIMS
from lejepa_wm.records import (FAILED, HELD, MEASURED, NOT_RUN, UNRESOLVED, Bound, CheckResult, PartOutcome,
                               ReproduceRecord, combine)
from lejepa_wm.commands.options import common_options
from lejepa_wm.commands.report import COMMON_OPTIONS, add_arguments
from lejepa_wm.commands.report import main as report_main
from lejepa_wm.report import write_report
from lejepa_wm.report.document import claim_summary
from lejepa_wm.report.document import build_document, format_seconds, format_value
from lejepa_wm.report.environment import collect_environment
from lejepa_wm.report.gather import JudgedRow, gather
from lejepa_wm.report.lean import LeanSection, gather_lean
from lejepa_wm.report.render_markdown import escape

FIXTURES = Path(__file__).parent / "fixtures" / "report"
FIGURES = {"scaling": "r2_vs_dim.png", "distribution": "r2_vs_beta.png"}
CAPTIONED = "scaling"


def _reproduce_record(scale: str = "quick", parts: tuple[PartOutcome, ...] = (), **fields: object) -> ReproduceRecord:
    """The record of a reproduction that ran ``parts`` (and finished, unless ``fields`` say otherwise)."""
    record = ReproduceRecord("0.1.0", scale, 0, "cpu", False, False, "2026-01-02T03:04:05+00:00", 1, "a-host",
                             collect_environment(), 61.0, parts, finished_at="2026-01-02T03:05:06+00:00")
    return replace(record, **fields)


def _png(path: Path, metadata: dict[str, str] | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2.4, 1.6), dpi=60)
    ax.plot([1, 2, 3], [0.99, 0.995, 0.999], marker="o")
    fig.savefig(path, metadata=metadata)
    plt.close(fig)


@pytest.fixture(scope="module")
def figures(tmp_path_factory) -> dict[str, Path]:
    """One tiny PNG per fixture experiment (drawn once); the scaling one carries a caption in its metadata."""
    folder = tmp_path_factory.mktemp("figures")
    drawn = {}
    for experiment, name in FIGURES.items():
        metadata = ({"Title": "Linear-probe R^2 against latent dimension",
                     "Description": "Held-out R^2 of a linear probe on the learned features, one dot per run"}
                    if experiment == CAPTIONED else None)
        drawn[experiment] = folder / name
        _png(drawn[experiment], metadata)
    return drawn


@pytest.fixture()
def results(tmp_path: Path, figures: dict[str, Path]) -> Path:
    """A copy of the fixture results with the figures in place."""
    out = tmp_path / "results"
    shutil.copytree(FIXTURES, out)
    for experiment, figure in figures.items():
        shutil.copy(figure, out / experiment / "quick" / figure.name)
    return out


FIRST_AXIOM = next(claim.lean[0] for claim in CLAIMS if claim.kind == "axiom")
LEDGER = f"""# Axioms

| Axiom | File | Statement | Reference | Python test |
|---|---|---|---|---|
| `{FIRST_AXIOM}` | `LeJEPAProofs/Axioms/First.lean` | a classical fact | a textbook | \
`tests/numerics/test_first.py::test_first_axiom` |
| `LeJEPA.unused_axiom` | `LeJEPAProofs/Axioms/Unused.lean` | another fact | a paper | \
`tests/numerics/test_unused.py::test_missing_function` |
"""


@pytest.fixture()
def lean_root(tmp_path: Path) -> Path:
    """A repository root with a two-axiom ledger and one of the two Python tests it names."""
    root = tmp_path / "repo"
    (root / "LeJEPAProofs").mkdir(parents=True)
    (root / "LeJEPAProofs" / "AXIOMS.md").write_text(LEDGER, encoding="utf-8")
    test_file = root / "tests" / "numerics" / "test_first.py"
    test_file.parent.mkdir(parents=True)
    test_file.write_text("def test_first_axiom():\n    assert abs(1.0 - 1.0) < 1e-12\n", encoding="utf-8")
    return root


def _edit_json(path: Path, edit) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _statuses(out: Path) -> dict[str, str]:
    return {verdict.claim.id: verdict.status for verdict in gather(out, "quick").claims}


# --- verdicts ---------------------------------------------------------------------------------------------------


def test_the_gathering_parses_no_text() -> None:
    for module in ("gather.py",):
        source = (Path(__file__).parents[1] / "lejepa_wm" / "report" / module).read_text(encoding="utf-8")
        imported = {alias.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
        assert "re" not in imported and "satisfies" not in source, module


@given(st.floats(allow_nan=False, allow_infinity=False, width=32),
       st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_check_verdict_follows_the_numbers(value: float, bound: float) -> None:
    row = CheckResult.compare("LOSS", "x", "error", value, Bound.at_most(bound), quantity="error")
    judged = JudgedRow("verify", row, *row.judged())
    assert judged.status == (HELD if value <= bound else FAILED) and judged.note is None
    flipped = CheckResult.from_dict({**row.to_dict(), "passed": not row.passed})
    contradicted = JudgedRow("verify", flipped, *flipped.judged())
    assert contradicted.status == FAILED and contradicted.note is not None


def test_combine_orders_failed_before_not_run_before_not_resolved_before_held() -> None:
    assert combine([HELD, NOT_RUN, FAILED]) == FAILED
    assert combine([HELD, NOT_RUN, UNRESOLVED]) == NOT_RUN
    assert combine([HELD, UNRESOLVED]) == UNRESOLVED
    assert combine([HELD, HELD]) == HELD
    assert combine([]) == NOT_RUN


def test_format_value_never_rounds_onto_the_bound() -> None:
    assert format_value(0.99962, Bound.at_least(0.999)) == "0.9996"
    assert format_value(0.99958, Bound.at_least(0.9996)) == "0.99958"  # 4 digits would read as 0.9996
    assert format_value(None) == "-" and format_value(2.0) == "2"


# --- gathering ------------------------------------------------------------------------------------------------


def test_verdicts_of_the_fixture(results: Path) -> None:
    statuses = _statuses(results)
    assert set(statuses) == {claim.id for claim in CLAIMS}
    # verify held and the experiment that tests it held
    assert statuses["T1"] == HELD and statuses["T2"] == HELD
    # verify held, no experiment of these claims: held on the numerical checks alone
    assert statuses["HERMITE"] == HELD and statuses["LOSS"] == HELD
    # M1's check module raised; its experiment is missing
    assert statuses["M1"] == FAILED
    # verify held but the experiment (bounds, reacher, anisotropic) has no results
    assert statuses["T3"] == NOT_RUN and statuses["T4"] == NOT_RUN and statuses["P5"] == NOT_RUN


def test_changing_an_experiment_value_flips_the_verdict(results: Path) -> None:
    headline = results / "scaling" / "quick" / "headline.json"
    _edit_json(headline, lambda entries: entries[0].update(value=0.95))  # recorded "verdict" left as "held"
    verdict = next(v for v in gather(results, "quick").claims if v.claim.id == "T1")
    assert verdict.status == FAILED
    row = next(row for evidence in verdict.evidence for row in evidence.rows if row.source == "scaling")
    assert "0.95" in row.note and "≥ 0.999" in row.note and "'held'" in row.note
    _edit_json(headline, lambda entries: entries[0].pop("verdict"))  # no recorded verdict: the numbers alone
    row = next(s for s in gather(results, "quick").experiments if s.name == "scaling").rows[0]
    assert row.status == FAILED and row.note is None


def test_changing_a_verify_value_flips_the_verdict(results: Path) -> None:
    def worsen(data: dict) -> None:
        next(row for row in data["rows"] if row["claim"] == "LOSS")["value"] = 3e-9

    _edit_json(results / "verify.json", worsen)
    assert _statuses(results)["LOSS"] == FAILED
    _edit_json(results / "verify.json",
               lambda data: next(r for r in data["rows"] if r["claim"] == "LOSS").update(value=1e-11))
    assert _statuses(results)["LOSS"] == HELD


def test_a_recorded_verdict_that_disagrees_fails_the_entry(results: Path) -> None:
    _edit_json(results / "distribution" / "quick" / "headline.json", lambda entries: entries[0].update(verdict=FAILED))
    assert _statuses(results)["T2"] == FAILED  # the numbers say held, the file says failed: one of them is wrong
    section = next(s for s in gather(results, "quick").experiments if s.name == "distribution")
    assert "recorded as 'failed'" in section.rows[0].note


def test_a_missing_value_is_a_failure(results: Path) -> None:
    _edit_json(results / "distribution" / "quick" / "headline.json",
               lambda entries: entries[0].update(value=None, verdict=None))
    assert _statuses(results)["T2"] == FAILED


def test_a_margin_within_two_standard_errors_is_not_resolved(results: Path, lean_root: Path) -> None:
    _edit_json(results / "scaling" / "quick" / "headline.json",
               lambda entries: entries[0].update(standard_error=0.001, verdict=UNRESOLVED))  # margin 0.00062
    written = write_report(results, "quick", lean_root)
    assert {v.claim.id: v.status for v in written.gathered.claims}["T1"] == UNRESOLVED
    assert "1 not resolved" in claim_summary(written.gathered)
    assert "**not resolved**" in written.markdown.read_text(encoding="utf-8")
    assert 'class="badge not-resolved">not resolved</span>' in written.html.read_text(encoding="utf-8")


def test_measurement_without_prediction_takes_no_part_in_verdicts(results: Path, lean_root: Path) -> None:
    section = next(s for s in gather(results, "quick").experiments if s.name == "distribution")
    assert [row.status for row in section.rows] == [HELD, MEASURED] and section.status == HELD
    text = write_report(results, "quick", lean_root).markdown.read_text(encoding="utf-8")
    assert "SIGReg is not an objective T2 is about" in text and "**measured**" in text


def test_missing_parts_are_not_run(tmp_path: Path) -> None:
    gathered = gather(tmp_path, "quick")
    assert {verdict.status for verdict in gathered.claims} == {NOT_RUN}
    assert gathered.verify.status == NOT_RUN


@pytest.mark.parametrize("content, message", [
    ("{}", "headline.json: the data must be a valid array; got {}"),
    ("[]", "non-empty list"),
    ('[{"claim": "T1", "name": "x"}]', "headline.json[0]: lacks the fields 'quantity', 'value', 'bound'"),
    ('[{"claim": "T1", "name": "x", "quantity": "R2", "value": "high", "bound": null, "measured": ""}]',
     "headline.json[0]: field 'value' must be a valid number; got 'high'"),
    ('[{"claim": "T1", "name": "x", "quantity": "R2", "value": 1, "bound": "<= 1", "measured": ""}]',
     "headline.json[0]: field 'bound' must be an object; got '<= 1'"),
    ("[not json", "headline.json is not valid JSON"),
])
def test_malformed_headline_fails_its_experiment(results: Path, content: str, message: str) -> None:
    (results / "scaling" / "quick" / "headline.json").write_text(content, encoding="utf-8")
    gathered = gather(results, "quick")
    section = next(s for s in gathered.experiments if s.name == "scaling")
    assert section.status == FAILED and message in section.error
    assert next(v for v in gathered.claims if v.claim.id == "T1").status == FAILED


def test_a_missing_figure_fails_its_experiment(results: Path) -> None:
    (results / "scaling" / "quick" / "r2_vs_dim.png").unlink()
    section = next(s for s in gather(results, "quick").experiments if s.name == "scaling")
    assert section.status == FAILED and "r2_vs_dim.png" in section.error


def test_runs_seeds_and_compute_time_are_read(results: Path) -> None:
    section = next(s for s in gather(results, "quick").experiments if s.name == "scaling")
    assert section.runs_finished == 2 and section.seeds == (0, 1)
    assert section.compute_time_s == pytest.approx(25.0)


def test_a_partial_grid_is_named_in_the_section_and_the_claim(results: Path, lean_root: Path) -> None:
    from lejepa_wm.experiments import get_experiment

    experiment = get_experiment("scaling")
    planned = len(experiment.grid(experiment.load_config("quick"), "quick"))
    gathered = gather(results, "quick")
    section = next(s for s in gathered.experiments if s.name == "scaling")
    # the fixture's two runs carry ids that are not in the shipped grid: none of the grid has finished
    assert section.partial and section.runs_planned == planned and section.runs_of_grid == 0
    assert f"0 of {planned} runs" in section.coverage()
    t1 = next(v for v in gathered.claims if v.claim.id == "T1")
    assert any(section.coverage() in item.reason for item in t1.evidence)
    text = write_report(results, "quick", lean_root).markdown.read_text(encoding="utf-8")
    assert f"0 of {planned} runs" in text


def test_a_complete_grid_is_not_partial(results: Path) -> None:
    from lejepa_wm.experiments import get_experiment

    experiment = get_experiment("scaling")
    runs = results / "scaling" / "quick" / "runs"
    template = next(runs.iterdir())
    for spec in experiment.grid(experiment.load_config("quick"), "quick"):
        if not (runs / spec.run_id).exists():
            shutil.copytree(template, runs / spec.run_id)
    section = next(s for s in gather(results, "quick").experiments if s.name == "scaling")
    assert not section.partial and section.coverage() == ""


def test_reproduce_record_of_another_scale_is_ignored(results: Path) -> None:
    record = _reproduce_record("full", (PartOutcome("scaling", "experiment", "failed", error="boom"),))
    (results / "reproduce.json").write_text(json.dumps(record.to_dict()), encoding="utf-8")
    assert _statuses(results)["T1"] == HELD


@pytest.mark.parametrize("damage, message", [
    (lambda data: {**data, "parts": [{"status": "ok"}]},
     "reproduce.json: lacks the fields 'parts[0].name', 'parts[0].kind'"),
    (lambda data: {**data, "parts": {"verify": "ok"}},
     "reproduce.json: field 'parts' must be a valid array; got {'verify': 'ok'}"),
    (lambda data: {**data, "wall_time_s": "long"},
     "reproduce.json: field 'wall_time_s' must be a valid number; got 'long'"),
    (lambda data: {key: value for key, value in data.items() if key != "pid"}, "reproduce.json: lacks the field 'pid'"),
    (lambda data: {**data, "environment": {**data["environment"], "load_average": [1.0]}},
     "reproduce.json: lacks the fields 'environment.load_average[1]', 'environment.load_average[2]'"),
    (lambda data: [data], "reproduce.json: the data must be "),
])
def test_a_malformed_reproduce_record_is_shown_not_fatal(results: Path, lean_root: Path,
                                                        damage: Callable[[dict[str, Any]], Any], message: str) -> None:
    damaged = damage(_reproduce_record().to_dict())
    (results / "reproduce.json").write_text(json.dumps(damaged), encoding="utf-8")
    written = write_report(results, "quick", lean_root)
    assert f"reproduce.json is malformed and was ignored: {message}" in written.markdown.read_text(encoding="utf-8")
    assert {v.claim.id: v.status for v in written.gathered.claims}["T1"] == HELD


# --- damaged result files: the report is written, only the damaged part fails ------------------------------------


@pytest.mark.parametrize("file, damage, message", [
    ("verify.json", lambda data: data["rows"][2].update(passed="yes"),
     "verify.json: field 'rows[2].passed' must be a valid boolean; got 'yes'"),
    ("verify.json", lambda data: data["rows"][2].update(value="4e-13"),
     "verify.json: field 'rows[2].value' must be a valid number"),
    ("verify.json", lambda data: data["rows"][2]["bound"].update(op="=="), "bound operator must be one of"),
    ("verify.json", lambda data: data.update(seconds_per_claim=[1, 2]), "field 'seconds_per_claim'"),
    ("verify.json", lambda data: data.update(rows={"LOSS": 1}), "verify.json: field 'rows' must be a valid array; got {'LOSS': 1}"),
])
def test_a_damaged_verify_json_fails_only_the_checks(results: Path, lean_root: Path, file: str, damage,
                                                     message: str) -> None:
    _edit_json(results / file, damage)
    written = write_report(results, "quick", lean_root)
    gathered = written.gathered
    assert gathered.verify.status == FAILED and message in gathered.verify.error
    statuses = {v.claim.id: v.status for v in gathered.claims}
    assert statuses["LOSS"] == FAILED and statuses["T1"] == FAILED  # every claim with a check lost its evidence
    assert next(s for s in gathered.experiments if s.name == "scaling").status == HELD  # the rest is intact
    assert message in written.markdown.read_text(encoding="utf-8")


def test_a_verify_json_that_is_a_list_fails_only_the_checks(results: Path, lean_root: Path) -> None:
    (results / "verify.json").write_text("[]", encoding="utf-8")
    written = write_report(results, "quick", lean_root)
    assert "verify.json: the data must be an object; got [" in written.gathered.verify.error
    assert next(s for s in written.gathered.experiments if s.name == "scaling").status == HELD


@pytest.mark.parametrize("file, content, message", [
    ("metrics.json", "[1, 2]", "scaling/quick/runs/n=8/metrics.json: the data must be an object; got [1, 2]"),
    ("metrics.json", '{"wall_time_s": "12 s"}', "metrics.json: field 'wall_time_s' must be a valid number; got '12 s'"),
    ("metrics.json", "{", "scaling/quick/runs/n=8/metrics.json is not valid JSON"),
    ("spec.json", "[]", "scaling/quick/runs/n=8/spec.json: the data must be an object; got []"),
    ("spec.json", '{"params": [8, 0]}', "runs/n=8/spec.json: lacks the fields 'experiment', 'scale', 'run_id'; field "
                                        "'params' must be an object; got [8, 0]"),
])
def test_a_damaged_run_file_marks_its_experiment_damaged(results: Path, lean_root: Path, file: str, content: str,
                                                         message: str) -> None:
    (results / "scaling" / "quick" / "runs" / "n=8" / file).write_text(content, encoding="utf-8")
    written = write_report(results, "quick", lean_root)
    section = next(s for s in written.gathered.experiments if s.name == "scaling")
    assert section.status == FAILED and any(message in item for item in section.damaged), section.damaged
    assert section.runs_finished == 1  # the damaged run is not counted as finished
    statuses = {v.claim.id: v.status for v in written.gathered.claims}
    assert statuses["T1"] == FAILED and statuses["T2"] == HELD  # only the damaged experiment's claim
    text = written.markdown.read_text(encoding="utf-8")
    assert "scaling has damaged result files" in text and "linear probe R^2 at n=32" in text


def _tables(markdown: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every table of ``markdown``: its header and rows, a cell's text as written (its lines joined by ``<br>``)."""
    found = []
    for table in re.findall(r"^(\|.*\|)\n\|(?:---\|)+\n((?:\|.*\|\n?)*)", markdown, flags=re.M):
        header, body = table
        split = [re.split(r"(?<!\\) \| ", row.strip()[2:-2]) for row in [header, *body.splitlines()]]
        found.append((split[0], split[1:]))
    return found


def test_every_value_cell_names_its_quantity(results: Path) -> None:
    from lejepa_wm.report.environment import collect_environment as environment

    markdown = build_document(gather(results, "quick"), LeanSection(False, (), None, None), environment(), "now", "x")
    tables = [(header, rows) for header, rows in _tables(markdown) if "Value" in header]
    assert len(tables) == 3  # checks, scaling, distribution
    for header, rows in tables:
        column = header.index("Value")
        for row in rows:
            first = row[column].split("<br>")[0]
            assert first == "-" or " = " in first, first
        assert "Requirement" in header
    cells = tables[1][1][0]  # scaling's first row
    assert "held-out linear-probe R^2 at n=32 = 0.9996" in cells[2] and "± 0.0002" in cells[2]
    assert "seeds: 0, 1" in cells[2] and cells[3] == "≥ 0.999"  # the quantity once, in the value cell
    assert cells[4] == "test"


# --- rendering ------------------------------------------------------------------------------------------------


def _failed_part(results: Path) -> None:
    """A reproduction in which the distribution experiment raised while drawing its figures."""
    parts = (PartOutcome("verify", "verify", "ok", 5.0, "ran 10 checks"),
             PartOutcome("scaling", "experiment", "ok", 25.0, "executed 2 run(s)"),
             PartOutcome("distribution", "experiment", "failed", 31.0, "raised an exception",
                         error="RuntimeError: rendering unavailable",
                         traceback="Traceback (most recent call last):\n  File \"aggregate.py\", line 3\n"
                                   "RuntimeError: rendering unavailable\n"))
    (results / "reproduce.json").write_text(json.dumps(_reproduce_record(parts=parts).to_dict()), encoding="utf-8")


def test_a_failed_part_rerun_on_its_own_is_no_longer_failed(results: Path) -> None:
    _failed_part(results)
    assert _statuses(results)["T2"] == FAILED
    headline = results / "distribution" / "quick" / "headline.json"
    later = (results / "reproduce.json").stat().st_mtime + 10
    os.utime(headline, (later, later))  # as if `lejepa-wm run distribution` succeeded afterwards
    assert _statuses(results)["T2"] == HELD


def test_markdown_lists_claims_checks_experiments_and_verdicts(results: Path, lean_root: Path) -> None:
    written = write_report(results, "quick", lean_root)
    text = written.markdown.read_text(encoding="utf-8")
    for claim in CLAIMS:
        assert f"**{claim.id}**" in text and escape(claim.title) in text
        for declaration in claim.lean:
            assert f"`{declaration}`" in text
    assert "held-out R^2 = 0.99962" in text and "linear-probe R^2 > 0.999 for n up to 1024" in text
    assert "output dimension m must be positive; got 0" in text  # M1's error, with its traceback
    assert 'File "verify_m1.py", line 12, in run_checks' in text
    assert "**FAILED**" in text and "**not run**" in text and "**held**" in text
    assert f"**{claim_summary(written.gathered)} (scale quick).**" in text


def test_markdown_parses_as_intended(results: Path, lean_root: Path) -> None:
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (a dev dependency) is not installed")
    _failed_part(results)
    text = write_report(results, "quick", lean_root).markdown.read_text(encoding="utf-8")
    tables = re.findall(r"(?:^\|.*\n)+", text, flags=re.M)
    assert len(tables) == 7  # at a glance, claims, checks, scaling (distribution failed), parts, ledger, run times
    for table in tables:  # every row has as many cells as its header: no stray unescaped pipe
        widths = {len(re.findall(r"(?<!\\)\|", line)) for line in table.splitlines()}
        assert len(widths) == 1, table
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
    assert html.count("<table>") == len(tables)
    assert '<img src="scaling/quick/r2_vs_dim.png" alt="Figure 1"' in html
    assert "<strong>Python:</strong>" in html and "<strong>FAILED</strong>" in html
    assert "**" not in re.sub(r"<pre>.*?</pre>", "", html, flags=re.S)  # every bold marker was parsed
    assert '<a href="#experiment-scaling">scaling</a>' in html and '<a id="experiment-scaling"></a>' in html


def test_markdown_figures_exist_and_have_captions(results: Path, lean_root: Path) -> None:
    text = write_report(results, "quick", lean_root).markdown.read_text(encoding="utf-8")
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert sorted(Path(image).name for image in images) == sorted(FIGURES.values())
    for image in images:
        assert (results / image).is_file()
    assert "Linear-probe R^2 against latent dimension. Held-out R^2 of a linear probe" in text
    assert ("r2\\_vs\\_beta.png of experiment distribution, the figure for: T2 — linear R^2 peaks at beta = 2"
            in text)  # caption built from the headline


def test_failed_part_is_shown_with_its_error(results: Path, lean_root: Path) -> None:
    _failed_part(results)
    written = write_report(results, "quick", lean_root)
    text = written.markdown.read_text(encoding="utf-8")
    assert "distribution failed with this error" in text and "RuntimeError: rendering unavailable" in text
    assert 'File "aggregate.py", line 3' in text
    statuses = {v.claim.id: v.status for v in written.gathered.claims}
    assert statuses["T2"] == FAILED and statuses["T1"] == HELD  # the part that worked is still shown
    assert "r2_vs_dim.png" in text and "r2_vs_beta.png" not in text


def test_html_is_self_contained_with_embedded_figures(results: Path, lean_root: Path,
                                                      figures: dict[str, Path]) -> None:
    html = write_report(results, "quick", lean_root).html.read_text(encoding="utf-8")
    assert "<script" not in html
    assert not re.search(r"""(src|href)\s*=\s*["'](?!data:|#)""", html)
    assert "Content-Security-Policy" in html
    uris = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert sorted(base64.b64decode(uri) for uri in uris) == sorted(p.read_bytes() for p in figures.values())
    for claim in CLAIMS:
        assert f"<strong>{claim.id}</strong>" in html
    assert "<details><summary>All runs: <code>summary.csv</code> (2 rows)</summary>" in html


def test_lean_section_lists_axioms_tests_and_build_commands(results: Path, lean_root: Path) -> None:
    lean = gather_lean(lean_root)
    assert [entry.axiom for entry in lean.axioms] == [FIRST_AXIOM, "LeJEPA.unused_axiom"]
    assert lean.axioms[0].claims == tuple(claim.id for claim in CLAIMS if FIRST_AXIOM in claim.lean)
    assert lean.axioms[0].claims and lean.axioms[1].claims == ()
    assert lean.axioms[0].tests == (("tests/numerics/test_first.py::test_first_axiom", True),)
    assert lean.axioms[1].tests == (("tests/numerics/test_unused.py::test_missing_function", False),)
    assert lean.audit_findings  # the fixture has no Lean sources, which the audit reports
    text = write_report(results, "quick", lean_root).markdown.read_text(encoding="utf-8")
    assert "lake exe cache get\nlake build" in text and "not compiled by this report" in text
    assert "**MISSING**" in text and "no Lean sources found" in text


def test_without_a_ledger_the_report_says_so(results: Path, tmp_path: Path) -> None:
    text = write_report(results, "quick", tmp_path / "empty").markdown.read_text(encoding="utf-8")
    assert "No axiom ledger" in text and "lake build" in text


def test_environment_names_versions_and_hardware(results: Path, lean_root: Path) -> None:
    environment = collect_environment()
    assert environment["packages"]["numpy"] != "not installed" and environment["cores"] >= 1
    text = write_report(results, "quick", lean_root).markdown.read_text(encoding="utf-8")
    assert f"numpy {environment['packages']['numpy']}" in text and environment["python"] in text
    assert "seeds 0, 1" in text and format_seconds(25.0) in text


def test_format_seconds() -> None:
    assert [format_seconds(s) for s in (None, 4.25, 65, 3725)] == ["-", "4.2 s", "1 min 05 s", "1 h 02 min"]


def test_cli_main_writes_both_files(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(parents=[common_options(*COMMON_OPTIONS)])
    add_arguments(parser)
    assert report_main(parser.parse_args(["--out", str(results)])) == 0
    printed = capsys.readouterr().out
    assert "claims held" in printed and str(results / "report.html") in printed
    assert (results / "report.md").exists() and (results / "report.html").exists()


def test_console_command_dispatches_to_report(results: Path) -> None:
    from lejepa_wm.commands.cli import main as cli_main

    assert cli_main(["report", "--out", str(results), "--scale", "quick"]) == 0
    assert (results / "report.html").stat().st_size > 0


def test_unknown_scale_is_rejected(results: Path) -> None:
    with pytest.raises(ValueError, match="'huge'"):
        write_report(results, "huge")


# --- the HTML in a real browser ---------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "chromium-profile"
    return subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120, check=False)


def _console_errors(stderr: str) -> list[str]:
    """Console messages and refused loads that Chromium logs to stderr."""
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line or "Refused to" in line or "Uncaught" in line or "ERR_FILE_NOT_FOUND" in line]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y chromium)")
def test_html_opens_in_headless_chromium_without_errors(results: Path, lean_root: Path, tmp_path: Path) -> None:
    _failed_part(results)
    html = write_report(results, "quick", lean_root).html
    dom = _chromium(tmp_path, "--dump-dom", html.resolve().as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console_errors(dom.stderr) == []
    assert '<a id="claims"></a></p>\n<h2>Claims</h2>' in dom.stdout
    assert dom.stdout.count("<img") == 1 and "RuntimeError: rendering unavailable" in dom.stdout
    shot = tmp_path / "report.png"
    screenshot = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2400", html.resolve().as_uri())
    assert screenshot.returncode == 0 and _console_errors(screenshot.stderr) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y chromium)")
def test_chromium_check_detects_a_console_error(tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('deliberate');"
                    "undefinedFunction();</script></body></html>", encoding="utf-8")
    result = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert _console_errors(result.stderr), result.stderr[-2000:]


# --- one transaction per result: publication, folders, figures, interruptions -------------------------------------


def test_the_pair_is_published_together_and_a_failed_rendering_keeps_the_previous_pair(
        results: Path, lean_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import lejepa_wm.report as report_module
    from lejepa_wm.atomic import read_publication
    from lejepa_wm.report import REPORT_PUBLISHED_FILE

    written = write_report(results, "quick", lean_root)
    publication = read_publication(results, REPORT_PUBLISHED_FILE)
    assert publication is not None and sorted(publication.files) == ["report.html", "report.md"]
    before = {path: path.read_bytes() for path in (written.markdown, written.html)}

    def broken(markdown: str, folder: Path, title: str) -> str:
        raise OSError("a figure vanished while the page was rendered")

    monkeypatch.setattr(report_module, "render_html", broken)
    (results / "verify.json").unlink()  # the next report would differ
    with pytest.raises(OSError, match="vanished"):
        write_report(results, "quick", lean_root)
    assert {path: path.read_bytes() for path in before} == before


def test_results_published_for_another_folder_fail_their_section(results: Path) -> None:
    from lejepa_wm.atomic import atomic_write_bytes, publishing

    folder = results / "scaling" / "quick"
    with publishing(folder, {"experiment": "scaling", "scale": "full"}) as stage:
        for name in ("headline.json", "summary.csv", "r2_vs_dim.png"):
            atomic_write_bytes(stage.path / name, (folder / name).read_bytes())
    section = next(s for s in gather(results, "quick").experiments if s.name == "scaling")
    assert section.status == FAILED
    assert "published.json records experiment 'scaling' at scale 'full', but lies in scaling/quick/" in section.error


def test_a_run_whose_spec_names_another_scale_marks_its_experiment_damaged(results: Path) -> None:
    _edit_json(results / "scaling" / "quick" / "runs" / "n=8" / "spec.json",
               lambda spec: spec.update(experiment="scaling", scale="full"))
    section = next(s for s in gather(results, "quick").experiments if s.name == "scaling")
    assert section.status == FAILED
    assert any("records experiment 'scaling' at scale 'full', but lies in scaling/quick/" in d for d in section.damaged)


@pytest.mark.parametrize("make, message", [
    (lambda path: path.write_bytes(b"not an image"), "is not a readable image"),
    (lambda path: path.write_bytes(base64.b64decode(
        "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwS"
        "ExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=")), "holds a JPEG image, not PNG"),
    (lambda path: path.mkdir(), "is a folder, not a regular file"),
])
def test_a_bad_figure_fails_its_own_section_only(results: Path, lean_root: Path, make, message: str) -> None:
    figure = results / "distribution" / "quick" / "r2_vs_beta.png"
    figure.unlink()
    make(figure)
    written = write_report(results, "quick", lean_root)
    sections = {s.name: s for s in written.gathered.experiments}
    assert sections["distribution"].status == FAILED and message in sections["distribution"].error
    assert sections["scaling"].status != FAILED
    assert written.html.read_text(encoding="utf-8").count("<img") == 1  # the scaling figure only


def test_an_interrupted_or_killed_reproduction_shows_the_part_it_was_in(results: Path) -> None:
    import os
    import socket

    from lejepa_wm.report.gather import interrupted_part

    record = _reproduce_record(finished_at=None, current_part={"name": "scaling", "kind": "experiment"},
                               pid=os.getpid(), host=socket.gethostname())
    assert interrupted_part(record) is None  # its process is alive: still running
    part = interrupted_part(replace(record, interrupted="terminated (SIGTERM) during part scaling"))
    assert part.name == "scaling" and not part.ok and "interrupted: terminated (SIGTERM)" in part.error
    record = replace(record, host="another-host")
    assert "stopped during part scaling without finishing (killed?)" in interrupted_part(record).error
    assert interrupted_part(replace(record, finished_at="2026-01-01T00:00:00+00:00")) is None
    (results / "reproduce.json").write_text(json.dumps(record.to_dict()), encoding="utf-8")
    section = next(s for s in gather(results, "quick").experiments if s.name == "scaling")
    assert section.status == FAILED and "killed?" in section.error
