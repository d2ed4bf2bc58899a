"""``lejepa-wm reproduce`` with tiny stand-in experiments and checks: reuse, --fresh, failed parts, exit status.

The stand-in experiments run through the real sweep driver (serial executor), as the real ones do.
"""

from __future__ import annotations

import argparse
import sys
import json
import types
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from lejepa_wm import __version__
from lejepa_wm.commands import reproduce as reproduce_module
from lejepa_wm.atomic import atomic_write_json, atomic_write_text
from lejepa_wm.claims import CLAIMS
from lejepa_wm.numerics.checks import CHECKED_CLAIMS
from lejepa_wm.experiments import EXPERIMENT_MODULES
from lejepa_wm.experiments.base import RunSpec, finished_runs
from lejepa_wm.records import FAILED, Bound, CheckResult, HeadlineEntry, PartOutcome, ReproduceRecord, VerifyRecord
from lejepa_wm.commands.options import common_options
from lejepa_wm.commands.reproduce import COMMON_OPTIONS, REPRODUCED_EXPERIMENTS, add_arguments, main, reproduce

THRESHOLD = 0.999


@dataclass
class TinyExperiment:
    """Two runs whose 'score' comes from their seed; the headline checks every claim this experiment tests."""

    name: str
    description: str = "tiny stand-in experiment"
    fail_with: str | None = None
    run_fails_with: str | None = None
    executed: list[str] = field(default_factory=list)

    def load_config(self, scale: str, path: Path | None = None, overrides: Any = None) -> dict[str, int]:
        return {"runs": 2}

    def grid(self, config: dict[str, int], scale: str, seed: int = 0) -> list[RunSpec]:
        return [RunSpec(self.name, scale, f"run{i}", {"seed": seed + i}) for i in range(config["runs"])]

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict[str, Any]:
        self.executed.append(spec.run_id)
        if self.run_fails_with and spec.run_id == "run1":
            raise FloatingPointError(self.run_fails_with)
        return {"score": 1.0 - 1e-4 * (spec.params["seed"] + 1)}

    def aggregate(self, exp_dir: Path, config: dict[str, int]) -> list[Path]:
        if self.fail_with:
            raise RuntimeError(self.fail_with)
        from PIL import Image

        score = min(run.metrics["score"] for run in finished_runs(exp_dir))
        figure = exp_dir / "score.png"
        Image.new("RGB", (8, 8), (40, 90, 160)).save(figure)
        entries = [HeadlineEntry(claim.id, "lowest score", "min score over runs", score, Bound.at_least(THRESHOLD),
                                 f"min score {score:.5f}", seeds=(0, 1), figures=(figure.name,)).to_dict()
                   for claim in CLAIMS if self.name in claim.experiments]
        headline = atomic_write_json(exp_dir / "headline.json", entries)
        summary = atomic_write_text(exp_dir / "summary.csv", f"min_score\n{score}\n")
        return [headline, summary, figure]


@dataclass
class TinyVerify:
    """Stands in for ``run_verify``: one check per claim, counting the claims it was asked for."""

    failing: tuple[str, ...] = ()
    calls: list[str] = field(default_factory=list)

    def __call__(self, claim_ids: list[str] | None = None) -> VerifyRecord:
        ids = claim_ids or [claim.id for claim in CHECKED_CLAIMS]
        self.calls += ids
        rows = tuple(CheckResult.compare(cid, "closed form", "max error", 1.0 if cid in self.failing else 0.0,
                                         Bound.at_most(1e-12), quantity="max error") for cid in ids)
        return VerifyRecord(rows, {c: 0.0 for c in ids})


