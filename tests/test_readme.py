"""The README and the docs' generated blocks: written from result files, round trip, drift against the shipped
results; and the README itself: one page, provenance, a figure, the claims, the settings, a citation."""

from __future__ import annotations

import csv
import json
import re
import shutil
import statistics
from pathlib import Path

import pytest
from PIL import Image

from lejepa_wm.commands.cli import main as cli_main
from lejepa_wm.experiments import get_experiment
from lejepa_wm.records import PartOutcome
from lejepa_wm.report.gather import gather
from lejepa_wm.report.paper import PAPER_SETTINGS
from lejepa_wm.report.readme import (END, KINDS, START, find_blocks, generate_blocks, read_readme, stale_blocks,
                                     update_readme)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GENERATED_DOCS = (README, ROOT / "docs" / "ENGINEERING.md")
REFERENCE = ROOT / "reference"
FIXTURES = Path(__file__).parent / "fixtures" / "report"
ENVIRONMENT = {"python": "CPython 3.11.7", "platform": "Linux-test", "packages": {"torch": "2.13.0"},
               "cpu": "Test CPU @ 2.0GHz", "cores": 2, "gpus": [], "load_average": [1.5, 1.25, 0.75]}
PLACEHOLDER = "*Not generated yet.*"


def _block(name: str, content: str = PLACEHOLDER) -> str:
    return f"{START.format(name=name)}\n{content}\n{END.format(name=name)}"


def _readme_text() -> str:
    quick = "\n\n".join(_block(f"quick-{kind}") for kind in KINDS)
    return (f"# A project\n\nProse before, with a number typed by hand: 0.5.\n\n{quick}\n\n"
            f"## Full scale\n\n{_block('full-summary', 'kept as it is')}\n\nProse after.\n")


@pytest.fixture()
def results(tmp_path: Path) -> Path:
    """The report fixtures with their figures in place and the record of a reproduction that ran every part."""
    out = tmp_path / "results"
    shutil.copytree(FIXTURES, out)
    for figure in ("scaling/quick/r2_vs_dim.png", "distribution/quick/r2_vs_beta.png"):
        Image.new("RGB", (4, 4)).save(out / figure)  # a readable image: the report validates every figure
    parts = [PartOutcome("verify", "verify", "ok", 12.0, "ran checks"),
             PartOutcome("scaling", "experiment", "ok", 95.0, "executed 2 run(s)"),
             PartOutcome("distribution", "experiment", "ok", 4.0, "reused 2 finished run(s)", reused=True),
             PartOutcome("report", "report", "ok", 3.0, "wrote the report")]
    record = {"package_version": "0.1.0", "scale": "quick", "seed": 0, "device": "cpu", "fresh": False,
              "strict": False, "started_at": "2026-01-02T03:04:05+00:00", "finished_at": "2026-01-02T03:06:00+00:00",
              "wall_time_s": 642.0, "parts": [part.to_dict() for part in parts], "environment": ENVIRONMENT,
              "pid": 1, "host": "a-host"}
    (out / "reproduce.json").write_text(json.dumps(record), encoding="utf-8")
    return out


@pytest.fixture()
def readme(tmp_path: Path) -> Path:
    path = tmp_path / "README.md"
    path.write_text(_readme_text(), encoding="utf-8")
    return path


def _outside_blocks(text: str) -> str:
    """The text with every block's content removed (what the generator must leave alone)."""
    pieces, cursor = [], 0
    for found in find_blocks(text):
        pieces.append(text[cursor:found.start])
        cursor = found.end
    return "".join(pieces) + text[cursor:]


def _contents(text: str) -> dict[str, str]:
    return {found.name: text[found.start:found.end] for found in find_blocks(text)}


def test_blocks_are_written_from_the_results_and_regenerating_changes_nothing(results: Path, readme: Path) -> None:
    before = readme.read_text(encoding="utf-8")
    assert update_readme(readme, results, "quick") == [f"quick-{kind}" for kind in KINDS]
    after = readme.read_text(encoding="utf-8")
    assert _outside_blocks(after) == _outside_blocks(before)  # prose and markers untouched
    blocks = _contents(after)
    assert blocks["full-summary"] == "\nkept as it is\n"  # another scale's block is left alone
    assert PLACEHOLDER not in after

    gathered = gather(results, "quick")
    summary = blocks["quick-summary"]
    for verdict in gathered.claims:  # every claim, its verdict linked to its row of the report
        assert f"| **{verdict.claim.id}** |" in summary
        assert f"[{verdict.status}](results/report.md#claim-{verdict.claim.id.lower()})" in summary
    assert "[held](results/report.md#result-t1-scaling)" in summary  # an experiment's verdict, linked to its rows
    assert "From the results in `results` at scale quick" in summary  # named relative to the README

    assert "**T1 (Forward identifiability)**: **held**" in blocks["quick-t1"]
    assert "scaling: 1 held" in blocks["quick-t1"]

    commands = blocks["quick-commands"]
    assert "took 10 min 42 s of wall time on Test CPU @ 2.0GHz, 2 usable core(s), no GPU" in commands
    assert "It reused the finished results of distribution" in commands
    assert "`lejepa-wm verify` took 5.0 s" in commands  # verify.json's own wall time

    times = blocks["quick-run-times"]
    assert "load average 1.50 / 1.25 / 0.75" in times and "| scaling | 1 min 35 s |" in times

    settings = blocks["quick-settings"]
    assert all(item.setting.replace("_", "\\_") in settings for item in PAPER_SETTINGS)

    assert update_readme(readme, results, "quick") == []  # the round trip: same files, same text
    assert readme.read_text(encoding="utf-8") == after
    assert stale_blocks(readme, results, "quick") == []


