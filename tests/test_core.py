"""Shared infrastructure: validation, atomic writes, configs, claim registry, verify, CLI."""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
from pathlib import Path
from typing import Any

import pytest

from lejepa_wm import validation
from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.claims import CLAIMS, Claim, get_claim
from lejepa_wm.commands.cli import SUBCOMMANDS, build_parser, main
from lejepa_wm.commands.verify import format_table
from lejepa_wm.config import config_from_mapping, load_scaled_config
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment
from lejepa_wm.experiments.base import RunSpec
from lejepa_wm.experiments.training import TrainSettings
from lejepa_wm.numerics import checks as checks_module
from lejepa_wm.numerics.checks import run_verify
from lejepa_wm.schema import RunMetrics, read
from lejepa_wm.seeds import SeedStreams
from lejepa_wm.records import (FAILED, HELD, MEASURED, NOT_RUN, UNRESOLVED, Bound, CheckResult, HeadlineEntry,
                               PartOutcome, combine, verdict_of)


@pytest.mark.parametrize("rho", [0.0, 1.0, -0.5, 1.5, float("nan"), float("inf")])
def test_rho_outside_open_interval_is_rejected(rho: float) -> None:
    with pytest.raises(ValueError, match="rho"):
        validation.check_rho(rho)


@pytest.mark.parametrize("value", [0, -3, 2.5, True, "4"])
def test_bad_dimension_is_rejected_with_its_value(value: object) -> None:
    with pytest.raises(ValueError, match=repr(value).replace("(", r"\(").replace(".", r"\.")):
        validation.check_positive_int(value, "n")  # type: ignore[arg-type]


def test_atomic_json_round_trip_and_no_temp_files(tmp_path: Path) -> None:
    path = atomic_write_json(tmp_path / "a" / "m.json", {"x": 1.5, "y": [1, 2]})
    assert read_json(path) == {"x": 1.5, "y": [1, 2]}
    assert [p.name for p in path.parent.iterdir()] == ["m.json"]


