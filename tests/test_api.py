"""The way in from Python: the public names, the registry of experiments and worlds, the trained encoder kept
with every run, and the example that tests a world and an objective of its own through the same protocol."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest
import torch

import lejepa_wm as lw
from lejepa_wm.commands.cli import main as cli_main
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment, register_experiment, worlds
from lejepa_wm.experiments.worlds import register_world
from lejepa_wm.experiments.encoder_file import ENCODER_FILE, load_run
from lejepa_wm.experiments.heldout import HeldOutSamples, reported_metrics
from lejepa_wm.experiments.run_params import SyntheticRunParams
from lejepa_wm.records import VERDICTS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "custom_world.py"
TINY = ["dims=2", "steps=20", "seeds=1", "eval_size=256", "eval_every=10", "encoders=matched_scaled",
        "identifiability_encoders=matched_scaled", "batch_size=64", "warmup_steps=5"]


def test_every_public_name_resolves_and_importing_the_package_loads_neither_torch_nor_matplotlib() -> None:
    assert [name for name in lw.__all__ if not hasattr(lw, name)] == []
    assert set(lw.__all__) <= set(dir(lw))
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        lw.nothing_here  # noqa: B018
    code = "import sys, lejepa_wm; print(sorted({'torch', 'matplotlib'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


IMPORT_EVERY_MODULE = """
import ast, importlib, json, logging, os, pathlib, sys, warnings
root = pathlib.Path("lejepa_wm")
names = [".".join(path.with_suffix("").parts[:-1] if path.name == "__init__.py" else path.with_suffix("").parts)
         for path in sorted(root.rglob("*.py"))]
# What third-party packages do when imported is theirs: import each one the library imports (pyplot, global
# state, excepted), then look.
for path in root.rglob("*.py"):
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            outside = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            outside = [node.module]
        else:
            continue
        for name in outside:
            if name.split(".")[0] not in ("lejepa_wm", "__future__") and name != "matplotlib.pyplot":
                importlib.import_module(name)
import matplotlib, numpy, torch
matplotlib.use("svg")
def state():
    return {"backend": matplotlib.get_backend(), "threads": torch.get_num_threads(),
            "interop": torch.get_num_interop_threads(), "dtype": str(torch.get_default_dtype()),
            "numpy_errors": numpy.geterr(), "environ": dict(os.environ), "warnings": repr(warnings.filters),
            "logging": [repr(h) for h in logging.getLogger().handlers] + [logging.getLogger().level],
            "pyplot": "matplotlib.pyplot" in sys.modules}
before = state()
for name in names:
    importlib.import_module(name)
