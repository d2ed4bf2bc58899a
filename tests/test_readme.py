"""The README's generated blocks: written from result files, round trip, drift against the shipped results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from lejepa_wm.cli import main as cli_main
from lejepa_wm.records import PartOutcome
from lejepa_wm.report.document import ELAN_INSTALL
from lejepa_wm.report.gather import gather
from lejepa_wm.report.readme import (END, KINDS, START, find_blocks, generate_blocks, read_readme, stale_blocks,
                                     update_readme)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
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
            f"## Full scale\n\n{_block('full-results', 'kept as it is')}\n\nProse after.\n")


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
              "wall_time_s": 642.0, "parts": [part.to_dict() for part in parts], "environment": ENVIRONMENT}
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
    assert update_readme(readme, results, "quick") == ["quick-claims", "quick-results", "quick-run-times"]
    after = readme.read_text(encoding="utf-8")
    assert _outside_blocks(after) == _outside_blocks(before)  # prose and markers untouched
    blocks = _contents(after)
    assert blocks["full-results"] == "\nkept as it is\n"  # another scale's block is left alone
    assert PLACEHOLDER not in after

    gathered = gather(results, "quick")
    claims = blocks["quick-claims"]
    for verdict in gathered.claims:  # every claim with its verdict
        badge = verdict.status.upper() if verdict.status == "failed" else verdict.status
        assert f"| {verdict.claim.id} |" in claims and f"**{badge}**" in claims
    assert "From the results in `results` at scale quick" in claims  # named relative to the README

    row = next(line for line in blocks["quick-results"].splitlines() if "linear probe R^2 at n=32" in line)
    assert "held-out linear-probe R^2 at n=32 = 0.9996 ± 0.0002" in row  # quantity = value ± standard error
    assert "| 0, 1 | test |" in row and "≥ 0.999" in row and "**held**" in row  # seeds, split, requirement

    times = blocks["quick-run-times"]
    assert "took 10 min 42 s of wall time" in times  # reproduce.json's wall time
    assert "Test CPU @ 2.0GHz, 2 usable core(s), no GPU" in times  # the machine it was measured on
    assert "load average 1.50 / 1.25 / 0.75" in times
    assert "reused the finished results of distribution" in times
    assert "| scaling | 1 min 35 s |" in times  # the part's wall time, then the runs' compute

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
    assert "quick-results" in stale and "quick-claims" in stale and "quick-run-times" not in stale
    assert update_readme(readme, results, "quick") == stale
    assert "= 0.99 ± 0.0002" in readme.read_text(encoding="utf-8")


def test_without_a_reproduction_record_the_run_times_say_so(results: Path) -> None:
    (results / "reproduce.json").unlink()
    text = generate_blocks(gather(results, "quick"), "results")["quick-run-times"]
    assert "No `reproduce.json` at scale quick" in text and "| scaling | - |" in text


@pytest.mark.parametrize("text, message", [
    (_block("quick-numbers"), "unknown generated block 'quick-numbers'"),
    (START.format(name="quick-results") + "\n", "has no end marker"),
    (END.format(name="quick-results") + "\n", "without its start"),
    (_block("quick-results") + "\n" + _block("quick-results"), "appears twice"),
    (START.format(name="quick-results") + "\n" + _block("quick-claims"), "starts inside block 'quick-results'"),
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
    assert "rewrote quick-claims, quick-results, quick-run-times in" in capsys.readouterr().out
    assert cli_main(["report", "--out", str(results), "--readme", str(readme)]) == 0
    assert "already up to date" in capsys.readouterr().out
    broken = readme.parent / "BROKEN.md"
    broken.write_text(START.format(name="quick-results") + "\n", encoding="utf-8")
    (results / "report.md").unlink()
    assert cli_main(["report", "--out", str(results), "--readme", str(broken)]) == 2
    assert "has no end marker" in capsys.readouterr().err
    assert not (results / "report.md").exists()  # nothing written before the README was checked


def test_the_readme_has_the_quick_blocks_and_the_reports_lean_install_line() -> None:
    text = README.read_text(encoding="utf-8")
    names = [found.name for found in find_blocks(text, "README.md")]
    assert {f"quick-{kind}" for kind in KINDS} <= set(names)
    assert ELAN_INSTALL in text and ELAN_INSTALL.endswith("| sh -s -- -y")  # non-interactive, same in both


def test_the_readme_blocks_are_what_the_shipped_results_give() -> None:
    if not REFERENCE.is_dir():
        pytest.skip("no reference/ results folder yet: once the project ships reference/<experiment>/<scale>/, "
                    "this test requires the README's generated blocks to equal what `lejepa-wm report --out "
                    "reference --scale SCALE --readme README.md` writes from it")
    text = README.read_text(encoding="utf-8")
    scales = dict.fromkeys(found.scale for found in find_blocks(text, "README.md"))
    stale = [name for scale in scales for name in stale_blocks(README, REFERENCE, scale)]
    assert not stale, (f"README.md blocks {stale} differ from the results in reference/; regenerate them with "
                       "`lejepa-wm report --out reference --scale SCALE --readme README.md`")
