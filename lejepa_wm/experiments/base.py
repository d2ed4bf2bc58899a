"""The unit of work shared by ``lejepa-wm run``, ``lejepa-wm sweep`` and the report.

An experiment expands its validated configuration into a grid of independent
:class:`RunSpec` s. Each run executes in its own folder
``<out>/<experiment>/<scale>/runs/<run_id>/`` and finishes by writing
``metrics.json`` atomically; a run whose ``metrics.json`` exists is done and is
never recomputed (resume). ``spec.json`` records the parameters a run was
started with: a finished run with other parameters is an error
(:class:`StaleRunError`), never a silent reuse, and an unfinished one is started
afresh (its checkpoints belong to the old settings). A run may keep checkpoints in its folder so that an
interrupted run continues where it stopped. When every run is done,
``aggregate`` turns the per-run metrics into ``summary.csv`` and figures in
``<out>/<experiment>/<scale>/``, plus ``headline.json``: a list of entries
``{"claim": "T1", "name": ..., "measured": "<text>", "value": <float|null>,
"expected": "<text>", "passed": <bool>, "paper": "<text|null>",
"figures": ["<file name in exp_dir>", ...]}`` that the report puts beside the
claim (verdicts are computed from the measured numbers, never typed in).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Protocol, runtime_checkable

from lejepa_wm.atomic import atomic_write_json, read_json

RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9_.=+-]+$")
METRICS_FILE = "metrics.json"
SPEC_FILE = "spec.json"
HEADLINE_FILE = "headline.json"
SUMMARY_FILE = "summary.csv"


@dataclass(frozen=True)
class RunSpec:
    """One independent training/evaluation run: what to do, and where its results go.

    ``params`` must be JSON-serializable; it is everything ``execute`` needs
    besides the folder and the device (seed included).
    """

    experiment: str
    scale: str
    run_id: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not RUN_ID_PATTERN.match(self.run_id):
            raise ValueError(f"run_id {self.run_id!r} must match {RUN_ID_PATTERN.pattern}")
        json.dumps(dict(self.params), allow_nan=False)

    def run_dir(self, out: Path) -> Path:
        """Folder of this run below the results root ``out``."""
        return experiment_dir(out, self.experiment, self.scale) / "runs" / self.run_id

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (what ``spec.json`` holds)."""
        return {"experiment": self.experiment, "scale": self.scale, "run_id": self.run_id,
                "params": dict(self.params)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "RunSpec":
        """Inverse of :meth:`to_dict`."""
        return cls(data["experiment"], data["scale"], data["run_id"], data.get("params", {}))


def experiment_dir(out: Path, experiment: str, scale: str) -> Path:
    """Folder holding one experiment's runs, summary and figures at one scale."""
    return Path(out) / experiment / scale


@runtime_checkable
class Experiment(Protocol):
    """What an experiment module's ``EXPERIMENT`` object provides."""

    name: str
    description: str

    def load_config(self, scale: str, path: Path | None = None,
                    overrides: Mapping[str, Any] | None = None) -> Any:
        """Validated configuration for ``scale`` (``quick`` or ``full``), optionally from a file."""

    def grid(self, config: Any, scale: str, seed: int = 0) -> list[RunSpec]:
        """All runs of the experiment; ``seed`` offsets every run's seed."""

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict[str, Any]:
        """Do one run (resuming from checkpoints in ``run_dir``) and return its metrics."""

    def aggregate(self, exp_dir: Path, config: Any) -> list[Path]:
        """Write ``summary.csv`` and figures from the finished runs; return the files written."""


class StaleRunError(ValueError):
    """A run folder holds results (or checkpoints) computed with different parameters."""


def check_stored_spec(spec: RunSpec, out: Path) -> None:
    """Raise :class:`StaleRunError` if the run's folder was started with other parameters.

    Resuming or reusing a run is only sound when it is the same run: a changed
    configuration must never be mixed with results or checkpoints of the old one.
    """
    stored_path = spec.run_dir(out) / SPEC_FILE
    if not stored_path.exists():
        return
    stored = read_json(stored_path)
    current = json.loads(json.dumps(spec.to_dict()))
    if stored != current:
        old, new = stored.get("params", {}), current["params"]
        changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k)) or ["experiment/scale"]
        raise StaleRunError(
            f"run {spec.run_id!r} in {spec.run_dir(out)} was started with different settings "
            f"(changed: {', '.join(changed)}); start over (`lejepa-wm run --restart`, "
            f"`lejepa-wm reproduce --fresh`) or choose another --out")


def is_done(spec: RunSpec, out: Path) -> bool:
    """Whether the run has finished (its ``metrics.json`` exists) with the same parameters.

    Raises :class:`StaleRunError` if the finished run had other parameters.
    """
    if not (spec.run_dir(out) / METRICS_FILE).exists():
        return False
    check_stored_spec(spec, out)
    return True


def execute_run(experiment: Experiment, spec: RunSpec, out: Path, device: str = "cpu") -> dict[str, Any]:
    """Execute ``spec`` unless it is done; write ``spec.json`` and then ``metrics.json`` atomically.

    The returned metrics gain ``wall_time_s`` (time of this execution) unless the
    run was already done, in which case the stored metrics are returned.
    """
    run_dir = spec.run_dir(out)
    metrics_path = run_dir / METRICS_FILE
    if metrics_path.exists():
        check_stored_spec(spec, out)
        return read_json(metrics_path)
    try:
        check_stored_spec(spec, out)
    except StaleRunError:  # an unfinished run with other settings: its checkpoints do not apply
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_json(run_dir / SPEC_FILE, spec.to_dict())
    start = time.perf_counter()
    metrics = dict(experiment.execute(spec, run_dir, device))
    metrics.setdefault("wall_time_s", time.perf_counter() - start)
    metrics.setdefault("run_id", spec.run_id)
    atomic_write_json(metrics_path, metrics)
    return metrics


def load_finished_metrics(exp_dir: Path) -> list[dict[str, Any]]:
    """Metrics of every finished run below ``exp_dir``, each with its ``params`` merged in.

    Rows are sorted by run id so aggregation does not depend on the order in
    which runs finished (serial, pool or cluster).
    """
    rows = []
    for metrics_path in sorted((Path(exp_dir) / "runs").glob(f"*/{METRICS_FILE}")):
        metrics = read_json(metrics_path)
        spec_path = metrics_path.parent / SPEC_FILE
        params = read_json(spec_path)["params"] if spec_path.exists() else {}
        rows.append({**params, **metrics})
    return sorted(rows, key=lambda row: str(row.get("run_id", "")))