after = state()
changed = {key: [before[key], after[key]] for key in before if before[key] != after[key]}
print(json.dumps({"modules": len(names), "changed": changed}))
"""


def test_importing_every_module_changes_no_global_state() -> None:
    """No backend chosen, no thread count, environment variable, warning filter or logging handler set, and
    pyplot not loaded: importing the library in a notebook leaves the notebook as it was."""
    result = subprocess.run([sys.executable, "-c", IMPORT_EVERY_MODULE], capture_output=True, text=True, check=True,
                            cwd=ROOT)
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["modules"] > 50 and found["changed"] == {}


def test_sigreg_is_a_drop_in_module() -> None:
    sigreg = lw.SIGReg(num_slices=16)
    assert isinstance(sigreg, torch.nn.Module)
    generator = torch.Generator().manual_seed(0)
    gaussian = sigreg(torch.randn(512, 4, generator=generator), generator)
    shrunk = sigreg(0.2 * torch.randn(512, 4, generator=generator), generator)
    assert 0 <= float(gaussian) < float(shrunk)  # a shrunk embedding is far from N(0, I)


@pytest.fixture()
def registry() -> Iterator[None]:
    """Registrations made by a test are undone after it (the registries are shared dicts: restored in place)."""
    saved = [(table, dict(table)) for table in (EXPERIMENT_MODULES, worlds.WORLD_KINDS)]
    yield
    for table, contents in saved:
        table.clear()
        table.update(contents)


def test_a_users_experiment_is_registered_by_module_and_then_runs_like_the_packages_own(
        registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    register_experiment("toy", "sweep_toy_experiment")
    assert get_experiment("toy").name == "toy"
    out = tmp_path / "out"
    result = lw.run_sweep("toy", "quick", out, executor="serial", progress=False)
    assert result.aggregated and len(result.executed) == len(result.reused) + len(result.executed)
    assert (out / "toy" / "quick" / "headline.json").is_file()


@pytest.mark.parametrize("name, module, message", [
    ("Toy", "sweep_toy_experiment", "must be lower-case letters"),
    ("toy", "not a module", "must be a dotted module path"),
    ("toy", "no_such_module_here", "cannot be imported"),
    ("toy", "json", "defines no EXPERIMENT"),
    ("scaling", "sweep_toy_experiment", "'scaling' is already registered"),
    ("other", "sweep_toy_experiment", "defines experiment 'toy', not 'other'"),
])
def test_a_bad_registration_is_refused_with_the_reason(name: str, module: str, message: str, registry: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    with pytest.raises(ValueError, match=message):
        register_experiment(name, module)
    with pytest.raises(ValueError, match="unknown experiment 'other'; expected one of scaling"):
        get_experiment("other")


@dataclasses.dataclass(frozen=True)
class _ShiftedWorld:
    n: int
    shift: float = 1.0

    @property
    def rho(self) -> tuple[float, ...]:
        return (0.5,) * self.n

    def sample_pairs(self, num: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        z = torch.randn(num, self.n, generator=generator)
        return z + self.shift, 0.5 * z + self.shift


def test_a_registered_world_is_stored_and_rebuilt_like_the_packages_worlds(registry: None) -> None:
    register_world("shifted", _ShiftedWorld)
    stored = worlds.world_to_dict(_ShiftedWorld(2, 3.0))
    assert stored == {"kind": "shifted", "n": 2, "shift": 3.0}
    assert worlds.world_from_dict(json.loads(json.dumps(stored))) == _ShiftedWorld(2, 3.0)
    with pytest.raises(ValueError, match="already registered"):
        register_world("shifted", dataclasses.make_dataclass("Other", ["n"], frozen=True, namespace={
            "rho": (0.5,), "sample_pairs": _ShiftedWorld.sample_pairs}))
    with pytest.raises(ValueError, match="must be a frozen dataclass"):
        register_world("plain", dict)
    with pytest.raises(ValueError, match="lacks rho, sample_pairs"):
        register_world("bare", dataclasses.make_dataclass("Bare", ["n"], frozen=True))


def test_every_synthetic_run_keeps_its_encoder_and_the_loader_rebuilds_it_exactly(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert cli_main(["run", "scaling", *TINY, "methods=sigreg", "--no-control", "--out", str(out)]) == 0
    (run_dir,) = (out / "scaling" / "quick" / "runs").iterdir()
    assert (run_dir / ENCODER_FILE).stat().st_size < 100_000
    loaded = lw.load_run(run_dir)
    assert loaded.params == SyntheticRunParams.from_dict(json.loads((run_dir / "spec.json").read_text())["params"])
    samples = HeldOutSamples.draw(loaded.world, loaded.renderer, loaded.params.eval_size, loaded.params.seeds, "cpu")
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert reported_metrics(loaded.embedding, samples)["probe_r2"] == metrics["probe_r2"]  # the very encoder
    z = samples.test.z[:5]
    assert torch.equal(loaded.embed(z), loaded.encoder(loaded.renderer(z)).detach())


def test_a_run_of_the_whitened_objective_loads_with_the_whitening_it_was_measured_with(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert cli_main(["run", "scaling", *TINY, "methods=whitened", "--no-control", "--out", str(out)]) == 0
    (run_dir,) = (out / "scaling" / "quick" / "runs").iterdir()
    loaded = lw.load_run(run_dir)
    assert loaded.embedding is not loaded.encoder
    samples = HeldOutSamples.draw(loaded.world, loaded.renderer, loaded.params.eval_size, loaded.params.seeds, "cpu")
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert reported_metrics(loaded.embedding, samples)["probe_r2"] == metrics["probe_r2"]


def test_a_missing_or_damaged_encoder_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="encoder.pt does not exist"):
        load_run(tmp_path)
    (tmp_path / ENCODER_FILE).write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="is not a readable encoder file"):
        load_run(tmp_path)


def _example():
    spec = importlib.util.spec_from_file_location("custom_world_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_examples_world_is_exactly_stationary_with_the_correlation_it_states() -> None:
    world = _example().ReflectedUniformWorld(n=2, step=0.5)
    z, z_pos = (v.double().numpy() for v in world.sample_pairs(200_000, torch.Generator().manual_seed(0)))
    assert np.abs(z_pos).max() <= np.sqrt(3) + 1e-6
    assert np.histogram(z_pos, bins=6, range=(-np.sqrt(3), np.sqrt(3)))[0] / z_pos.size == pytest.approx(
        [1 / 6] * 6, abs=0.004)
    assert np.mean(z * z_pos) == pytest.approx(world.rho[0], abs=0.005)
    with pytest.raises(ValueError, match="must be an even integer"):
        _example().ReflectedUniformWorld(n=3)


def test_the_example_reaches_a_verdict_through_the_public_api(registry: None,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    threads = torch.get_num_threads()
    try:
        result = _example().main(steps=100, seeds=2, eval_size=256)
    finally:
        torch.set_num_threads(threads)  # the example sets one thread for itself
    assert [entry.name for entry in result.entries] == ["vicreg-style: identifiability",
                                                        "vicreg-style: the regularizer's effect"]
    assert all(entry.verdict in VERDICTS and entry.seeds == (0, 1) for entry in result.entries)
    assert {row["method"] for row in result.rows} == {"vicreg-style", "alignment_only"}  # beside the control
    assert all(0 < row["raw_observation_r2"] < 1 for row in result.rows)  # the raw baseline
    printed = capsys.readouterr().out
    assert all(f"[{entry.verdict}] {entry.name}" in printed for entry in result.entries)


PUBLIC_MODULES = ("lejepa_wm.experiments", "lejepa_wm.experiments.worlds", "lejepa_wm.experiments.encoders",
                  "lejepa_wm.experiments.flows", "lejepa_wm.experiments.evidence", "lejepa_wm.experiments.protocol",
                  "lejepa_wm.experiments.encoder_file", "lejepa_wm.experiments.plotting", "lejepa_wm.seeds",
                  "lejepa_wm.records", "lejepa_wm.claims", "lejepa_wm.overrides", "lejepa_wm.progress")


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_a_public_module_says_which_names_are_public(module: str) -> None:
    imported = importlib.import_module(module)
    assert imported.__all__ and [name for name in imported.__all__ if not hasattr(imported, name)] == []
