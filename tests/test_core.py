"""Shared infrastructure: validation, atomic writes, configs, claim registry, verify, CLI."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from lejepa_wm import validation
from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.claims import CLAIMS, CheckResult, get_claim
from lejepa_wm.cli import SUBCOMMANDS, build_parser, main
from lejepa_wm.config import config_from_mapping, load_scaled_config
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment
from lejepa_wm.experiments.base import RunSpec
from lejepa_wm.verify import format_table, run_verify


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
    config = config_from_mapping(_Config, {"n": 3, "rho": 1, "sizes": [8, 16]})
    assert config == _Config(3, 1.0, (8, 16))


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
        assert claim.lean, claim.id
        assert set(claim.experiments) <= set(EXPERIMENT_MODULES), claim.id
    with pytest.raises(KeyError, match="'T9'"):
        get_claim("T9")


def test_every_claim_check_module_exists_and_defines_run_checks() -> None:
    import importlib

    for claim in CLAIMS:
        module = importlib.import_module(claim.checks)
        assert callable(module.run_checks), claim.checks


def test_verify_reports_a_raising_check_as_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    claim = get_claim("T1")

    def boom(self: object) -> list[CheckResult]:
        raise ArithmeticError("broken check")

    monkeypatch.setattr(type(claim), "run_checks", boom)
    summary = run_verify(["T1"])
    assert summary["passed"] is False
    assert "broken check" in summary["rows"][0]["measured"]
    assert "FAIL" in format_table(summary["rows"])


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
    assert {row["claim"] for row in summary["rows"]} == {"C1"}


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


def test_unfinished_run_with_changed_settings_starts_afresh(tmp_path: Path) -> None:
    from lejepa_wm.atomic import atomic_write_json as write
    from lejepa_wm.experiments.base import SPEC_FILE, execute_run

    old = RunSpec("scaling", "quick", "r0", {"x": 1})
    write(old.run_dir(tmp_path) / SPEC_FILE, old.to_dict())
    (old.run_dir(tmp_path) / "checkpoint.pt").write_bytes(b"old")
    experiment = _CountingExperiment()
    assert execute_run(experiment, RunSpec("scaling", "quick", "r0", {"x": 2}), tmp_path)["value"] == 2
    assert not (old.run_dir(tmp_path) / "checkpoint.pt").exists()