def test_a_changed_result_makes_its_blocks_stale(results: Path, readme: Path) -> None:
    update_readme(readme, results, "quick")
    path = results / "scaling" / "quick" / "headline.json"
    entries = json.loads(path.read_text(encoding="utf-8"))
    entries[0].update(value=0.99, verdict="failed")
    path.write_text(json.dumps(entries), encoding="utf-8")
    stale = stale_blocks(readme, results, "quick")
    assert "quick-summary" in stale and "quick-t1" in stale
    assert "quick-run-times" not in stale and "quick-settings" not in stale
    assert update_readme(readme, results, "quick") == stale
    assert "[failed](results/report.md#result-t1-scaling)" in readme.read_text(encoding="utf-8")


def test_without_a_reproduction_record_the_times_say_so(results: Path) -> None:
    (results / "reproduce.json").unlink()
    blocks = generate_blocks(gather(results, "quick"), "results")
    assert "No `reproduce.json` at scale quick" in blocks["quick-run-times"] and "| scaling | - |" in blocks[
        "quick-run-times"]
    assert "no reproduction was timed" in blocks["quick-commands"]


def test_the_settings_here_are_read_from_the_shipped_configs(results: Path) -> None:
    settings = generate_blocks(gather(results, "full"), "results")["full-settings"]
    scaling = get_experiment("scaling").load_config("full")
    assert f"| rho = {scaling.rho} (scaling.toml) |" in settings
    assert f"max\\_steps = {scaling.max_steps:,}" in settings


@pytest.mark.skipif(not (REFERENCE / "reacher" / "quick" / "summary.csv").is_file(), reason="no shipped results")
def test_the_papers_numbers_stand_beside_the_same_quantity_computed_from_the_summary() -> None:
    summary = generate_blocks(gather(REFERENCE, "quick"), "reference")["quick-summary"]
    with open(REFERENCE / "reacher" / "quick" / "summary.csv", newline="", encoding="utf-8") as handle:
        ou = [float(row["ou_test_r2_total"]) for row in csv.DictReader(handle)
              if float(row["ou_fraction"]) == 1.0 and not row["control"]]  # the model, not its λ = 0 control
    row = next(line for line in summary.splitlines() if "R² = 0.95 from pixels" in line)
    assert f"test R² on OU frames: {statistics.mean(ou):.4f}" in row


@pytest.mark.parametrize("text, message", [
    (_block("quick-numbers"), "unknown generated block 'quick-numbers'"),
    (START.format(name="quick-summary") + "\n", "has no end marker"),
    (END.format(name="quick-summary") + "\n", "without its start"),
    (_block("quick-summary") + "\n" + _block("quick-summary"), "appears twice"),
    (START.format(name="quick-summary") + "\n" + _block("quick-t1"), "starts inside block 'quick-summary'"),
    ("# no blocks\n", "has no generated block of scale 'quick'"),
])
def test_malformed_markers_are_refused_with_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "README.md"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_readme(path, "quick")


def test_report_command_rewrites_the_readme_and_refuses_a_malformed_one(results: Path, readme: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["report", "--out", str(results), "--scale", "quick", "--readme", str(readme)]) == 0
    assert f"rewrote {', '.join(f'quick-{kind}' for kind in KINDS)} in" in capsys.readouterr().out
    assert cli_main(["report", "--out", str(results), "--readme", str(readme)]) == 0
    assert "already up to date" in capsys.readouterr().out
    broken = readme.parent / "BROKEN.md"
    broken.write_text(START.format(name="quick-summary") + "\n", encoding="utf-8")
    (results / "report.md").unlink()
    assert cli_main(["report", "--out", str(results), "--readme", str(broken)]) == 2
    assert "has no end marker" in capsys.readouterr().err
    assert not (results / "report.md").exists()  # nothing written before the README was checked


def test_the_readme_is_one_page_that_says_what_the_package_is_and_how_to_cite_the_paper() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    names = {found.name for found in find_blocks(text, "README.md")}
    assert {"quick-commands", "full-summary", "full-t1", "full-settings"} <= names
    for phrase in ("independent of the paper's authors", "abstract", "reviews", "not the authors' code"):
        assert phrase in text
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert images and all((ROOT / image).is_file() for image in images)  # the headline figure is shipped
    bibtex = re.search(r"```bibtex\n(@article\{.*?\n\})\n```", text, flags=re.S)
    assert bibtex and all(field in bibtex.group(1) for field in ("title", "author", "journal", "year"))
    assert "2605.26379" in bibtex.group(1)


@pytest.mark.parametrize("document", [README, *(ROOT / "docs" / name for name in ("ENGINEERING.md", "EXPERIMENTS.md",
                                                                                 "GLOSSARY.md"))],
                         ids=lambda path: path.name)
def test_every_relative_link_of_the_readme_and_the_docs_resolves(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    missing = [link for link in links if "://" not in link and not (document.parent / link).exists()]
    assert not missing, f"{document.name} links to missing files: {missing}"


def test_the_docs_blocks_are_what_the_shipped_results_give() -> None:
    if not REFERENCE.is_dir():
        pytest.skip("no reference/ results folder: the generated blocks are checked against it once it exists")
    stale = []
    for document in GENERATED_DOCS:
        text = document.read_text(encoding="utf-8")
        for scale in dict.fromkeys(found.name.split("-", 1)[0] for found in find_blocks(text, document.name)):
            stale += [f"{document.name}: {name}" for name in stale_blocks(document, REFERENCE, scale)]
    assert not stale, (f"blocks {stale} differ from the results in reference/; regenerate them with "
                       "`lejepa-wm report --out reference --scale SCALE --readme FILE`")