@pytest.fixture()
def tiny(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Every experiment replaced by a :class:`TinyExperiment`, ``run_verify`` by a :class:`TinyVerify`."""
    experiments = {}
    for name in EXPERIMENT_MODULES:
        module = types.ModuleType(f"tiny_experiment_{name}")
        module.EXPERIMENT = experiments[name] = TinyExperiment(name)
        monkeypatch.setitem(sys.modules, module.__name__, module)
        monkeypatch.setitem(EXPERIMENT_MODULES, name, module.__name__)
    verify = TinyVerify()
    monkeypatch.setattr(reproduce_module, "run_verify", verify)
    return {"experiments": experiments, "verify": verify}


def _parts(record: ReproduceRecord) -> dict[str, PartOutcome]:
    return {part.name: part for part in record.parts}


def test_first_run_executes_everything_and_every_claim_holds(tmp_path: Path, tiny: dict[str, Any]) -> None:
    record = reproduce(tmp_path, progress=False, jobs=1)
    parts = _parts(record)
    assert list(parts) == ["verify", *REPRODUCED_EXPERIMENTS, "report"]
    assert all(part.status == "ok" and not part.reused for part in parts.values())
    assert tiny["verify"].calls == [claim.id for claim in CHECKED_CLAIMS]
    assert all(exp.executed == ["run0", "run1"] for name, exp in tiny["experiments"].items()
               if name in REPRODUCED_EXPERIMENTS)
    assert record.exit_status == 0 and record.all_claims_held
    assert set(record.claims.values()) == {"held"}
    written = json.loads((tmp_path / "reproduce.json").read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(record.to_dict())) and ReproduceRecord.from_dict(written) == record
    assert json.loads((tmp_path / "verify.json").read_text(encoding="utf-8"))["package_version"] == __version__
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.count("<img") == len(REPRODUCED_EXPERIMENTS)
    assert "executed 2 run(s)" in html  # the parts table of the report


@pytest.mark.slow
def test_second_run_reuses_finished_results_and_says_so(tmp_path: Path, tiny: dict[str, Any],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    reproduce(tmp_path, progress=False, jobs=1)
    calls = len(tiny["verify"].calls)
    record = reproduce(tmp_path, progress=False, jobs=1)
    assert len(tiny["verify"].calls) == calls
    assert all(len(exp.executed) == 2 for name, exp in tiny["experiments"].items() if name in REPRODUCED_EXPERIMENTS)
    parts = _parts(record)
    assert all(parts[name].reused for name in ("verify", *REPRODUCED_EXPERIMENTS))
    assert "reused 2 finished run(s), nothing recomputed" in parts["scaling"].detail
    assert f"written by this package version, {__version__}" in parts["verify"].detail
    assert record.exit_status == 0
    printed = capsys.readouterr().out
    assert "reused" in printed and "nothing recomputed" in printed


@pytest.mark.slow
def test_fresh_recomputes_everything(tmp_path: Path, tiny: dict[str, Any]) -> None:
    reproduce(tmp_path, progress=False, jobs=1)
    record = reproduce(tmp_path, fresh=True, progress=False, jobs=1)
    assert len(tiny["verify"].calls) == 2 * len(CHECKED_CLAIMS)
    assert tiny["experiments"]["reacher"].executed == ["run0", "run1"] * 2
    assert not any(part.reused for part in record.parts) and record.fresh is True


@pytest.mark.parametrize("written, reason", [
    ({"package_version": "0.0.0"}, "was written by lejepa-wm 0.0.0"),
    ({}, "does not record the package version"),
])
def test_verify_json_not_from_this_version_is_recomputed(tmp_path: Path, tiny: dict[str, Any],
                                                         capsys: pytest.CaptureFixture[str],
                                                         written: dict[str, Any], reason: str) -> None:
    atomic_write_json(tmp_path / "verify.json", {**TinyVerify()().to_dict(), "package_version": None, **written})
    record = reproduce(tmp_path, experiments=(), progress=False)
    assert not _parts(record)["verify"].reused and len(tiny["verify"].calls) == len(CHECKED_CLAIMS)
    assert reason in capsys.readouterr().out


def test_the_shipped_reproduce_record_reads_and_writes_back_byte_for_byte(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[1] / "reference" / "reproduce.json"
    if not shipped.exists():
        pytest.skip("no reproduce.json in reference/")
    record = ReproduceRecord.from_dict(json.loads(shipped.read_text(encoding="utf-8")))
    assert record.finished_at is not None and record.exit_status == 0 and len(record.parts) > 2
    atomic_write_json(tmp_path / "reproduce.json", record.to_dict())
    assert (tmp_path / "reproduce.json").read_bytes() == shipped.read_bytes()


def test_verify_json_missing_claims_is_recomputed(tmp_path: Path, tiny: dict[str, Any]) -> None:
    atomic_write_json(tmp_path / "verify.json", replace(TinyVerify()(["T1"]), package_version=__version__).to_dict())
    ok, why = reproduce_module.reusable_verify(tmp_path / "verify.json")
    assert not ok and "lacks the checks of" in why and "HERMITE" in why


def test_a_failed_part_is_recorded_and_the_others_still_run(tmp_path: Path, tiny: dict[str, Any]) -> None:
    tiny["experiments"]["anisotropic"].fail_with = "rendering unavailable"
    record = reproduce(tmp_path, progress=False, jobs=1)
    parts = _parts(record)
    failed = parts["anisotropic"]
    assert failed.status == "failed" and failed.error == "RuntimeError: rendering unavailable"
    assert "Traceback" in failed.traceback and "aggregate" in failed.traceback
    later = REPRODUCED_EXPERIMENTS[REPRODUCED_EXPERIMENTS.index("anisotropic") + 1:]
    assert later and all(parts[name].status == "ok" for name in (*later, "report"))
    assert record.claims["P5"] == "failed" and record.claims["T1"] == "held"
    assert record.exit_status == 3  # a part crashed
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "anisotropic failed with this error" in report and "RuntimeError: rendering unavailable" in report


def test_a_failed_run_fails_its_part_with_the_runs_error(tmp_path: Path, tiny: dict[str, Any]) -> None:
    tiny["experiments"]["bounds"].run_fails_with = "loss became NaN at step 12"
    record = reproduce(tmp_path, progress=False, jobs=1)
    failed = _parts(record)["bounds"]
    assert failed.status == "failed" and record.exit_status == 3
    assert failed.error == "1 run(s) failed: run1: FloatingPointError: loss became NaN at step 12"
    assert "Traceback" in failed.traceback and "execute" in failed.traceback
    assert tiny["experiments"]["bounds"].executed == ["run0", "run1"]  # the same inputs fail again: not retried
    assert record.claims["T3"] == "failed"


def test_a_claim_that_does_not_hold_exits_0_and_1_only_with_strict(tmp_path: Path, tiny: dict[str, Any],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reproduce_module, "run_verify", TinyVerify(failing=("LOSS",)))
    record = reproduce(tmp_path, experiments=REPRODUCED_EXPERIMENTS, progress=False, jobs=1)
    assert all(part.status == "ok" for part in record.parts)
    assert record.claims["LOSS"] == FAILED and record.exit_status == 0
    strict = reproduce(tmp_path, experiments=REPRODUCED_EXPERIMENTS, progress=False, strict=True, jobs=1)
    assert strict.exit_status == 1 and strict.strict is True


def test_a_failed_report_is_recorded(tmp_path: Path, tiny: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(out: Path, scale: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(reproduce_module, "write_report", broken)
    record = reproduce(tmp_path, progress=False, jobs=1)
    assert _parts(record)["report"].error == "OSError: disk full"
    assert record.all_claims_held and record.exit_status == 3


def test_main_prints_a_summary_naming_every_claim_and_the_report(tmp_path: Path, tiny: dict[str, Any],
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(reproduce_module, "run_verify", TinyVerify(failing=("LOSS",)))
    parser = argparse.ArgumentParser(parents=[common_options(*COMMON_OPTIONS)])
    add_arguments(parser)
    status = main(parser.parse_args(["--out", str(tmp_path), "--jobs", "1"]))
    captured = capsys.readouterr()
    assert status == 0
    held = [claim.id for claim in CLAIMS if claim.id != "LOSS"]
    assert f"Claims ({len(CLAIMS)}): {len(held)} held ({', '.join(held)}), 1 failed (LOSS), 0 not resolved, " \
           "0 measured, 0 not run." in captured.out
    assert f"Report: {tmp_path / 'report.html'}" in captured.out
    assert "Exit status 0" in captured.out and "--strict" in captured.out
    assert main(parser.parse_args(["--out", str(tmp_path), "--strict"])) == 1


def test_main_says_when_no_report_was_written(tmp_path: Path, tiny: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    def broken(out: Path, scale: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(reproduce_module, "write_report", broken)
    parser = argparse.ArgumentParser(parents=[common_options(*COMMON_OPTIONS)])
    add_arguments(parser)
    assert main(parser.parse_args(["--out", str(tmp_path), "--jobs", "1"])) == 3
    printed = capsys.readouterr().out
    assert f"No report was written (see the report part above); record: {tmp_path / 'reproduce.json'}" in printed
    assert "CRASHED part report: OSError: disk full" in printed and "Exit status 3: a part crashed." in printed


def test_without_a_terminal_one_line_per_part_and_no_progress_bars(tmp_path: Path, tiny: dict[str, Any],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(2):  # the second run reuses every part
        reproduce(tmp_path, experiments=("scaling", "bounds"), jobs=1)  # progress: stderr is not a terminal here
        captured = capsys.readouterr()
        lines = captured.out.strip().splitlines()
        assert [line.split(":")[0] for line in lines] == ["[1/4] verify", "[2/4] scaling", "[3/4] bounds",
                                                          "[4/4] report"], lines
        assert "it/s" not in captured.err and "run/s" not in captured.err and "\r" not in captured.err


def test_fresh_deletes_each_experiments_folder_first(tmp_path: Path, tiny: dict[str, Any]) -> None:
    reproduce(tmp_path, experiments=("scaling",), progress=False, jobs=1)
    stray = tmp_path / "scaling" / "quick" / "runs" / "old-run" / "metrics.json"
    stray.parent.mkdir(parents=True)
    stray.write_text("{}", encoding="utf-8")
    reproduce(tmp_path, experiments=("scaling",), fresh=True, progress=False, jobs=1)
    assert not stray.parent.exists() and (tmp_path / "scaling" / "quick" / "headline.json").exists()


def test_unwritable_out_is_bad_input(tmp_path: Path, tiny: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    from lejepa_wm.commands.cli import main as cli_main

    blocker = tmp_path / "a_file"
    blocker.write_text("x", encoding="utf-8")
    assert cli_main(["reproduce", "--out", str(blocker)]) == 2
    assert cli_main(["reproduce", "--out", str(blocker / "results")]) == 2
    err = capsys.readouterr().err
    assert str(blocker) in err and "Traceback" not in err
    assert tiny["verify"].calls == []  # nothing ran


def test_another_seed_offset_needs_fresh(tmp_path: Path, tiny: dict[str, Any]) -> None:
    reproduce(tmp_path, experiments=("scaling",), progress=False, jobs=1)
    with pytest.raises(ValueError, match="seed offset 0, not 3"):
        reproduce(tmp_path, seed=3, experiments=("scaling",), progress=False, jobs=1)
    record = reproduce(tmp_path, seed=3, fresh=True, experiments=("scaling",), progress=False, jobs=1)
    assert record.seed == 3 and tiny["experiments"]["scaling"].executed == ["run0", "run1"] * 2


def test_console_command_dispatches_to_reproduce(tmp_path: Path, tiny: dict[str, Any]) -> None:
    from lejepa_wm.commands.cli import main as cli_main

    assert cli_main(["reproduce", "--out", str(tmp_path), "--jobs", "1"]) == 0
    tiny["experiments"]["bounds"].fail_with = "out of memory"
    assert cli_main(["reproduce", "--out", str(tmp_path), "--fresh", "--jobs", "1"]) == 3  # a part crashed
    assert cli_main(["reproduce", "--out", str(tmp_path), "--seed", "5"]) == 2  # seed offset differs: refused


@pytest.mark.parametrize("kwargs, bad", [({"scale": "huge"}, "'huge'"), ({"device": "tpu"}, "'tpu'"),
                                         ({"seed": -1}, "seed"), ({"experiments": ("nope",)}, "'nope'")])
def test_bad_options_are_rejected(tmp_path: Path, kwargs: dict[str, str], bad: str) -> None:
    with pytest.raises(ValueError, match=bad):
        reproduce(tmp_path, progress=False, jobs=1, **kwargs)


def test_fresh_refuses_before_any_part_while_a_live_process_owns_a_run(tmp_path: Path, tiny: dict[str, Any]) -> None:
    import os

    from lejepa_wm.atomic import atomic_write_json
    from lejepa_wm.sweep.state import RUNNING_FILE, new_marker

    reproduce(tmp_path, progress=False, jobs=1)
    busy = tmp_path / "distribution" / "quick" / "runs" / "run1"
    atomic_write_json(busy / RUNNING_FILE, new_marker(1))
    tiny["verify"].calls.clear()
    with pytest.raises(ValueError, match=rf"--fresh would delete .*distribution.* while run run1 is using it "
                                         rf"\(pid {os.getpid()}"):
        reproduce(tmp_path, fresh=True, progress=False, jobs=1)
    assert tiny["verify"].calls == [] and (tmp_path / "distribution" / "quick" / "headline.json").exists()


def test_a_machine_an_experiment_cannot_run_on_is_refused_before_any_part(tmp_path: Path,
                                                                          tiny: dict[str, Any]) -> None:
    def cannot(device: str = "cpu") -> None:
        raise RuntimeError("MUJOCO_GL=glfw needs a display; run with MUJOCO_GL=egl")

    tiny["experiments"]["reacher"].check_environment = cannot
    with pytest.raises(RuntimeError, match="MUJOCO_GL=egl"):
        reproduce(tmp_path, progress=False, jobs=1)
    assert tiny["verify"].calls == [] and not (tmp_path / "reproduce.json").exists()


@pytest.mark.parametrize("interruption, said", [(KeyboardInterrupt(), "interrupted (Ctrl-C) during part bounds"),
                                                 (KeyboardInterrupt("SIGTERM"), "terminated (SIGTERM) during part "
                                                                                "bounds")])
def test_an_interrupted_reproduction_says_so_in_its_record_and_report(tmp_path: Path, tiny: dict[str, Any],
                                                                     interruption: KeyboardInterrupt,
                                                                     said: str) -> None:
    from lejepa_wm.report.gather import gather

    def interrupted(exp_dir: Path, config: Any) -> list[Path]:
        raise interruption

    tiny["experiments"]["bounds"].aggregate = interrupted
    with pytest.raises(KeyboardInterrupt):
        reproduce(tmp_path, progress=False, jobs=1)
    record = json.loads((tmp_path / "reproduce.json").read_text(encoding="utf-8"))
    assert record["finished_at"] is None and record["interrupted"].startswith(said)
    assert record["current_part"] == {"name": "bounds", "kind": "experiment"}
    part = next(part for part in gather(tmp_path, "quick").parts if part.name == "bounds")
    assert not part.ok and said in part.error