def test_atomic_json_rejects_nan_and_keeps_old_file(tmp_path: Path) -> None:
    path = atomic_write_json(tmp_path / "m.json", {"ok": 1})
    with pytest.raises(ValueError):
        atomic_write_json(path, {"bad": float("nan")})
    assert read_json(path) == {"ok": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


@dataclasses.dataclass(frozen=True)
class _Config:
    n: int
    rho: float = 0.5
    sizes: tuple[int, ...] = (2, 4)
    name: str | None = None


def test_config_rejects_unknown_key_and_wrong_type() -> None:
    with pytest.raises(ValueError, match="'typo'"):
        config_from_mapping(_Config, {"n": 2, "typo": 1})
    with pytest.raises(ValueError, match="'n'"):
        config_from_mapping(_Config, {"n": "two"})
    with pytest.raises(ValueError, match="field 'name' must be a valid string; got 7"):
        config_from_mapping(_Config, {"n": 2, "name": 7})
    config = config_from_mapping(_Config, {"n": 3, "rho": 1, "sizes": [8, 16]})
    assert config == _Config(3, 1.0, (8, 16))
    assert config_from_mapping(_Config, {"n": 3, "name": None}).name is None


def test_scaled_config_layers_defaults_file_and_overrides(tmp_path: Path) -> None:
    defaults = tmp_path / "d.toml"
    defaults.write_text("[common]\nrho = 0.9\n[quick]\nn = 2\n[full]\nn = 1024\n")
    user = tmp_path / "u.toml"
    user.write_text("sizes = [3]\n")
    assert load_scaled_config(_Config, defaults, "full") == _Config(1024, 0.9)
    assert load_scaled_config(_Config, defaults, "quick", user, {"name": "x"}) == _Config(2, 0.9, (3,), "x")
    with pytest.raises(ValueError, match="'huge'"):
        load_scaled_config(_Config, defaults, "huge")


def test_claim_registry_is_complete_and_consistent() -> None:
    ids = [claim.id for claim in CLAIMS]
    assert len(ids) == len(set(ids))
    for required in ("T1", "T2", "T3", "T4", "P5", "C1", "M1"):
        assert get_claim(required).checks is not None
    for claim in CLAIMS:
        assert bool(claim.lean) == (claim.kind != "procedure"), claim.id  # a procedure is measured, not proved
        assert set(claim.experiments) <= set(EXPERIMENT_MODULES), claim.id
    with pytest.raises(KeyError, match="'T9'"):
        get_claim("T9")


def test_every_claim_check_module_exists_and_defines_run_checks() -> None:
    import importlib

    for claim in CLAIMS:
        if claim.kind == "procedure":
            assert claim.checks is None, claim.id
            continue
        module = importlib.import_module(claim.checks)
        assert callable(module.run_checks), claim.checks
        assert checks_module.CHECK_MODULES[claim.checks] is module, claim.checks


def test_verify_by_default_runs_every_claim_with_checks_and_no_procedure(monkeypatch: pytest.MonkeyPatch) -> None:
    """A procedure claim (T1R) has no check module: ``verify`` with no ``--claims`` must not turn it into a
    failed row (it did: "claim T1R has no numerical checks")."""
    asked: list[str] = []

    def one_check(claim: Claim) -> list[CheckResult]:
        asked.append(claim.id)
        return [CheckResult.logical(claim.id, "stand_in", "ran", True, "stands in for the claim's checks")]

    monkeypatch.setattr(checks_module, "claim_checks", one_check)
    summary = run_verify()
    assert summary.passed is True
    assert asked == [claim.id for claim in CLAIMS if claim.checks is not None]
    assert "T1R" not in asked and any(claim.checks is None for claim in CLAIMS)


def test_verify_reports_a_raising_check_as_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    claim = get_claim("T1")

    def boom(claim: object) -> list[CheckResult]:
        raise ArithmeticError("broken check")

    monkeypatch.setattr(checks_module, "claim_checks", boom)
    summary = run_verify(["T1"])
    assert summary.passed is False
    row = summary.rows[0]
    assert "broken check" in row.measured and "ArithmeticError" in row.details["traceback"]
    assert row.judged() == (FAILED, None)
    assert "FAIL" in format_table([row])


def test_run_spec_validates_id_and_params(tmp_path: Path) -> None:
    spec = RunSpec("scaling", "quick", "n=4-sigreg-seed0", {"n": 4})
    assert spec.run_dir(tmp_path) == tmp_path / "scaling" / "quick" / "runs" / "n=4-sigreg-seed0"
    assert RunSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    with pytest.raises(ValueError, match="run_id"):
        RunSpec("scaling", "quick", "bad id/with slash")
    with pytest.raises(ValueError):
        RunSpec("scaling", "quick", "x", {"v": float("nan")})


def test_unknown_experiment_is_named() -> None:
    with pytest.raises(ValueError, match="'nope'"):
        get_experiment("nope")


def test_cli_lists_every_subcommand() -> None:
    help_text = build_parser().format_help()
    for name in SUBCOMMANDS:
        assert name in help_text


def test_cli_verify_writes_json_and_sets_exit_status(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    status = main(["verify", "--claims", "C1", "--json", str(out)])
    summary = read_json(out)
    assert status == (0 if summary["passed"] else 1)
    rows = read(list[CheckResult], summary["rows"], "rows")
    assert {row.claim for row in rows} == {"C1"}
    assert all(row.judged() == (HELD, None) for row in rows)


def test_cli_verify_exits_1_on_a_failed_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    failing = CheckResult.compare("C1", "too_large", "error = 1", 1.0, Bound.at_most(1e-12), quantity="error")
    monkeypatch.setattr(checks_module, "claim_checks", lambda claim: [failing])
    assert main(["verify", "--claims", "C1", "--json", str(tmp_path / "v.json")]) == 1
    assert "FAILED: C1/too_large" in capsys.readouterr().out


@pytest.mark.parametrize("claims, message", [("T9", "unknown claim 'T9'"), ("t2", "did you mean 'T2'"),
                                             ("T1R", "claim 'T1R' has no numerical checks")])
def test_cli_verify_unknown_claim_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     claims: str, message: str) -> None:
    assert main(["verify", "--claims", claims, "--json", str(tmp_path / "v.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_verify_unwritable_json_fails_before_any_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import lejepa_wm.commands.verify as verify_module

    def never(*args: object) -> None:
        raise AssertionError("the checks ran although --json cannot be written")

    monkeypatch.setattr(verify_module, "run_verify", never)
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    for target in (blocker / "v.json", tmp_path):  # a folder below a file; a folder instead of a file
        assert main(["verify", "--claims", "C1", "--json", str(target)]) == 2
        err = capsys.readouterr().err
        assert str(target if target == tmp_path else blocker) in err and len(err.strip().splitlines()) == 1


def test_cli_unexpected_error_shows_traceback_and_exits_3(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    import lejepa_wm.commands.verify as verify_module

    def bug(args: object) -> int:
        raise KeyError("internal")

    monkeypatch.setattr(verify_module, "main", bug)
    assert main(["verify"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "please report it" in err


@pytest.mark.parametrize("command", ["report", "audit-lean"])
def test_cli_a_runtime_error_is_a_bug_but_a_missing_environment_is_bad_input(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    module = SUBCOMMANDS[command][0]
    monkeypatch.chdir(tmp_path)
    for error, status in ((RuntimeError("a bug"), 3), (validation.EnvironmentUnavailable("no CUDA device"), 2)):
        def fail(args: object, error: Exception = error) -> int:
            raise error

        monkeypatch.setattr(module, "main", fail)
        assert main([command]) == status
        err = capsys.readouterr().err
        assert ("Traceback" in err and "a bug" in err) if status == 3 else (
            "no CUDA device" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1)


def test_verify_and_reproduce_help_document_exit_codes() -> None:
    parser = build_parser()
    sub = next(action for action in parser._actions if action.dest == "command")
    for name in ("verify", "reproduce"):
        text = sub.choices[name].format_help()
        assert "exit status" in text and "  2  bad input" in text, name
    assert "  3  " in sub.choices["reproduce"].format_help() and "--strict" in sub.choices["reproduce"].format_help()


# --- records ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bound, inside, outside", [
    (Bound.at_most(1e-10), 1e-11, 2e-10), (Bound.at_least(0.999), 0.9995, 0.99), (Bound.above(0.0), 1e-300, 0.0),
    (Bound.below(1.0), 0.5, 1.0), (Bound.between(1.5, 2.5), 2.5, 2.6),
])
def test_bound_holds_and_margin_sign_agree(bound: Bound, inside: float, outside: float) -> None:
    assert bound.holds(inside) and bound.margin(inside) >= 0
    assert not bound.holds(outside) and bound.margin(outside) <= 0
    assert not bound.holds(float("nan"))
    assert Bound.from_dict(json.loads(json.dumps(bound.to_dict()))) == bound


def test_bound_describe_names_the_quantity_and_keeps_every_digit() -> None:
    assert Bound.at_least(0.999).describe("R²") == "R² ≥ 0.999"
    assert Bound.at_most(1e-9).describe() == "≤ 1e-09"
    assert Bound.between(0.99, 1.000001).describe("ratio") == "ratio in [0.99, 1.000001]"
    assert Bound.at_least(0.999999999).describe() == "≥ 0.999999999"  # never rounded to look like 1


@pytest.mark.parametrize("data, field", [
    ({"op": "~", "value": 1}, "operator"), ({"op": "<=", "value": "1e-3"}, "bound: field 'value'"),
    ({"op": "in", "value": 2, "upper": 1}, "interval"), ({"op": "<="}, "value"), ([1, 2], "bound"),
    ({"op": "<=", "value": 1, "upper": 2}, "upper"), ({"op": "in", "value": 1, "upper": None}, "upper"),
])
def test_bad_bound_is_rejected_naming_the_field(data: object, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Bound.from_dict(data)


def test_verdict_of_needs_two_standard_errors_of_margin() -> None:
    bound = Bound.at_least(0.9)
    assert verdict_of(0.95, bound) == HELD and verdict_of(0.85, bound) == FAILED
    assert verdict_of(0.95, bound, 0.02) == HELD  # margin 0.05 > 2 x 0.02
    assert verdict_of(0.95, bound, 0.03) == UNRESOLVED  # margin 0.05 < 2 x 0.03
    assert verdict_of(0.85, bound, 0.03) == UNRESOLVED  # a failure within the noise is not a finding either
    assert verdict_of(0.85, bound, 0.02) == FAILED
    assert verdict_of(0.3, None) == MEASURED and verdict_of(None, None) == MEASURED
    assert verdict_of(None, bound) == FAILED and verdict_of(float("nan"), bound, 0.1) == FAILED


def test_combine_orders_failed_not_run_unresolved_held() -> None:
    assert combine([HELD, UNRESOLVED, NOT_RUN, FAILED]) == FAILED
    assert combine([HELD, UNRESOLVED, NOT_RUN]) == NOT_RUN
    assert combine([HELD, UNRESOLVED, MEASURED]) == UNRESOLVED
    assert combine([HELD, MEASURED]) == HELD and combine([MEASURED]) == MEASURED and combine([]) == NOT_RUN


def test_check_result_round_trip_and_contradicted_record() -> None:
    row = CheckResult.compare("LOSS", "closed_form", "error = 3e-13", 3e-13, Bound.at_most(1e-10),
                              {"n": 3}, quantity="max error")
    assert row.passed and row.judged() == (HELD, None) and row.requirement == "max error ≤ 1e-10"
    assert CheckResult.from_dict(json.loads(json.dumps(row.to_dict()))) == row
    edited = {**row.to_dict(), "value": 1e-9}  # the file says passed, the number says otherwise
    status, note = CheckResult.from_dict(edited).judged()
    assert status == FAILED and "1e-09" in note and "max error ≤ 1e-10" in note
    status, note = CheckResult.from_dict({**row.to_dict(), "passed": False}).judged()
    assert status == FAILED and "recorded as failed" in note
    logical = CheckResult.logical("P5", "sweep", "E_nonlin 0 / 1", True, "0 below 2, 1 above")
    assert logical.judged() == (HELD, None) and logical.requirement == "0 below 2, 1 above"
    assert CheckResult.from_dict(logical.to_dict()) == logical


@pytest.mark.parametrize("change, field", [
    ({"passed": "yes"}, "passed"), ({"value": "small"}, "value"), ({"bound": "<= 1e-10"}, "bound"),
    ({"details": [1]}, "details"), ({"claim": 3}, "claim"),
])
def test_bad_check_result_is_rejected_naming_the_field(change: dict, field: str) -> None:
    row = CheckResult.compare("LOSS", "x", "e", 0.0, Bound.at_most(1.0)).to_dict()
    with pytest.raises(ValueError, match=field):
        CheckResult.from_dict({**row, **change})


def _entry(**change: object) -> HeadlineEntry:
    fields = dict(claim="T1", name="worst residual ratio", quantity="(1 - R²)/(1 - R²_raw)", value=0.02,
                  bound=Bound.at_most(0.1), measured="worst over n", standard_error=0.01, seeds=(0, 1, 2),
                  split="test", scope=None, paper="R² > 0.999", figures=("r2.png",))
    fields.update(change)
    return HeadlineEntry(**fields)  # type: ignore[arg-type]


def test_headline_entry_round_trip_and_recorded_verdict() -> None:
    entry = _entry()
    data = json.loads(json.dumps(entry.to_dict()))
    assert data["verdict"] == HELD and HeadlineEntry.from_dict(data) == entry
    assert entry.requirement == "(1 - R²)/(1 - R²_raw) ≤ 0.1"
    assert entry.judged(data["verdict"]) == (HELD, None) and entry.judged(None) == (HELD, None)
    status, note = entry.judged(FAILED)
    assert status == FAILED and "recorded as 'failed'" in note
    assert entry.judged("great")[0] == FAILED
    assert _entry(standard_error=0.05).verdict == UNRESOLVED
    unscoped = _entry(bound=None, scope="SIGReg is outside T2")
    assert unscoped.verdict == MEASURED and unscoped.requirement == "SIGReg is outside T2"
    assert HeadlineEntry.from_dict(unscoped.to_dict()) == unscoped


@pytest.mark.parametrize("change, field", [
    ({"seeds": [0, "1"]}, "seeds"), ({"figures": "r2.png"}, "figures"), ({"standard_error": -1.0}, "standard_error"),
    ({"value": [0.5]}, "value"), ({"split": None}, "split"), ({"bound": {"op": "<="}}, "value"),
])
def test_bad_headline_entry_is_rejected_naming_the_field(change: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        HeadlineEntry.from_dict({**_entry().to_dict(), **change})


def test_a_list_of_records_names_the_bad_item() -> None:
    good = _entry().to_dict()
    with pytest.raises(ValueError, match=r"headline\.json\[1\]: lacks the field 'quantity'"):
        read(list[HeadlineEntry], [good, {k: v for k, v in good.items() if k != "quantity"}], "headline.json")
    with pytest.raises(ValueError, match="headline.json: the data must be a valid array; got {}"):
        read(list[HeadlineEntry], {}, "headline.json")


@pytest.mark.parametrize("data, message", [
    ({"when": datetime.date(2026, 1, 1)}, "is not JSON data"),
    ({"a": 1, "b": "x"}, "field 'b' must be a valid integer; got 'x'"),
    ({"a": True}, "field 'a' must be a valid integer; got True"),
    ({"a": 1.5}, "field 'a' must be a valid integer; got 1.5"),
])
def test_read_is_strict_and_names_the_bad_value(data: dict, message: str) -> None:
    assert read(dict[str, int], {"a": 1}, "x") == {"a": 1}
    with pytest.raises(ValueError, match=re.escape(f"x: {message}") if "JSON" not in message else message):
        read(dict[str, int], data, "x")


def test_part_outcome_round_trip_and_bad_status() -> None:
    part = PartOutcome("verify", "verify", "ok", 1.5, "ran 59 checks", reused=True)
    assert PartOutcome.from_dict(json.loads(json.dumps(part.to_dict()))) == part
    with pytest.raises(ValueError, match="status"):
        PartOutcome.from_dict({**part.to_dict(), "status": "maybe"})
    with pytest.raises(ValueError, match="reused"):
        PartOutcome.from_dict({**part.to_dict(), "reused": "no"})


def test_atomic_files_are_readable_by_others(tmp_path: Path) -> None:
    import os
    import stat

    old = os.umask(0o022)
    try:
        path = atomic_write_json(tmp_path / "m.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


class _CountingExperiment:
    """A trivial experiment: one run whose metric is its parameter."""

    name = "scaling"
    description = "test double"

    def __init__(self) -> None:
        self.calls = 0

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict:
        self.calls += 1
        return {"value": spec.params["x"]}


def test_finished_run_is_reused_but_changed_settings_are_an_error(tmp_path: Path) -> None:
    from lejepa_wm.experiments.base import StaleRunError, execute_run, is_done

    experiment = _CountingExperiment()
    spec = RunSpec("scaling", "quick", "r0", {"x": 1})
    assert not is_done(spec, tmp_path)
    assert execute_run(experiment, spec, tmp_path)["value"] == 1
    assert is_done(spec, tmp_path)
    assert execute_run(experiment, spec, tmp_path)["value"] == 1
    assert experiment.calls == 1
    changed = RunSpec("scaling", "quick", "r0", {"x": 2})
    with pytest.raises(StaleRunError, match="changed: x"):
        is_done(changed, tmp_path)
    with pytest.raises(StaleRunError, match="--restart"):
        execute_run(experiment, changed, tmp_path)
    assert experiment.calls == 1


def test_a_finished_run_is_read_back_typed_and_a_damaged_one_is_not_finished(tmp_path: Path) -> None:
    from lejepa_wm.experiments.base import (METRICS_FILE, SPEC_FILE, StaleRunError, execute_run, finished_runs, is_done,
                                            read_run)

    spec = RunSpec("scaling", "quick", "r0", {"x": 1, "labels": {"n": 4, "seed": 3}})
    execute_run(_CountingExperiment(), spec, tmp_path)
    run = read_run(spec.run_dir(tmp_path), tmp_path)
    assert run.spec == spec and run.metrics["value"] == 1 and run.spec.labels == {"n": 4, "seed": 3}
    assert run.row()["n"] == 4 and run.row()["x"] == 1 and run.row()["run_id"] == "r0"
    exp_dir = spec.run_dir(tmp_path).parent.parent
    assert [found.spec for found in finished_runs(exp_dir)] == [spec]
    (spec.run_dir(tmp_path) / SPEC_FILE).write_text('{"experiment": "scaling", "scale": "quick", "params": {}}')
    with pytest.raises(ValueError, match="scaling/quick/runs/r0/spec.json: lacks the field 'run_id'"):
        read_run(spec.run_dir(tmp_path), tmp_path)
    assert finished_runs(exp_dir) == []  # left out of aggregation, and never discarded without a word:
    with pytest.raises(StaleRunError, match="different settings"):
        execute_run(_CountingExperiment(), spec, tmp_path)
    assert json.loads((spec.run_dir(tmp_path) / METRICS_FILE).read_text())["value"] == 1
    (spec.run_dir(tmp_path) / SPEC_FILE).unlink()
    with pytest.raises(ValueError, match="spec.json cannot be read"):
        read_run(spec.run_dir(tmp_path))
    assert not is_done(spec, tmp_path)  # no spec.json: damaged, run again
    execute_run(_CountingExperiment(), spec, tmp_path)  # run again: a finished run once more
    (spec.run_dir(tmp_path) / METRICS_FILE).write_text('{"history": [{"step": 5, "seconds": -1.0}]}')
    with pytest.raises(ValueError, match=r"r0/metrics.json: field 'history\[0\].seconds' must be greater than or "
                                         r"equal to 0; got -1.0"):
        read_run(spec.run_dir(tmp_path))


def test_a_finished_run_records_its_machine(tmp_path: Path) -> None:
    from lejepa_wm.experiments.base import METRICS_FILE, execute_run
    from lejepa_wm.machine import describe_machine, usable_cores

    spec = RunSpec("scaling", "quick", "r0", {"x": 1})
    execute_run(_CountingExperiment(), spec, tmp_path, device="cpu")
    stored = json.loads((spec.run_dir(tmp_path) / METRICS_FILE).read_text(encoding="utf-8"))
    assert stored["machine"]["device"] == "cpu" and stored["machine"]["cores"] == usable_cores()
    assert describe_machine(stored["machine"]).endswith(f"{usable_cores()} cores, CPU")
    assert describe_machine({"cpu": "X", "cores": 16, "device": "cuda", "gpu": "H"}) == "X, 16 cores, GPU H"
    assert describe_machine(None) == "not recorded"


class _SpinningExperiment(_CountingExperiment):
    """A run that computes on the CPU for a while and then sleeps, so its CPU time is below its wall time."""

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict:
        import time

        deadline = time.process_time() + 0.05
        while time.process_time() < deadline:
            pass
        time.sleep(0.2)
        return super().execute(spec, run_dir, device)


def test_a_finished_run_records_its_cpu_time_beside_its_wall_time(tmp_path: Path) -> None:
    from lejepa_wm.experiments.base import execute_run

    metrics = execute_run(_SpinningExperiment(), RunSpec("scaling", "quick", "r0", {"x": 1}), tmp_path)
    assert metrics["cpu_time_s"] >= 0.05 and metrics["wall_time_s"] >= 0.25
    assert metrics["cpu_time_s"] < metrics["wall_time_s"]


def test_unfinished_run_with_changed_settings_starts_afresh(tmp_path: Path) -> None:
    from lejepa_wm.atomic import atomic_write_json as write
    from lejepa_wm.experiments.base import SPEC_FILE, execute_run

    old = RunSpec("scaling", "quick", "r0", {"x": 1})
    write(old.run_dir(tmp_path) / SPEC_FILE, old.to_dict())
    (old.run_dir(tmp_path) / "checkpoint.pt").write_bytes(b"old")
    experiment = _CountingExperiment()
    assert execute_run(experiment, RunSpec("scaling", "quick", "r0", {"x": 2}), tmp_path)["value"] == 2
    assert not (old.run_dir(tmp_path) / "checkpoint.pt").exists()


# --- bounded reads, finite JSON, writes that name their path ------------------------------------------------


@pytest.mark.parametrize("make, kind", [
    (lambda path: __import__("os").mkfifo(path), "a FIFO"),
    (lambda path: path.mkdir(), "a folder"),
])
def test_a_file_that_is_not_regular_is_refused_without_blocking(tmp_path: Path, make: object, kind: str) -> None:
    from lejepa_wm.atomic import NotRegularFile, read_json

    path = tmp_path / "metrics.json"
    make(path)  # type: ignore[operator]
    with pytest.raises(NotRegularFile, match=f"{path} is {kind}"):
        read_json(path)


def test_a_device_and_a_file_over_its_cap_are_refused(tmp_path: Path) -> None:
    from lejepa_wm.atomic import NotRegularFile, read_regular

    if Path("/dev/zero").exists():
        with pytest.raises(NotRegularFile, match="/dev/zero is a character device"):
            read_regular("/dev/zero", 10)
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 11)
    with pytest.raises(NotRegularFile, match="holds 11 bytes, more than the 10 allowed"):
        read_regular(path, 10)
    assert read_regular(path, 11) == b"x" * 11
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing", 10)


@pytest.mark.parametrize("text, named", [('{"a": NaN}', "NaN"), ('{"a": -Infinity}', "-Infinity"),
                                         ('{"a": 1e999}', "1e999")])
def test_json_with_a_non_finite_number_is_refused_naming_the_file(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"{path}: {named}"):
        read_json(path)


def test_a_write_that_fails_without_a_file_name_names_its_destination(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import os

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as caught:
        atomic_write_json(tmp_path / "metrics.json", {"a": 1})
    assert caught.value.filename == str(tmp_path / "metrics.json") and caught.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []  # no temporary left behind


def test_config_files_must_be_small_regular_files(tmp_path: Path) -> None:
    import os

    from lejepa_wm.config import CONFIG_LIMIT, read_toml

    os.mkfifo(tmp_path / "fifo.toml")
    with pytest.raises(ValueError, match="fifo.toml is a FIFO"):
        read_toml(tmp_path / "fifo.toml")
    (tmp_path / "big.toml").write_bytes(b"#" * (CONFIG_LIMIT + 1))
    with pytest.raises(ValueError, match="big.toml holds"):
        read_toml(tmp_path / "big.toml")


# --- result sets published as one transaction ---------------------------------------------------------------


def _publish(folder: Path, files: dict[str, bytes], labels: dict | None = None) -> list[Path]:
    from lejepa_wm.atomic import atomic_write_bytes, publishing

    with publishing(folder, labels) as stage:
        for name, data in files.items():
            atomic_write_bytes(stage.path / name, data)
    return list(stage.published)


def test_a_published_set_is_committed_with_its_hashes_and_replaces_the_previous_one(tmp_path: Path) -> None:
    from lejepa_wm.atomic import read_publication

    assert read_publication(tmp_path) is None
    assert _publish(tmp_path, {"a.csv": b"1", "b.png": b"2"}, {"scale": "quick"}) == [tmp_path / "a.csv",
                                                                                        tmp_path / "b.png"]
    first = read_publication(tmp_path)
    assert first is not None and sorted(first.files) == ["a.csv", "b.png"] and first.labels == {"scale": "quick"}
    _publish(tmp_path, {"a.csv": b"3"})
    second = read_publication(tmp_path)
    assert second.generation != first.generation and (tmp_path / "a.csv").read_bytes() == b"3"
    assert not (tmp_path / "b.png").exists()  # a file the new set lacks is removed
    assert sorted(p.name for p in tmp_path.iterdir()) == [".publish.lock", "a.csv", "published.json"]


def test_a_failing_publication_leaves_the_previous_set_whole(tmp_path: Path) -> None:
    from lejepa_wm.atomic import atomic_write_bytes, publishing, read_publication

    _publish(tmp_path, {"a.csv": b"1", "b.json": b"2"})
    with pytest.raises(ValueError, match="NaN"):
        with publishing(tmp_path) as stage:
            atomic_write_bytes(stage.path / "a.csv", b"new")
            raise ValueError("a NaN in the headline")
    assert (tmp_path / "a.csv").read_bytes() == b"1" and read_publication(tmp_path) is not None
    assert not list(tmp_path.glob(".*.stage"))


def test_a_commit_interrupted_before_its_renames_is_completed_by_the_next_reader(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import lejepa_wm.atomic as atomic

    _publish(tmp_path, {"a.csv": b"1", "b.json": b"2"})
    previous, finish = atomic.read_publication(tmp_path), atomic._finish

    class Killed(BaseException):
        pass

    def killed(folder: Path, manifest: str, publication: atomic.Publication | None) -> None:
        if publication is None or publication.generation == previous.generation:
            return finish(folder, manifest, publication)
        raise Killed  # dies once the new set is committed

    monkeypatch.setattr(atomic, "_finish", killed)
    with pytest.raises(Killed):  # the manifest is committed, no staged file is in place yet
        _publish(tmp_path, {"a.csv": b"3", "b.json": b"4"})
    monkeypatch.undo()
    assert (tmp_path / "a.csv").read_bytes() == b"1"
    publication = atomic.read_publication(tmp_path)
    assert [(tmp_path / name).read_bytes() for name in ("a.csv", "b.json")] == [b"3", b"4"]
    assert publication is not None and not list(tmp_path.glob(".*.stage"))


def test_a_file_changed_after_its_publication_is_named(tmp_path: Path) -> None:
    from lejepa_wm.atomic import PublicationError, read_publication

    _publish(tmp_path, {"summary.csv": b"1", "headline.json": b"[]"})
    (tmp_path / "summary.csv").write_bytes(b"edited")
    with pytest.raises(PublicationError, match="summary.csv differs from the one published"):
        read_publication(tmp_path)
    (tmp_path / "summary.csv").unlink()
    with pytest.raises(PublicationError, match="summary.csv is missing"):
        read_publication(tmp_path)
    (tmp_path / "published.json").write_text('{"generation": 3}')
    with pytest.raises(PublicationError, match="published.json is damaged"):
        read_publication(tmp_path)


# --- stored metrics, run results and their commit -----------------------------------------------------------


@pytest.mark.parametrize("change, message", [
    ({"wall_time_s": -5.0}, "'wall_time_s' must be greater than or equal to 0; got -5.0"),
    ({"wall_time_s": float("inf")}, "'wall_time_s' must be a finite number; got inf"),
    ({"probe_r2": "0.99"}, "'probe_r2' must be a valid number; got '0.99'"),
    ({"steps": 1.5}, "'steps' must be a valid integer; got 1.5"),
    ({"resumed_from": True}, "'resumed_from' must be a valid integer; got True"),
])
def test_stored_metrics_of_the_wrong_type_are_named(change: dict, message: str) -> None:
    good = {"probe_r2": 0.9, "wall_time_s": 1.0, "steps": 3, "resumed_from": None, "own_key": ["anything"]}
    assert read(RunMetrics, good, "m.json") == good
    with pytest.raises(ValueError, match=re.escape(f"m.json: field {message}")):
        read(RunMetrics, {**good, **change}, "m.json")


def test_nonfinite_item_names_where_the_value_is() -> None:
    from lejepa_wm.records import nonfinite_item

    assert nonfinite_item({"a": [1.0, {"b": 2}]}) is None
    assert nonfinite_item({"a": [1.0, {"b": float("nan")}]}) == "a[1].b = nan"
    assert nonfinite_item(float("inf")) == "the value = inf"


class _MetricsExperiment(_CountingExperiment):
    def __init__(self, metrics: dict) -> None:
        super().__init__()
        self.metrics = metrics

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict:
        return dict(self.metrics)


def test_a_run_with_a_nonfinite_or_mistyped_metric_is_refused_naming_the_key(tmp_path: Path) -> None:
    from lejepa_wm.experiments.base import METRICS_FILE, execute_run

    spec = RunSpec("scaling", "quick", "r0", {"x": 1})
    with pytest.raises(ValueError, match=r"run 'r0' produced a metric that is not finite: history\[0\] = nan"):
        execute_run(_MetricsExperiment({"history": [float("nan")]}), spec, tmp_path)
    with pytest.raises(ValueError, match="field 'steps' must be greater than or equal to 0; got -1"):
        execute_run(_MetricsExperiment({"steps": -1}), spec, tmp_path)
    assert not (spec.run_dir(tmp_path) / METRICS_FILE).exists()


def test_a_result_refused_by_its_guard_is_dropped_and_its_checkpoint_kept(tmp_path: Path) -> None:
    import contextlib

    from lejepa_wm.experiments.base import CHECKPOINT_FILE, METRICS_FILE, RunTakenOver, execute_run

    spec = RunSpec("scaling", "quick", "r0", {"x": 1})

    class Checkpointing(_CountingExperiment):
        def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict:
            (run_dir / CHECKPOINT_FILE).write_bytes(b"final")
            return super().execute(spec, run_dir, device)

    @contextlib.contextmanager
    def taken_over():
        raise RunTakenOver("run r0 was taken over")
        yield

    with pytest.raises(RunTakenOver):
        execute_run(Checkpointing(), spec, tmp_path, guard=taken_over)
    assert not (spec.run_dir(tmp_path) / METRICS_FILE).exists()
    assert (spec.run_dir(tmp_path) / CHECKPOINT_FILE).read_bytes() == b"final"


def test_a_run_whose_spec_names_another_folder_is_refused_by_aggregation(tmp_path: Path) -> None:
    from lejepa_wm.experiments.base import execute_run, experiment_dir, finished_runs

    execute_run(_CountingExperiment(), RunSpec("scaling", "quick", "r0", {"x": 1}), tmp_path)
    full = experiment_dir(tmp_path, "scaling", "full")
    full.mkdir(parents=True)
    import shutil

    shutil.copytree(experiment_dir(tmp_path, "scaling", "quick") / "runs", full / "runs")
    assert [run.row()["x"] for run in finished_runs(experiment_dir(tmp_path, "scaling", "quick"))] == [1]
    with pytest.raises(ValueError, match="records experiment 'scaling' at scale 'quick', but lies in scaling/full/"):
        finished_runs(full)


# --- command line: paths, values checked where they enter -------------------------------------------------


@pytest.mark.parametrize("argv", [["run", "scaling", "--out", ""], ["sweep", "scaling", "--config", " "],
                                  ["report", "--out", ""], ["reproduce", "--out", ""], ["verify", "--json", ""]])
def test_every_path_option_refuses_the_empty_path(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)
    assert exited.value.code == 2 and "is an empty path" in capsys.readouterr().err


@pytest.mark.parametrize("settings, message", [
    ({"batch_size": 1}, "field 'batch_size' must be greater than or equal to 2; got 1"),
    ({"warmup_steps": 11}, r"warmup_steps \(11\) must not exceed max_steps \(10\)"),
])
def test_train_settings_refuse_cross_field_mistakes(settings: dict, message: str) -> None:
    from lejepa_wm.experiments.training import TrainSettings
    from lejepa_wm.schema import read

    with pytest.raises(ValueError, match=message):
        read(TrainSettings, {"max_steps": 10, "batch_size": 8, "lr": 0.1, "eval_every": 5, "checkpoint_every": 10,
                             **settings}, "train")


@pytest.mark.parametrize("keys, message", [
    ({"eval_size": 10**9}, "'eval_size' must be less than or equal to 262144; got 1000000000"),
    ({"cpu_threads": 10**5}, "'cpu_threads' must not exceed"),
    ({"first_seed": -1}, "'first_seed' must be greater than or equal to 0; got -1"),
    ({"tuning_seeds": [2**62]}, "'tuning_seeds' must hold integers"),
])
def test_training_config_names_the_key_of_a_bad_value(keys: dict, message: str) -> None:
    from lejepa_wm.config import config_from_mapping
    from lejepa_wm.experiments.synthetic import TrainingConfig

    with pytest.raises(ValueError, match=message):
        config_from_mapping(TrainingConfig, keys)


def test_sigreg_refuses_directions_that_are_not_unit_vectors() -> None:
    import torch

    from lejepa_wm.experiments.objectives import (epps_pulley_knots, random_directions, sigreg_reference,
                                                  sigreg_statistic)

    generator = torch.Generator().manual_seed(0)
    h, directions = torch.randn(32, 3, generator=generator), random_directions(3, 5, generator)
    knots, weights = epps_pulley_knots()
    assert torch.isclose(sigreg_statistic(h, directions, knots, weights),
                         sigreg_reference(h, directions, knots, weights), rtol=1e-4)
    for statistic in (sigreg_statistic, sigreg_reference):
        with pytest.raises(ValueError, match="column 2 has norm 0.5"):
            statistic(h, directions * torch.tensor([1.0, 1.0, 0.5, 1.0, 1.0]), knots, weights)
        with pytest.raises(ValueError, match=r"a \(dim, slices\) tensor with dim = 3"):
            statistic(h, directions[:2], knots, weights)


@pytest.mark.parametrize("environ, message", [
    ({"MUJOCO_GL": "glfw"}, "MUJOCO_GL=glfw needs a display"),
    ({"MUJOCO_GL": "wgl"}, "MUJOCO_GL='wgl' is not a back-end"),
])
def test_the_reacher_rendering_back_end_is_checked_naming_the_fix(environ: dict, message: str) -> None:
    from lejepa_wm.experiments.reacher.rendering import RenderingUnavailable, check_backend

    with pytest.raises(RenderingUnavailable, match=message) as caught:
        check_backend(environ)
    assert "MUJOCO_GL=egl" in str(caught.value)
    assert check_backend({"MUJOCO_GL": "glfw", "DISPLAY": ":0"}) == "glfw"


def test_sigterm_stops_a_command_like_ctrl_c_with_its_own_status(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import os
    import signal
    import time

    import lejepa_wm.commands.verify as verify_module

    def terminated(args: object) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        return 0

    monkeypatch.setattr(verify_module, "main", terminated)
    before = signal.getsignal(signal.SIGTERM)
    assert main(["verify"]) == 143
    assert capsys.readouterr().err.strip() == ("lejepa-wm verify: terminated (SIGTERM); finished results are kept, "
                                               "and the same command continues where it stopped")
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_closed_output_is_not_bad_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import lejepa_wm.commands.verify as verify_module

    def closed(args: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(verify_module, "main", closed)
    assert main(["verify"]) == 141 and capsys.readouterr().err == ""


@pytest.mark.parametrize("build, named", [
    (lambda: TrainSettings(10, 32, -1.0), "'lr'"),
    (lambda: TrainSettings(10, 32, float("nan")), "'lr'"),
    (lambda: TrainSettings(10, 1, 1e-3), "'batch_size'"),
    (lambda: TrainSettings(10, 32, 1e-3, precision="float8"), "'precision'"),
    (lambda: Bound("in", 0.0, float("nan")), "'upper'"),
    (lambda: SeedStreams.derive(1).with_stream("init", -1), "'init'"),
])
def test_a_record_built_in_python_meets_the_ranges_of_its_annotations(build: Any, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        build()
