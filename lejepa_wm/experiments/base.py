"""The unit of work shared by ``lejepa-wm run``, ``lejepa-wm sweep`` and the report.

An experiment expands its validated configuration into a grid of independent
:class:`RunSpec` s. Each run executes in its own folder
``<out>/<experiment>/<scale>/runs/<run_id>/`` and finishes by writing
``metrics.json`` atomically (after ``spec.json``); a run with a readable ``metrics.json`` and a
``spec.json`` is done and is never recomputed (resume); its metrics are checked on reading and writing
(:class:`~lejepa_wm.schema.RunMetrics`, finite numbers only), and without either file it is damaged and run
again. ``spec.json`` records the parameters a run was started with: a finished run with other parameters is an error
(:class:`StaleRunError`), never a silent reuse, and an unfinished one is started
afresh (its checkpoints belong to the old settings). A run may keep checkpoints in its folder so that an
interrupted run continues where it stopped. When every run is done,
``aggregate`` turns the per-run metrics into ``summary.csv`` and figures in
``<out>/<experiment>/<scale>/``, plus ``headline.json``: a list of
:class:`~lejepa_wm.records.HeadlineEntry` records that the report puts beside the
claim (verdicts are computed from the measured numbers, never typed in). The
three are computed first and published together (:func:`publish_results`), so
they always belong to one aggregation.

A failure whose cause lies in the run's inputs (:data:`DETERMINISTIC_ERRORS`)
repeats on every attempt: the sweep driver does not retry it.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection, ContextManager, Mapping, Protocol, runtime_checkable

from lejepa_wm.atomic import Stage, atomic_write_json, publishing, read_json, read_named_json
from lejepa_wm.experiments.training_log import tensorboard_log
from lejepa_wm.machine import run_machine
from lejepa_wm.records import nonfinite_item
from lejepa_wm.schema import Record, RunMetrics, read

__all__ = [
    "CHECKPOINT_FILE", "METRICS_FILE", "SPEC_FILE", "HEADLINE_FILE", "SUMMARY_FILE", "DeterministicRunError",
    "DETERMINISTIC_ERRORS", "RunTakenOver", "RunSpec", "experiment_dir", "Experiment", "logs_evaluations",
    "StaleRunError", "FinishedRun", "read_run",
    "read_metrics", "is_done", "execute_run", "run_compute_seconds", "folder_labels", "publish_results",
    "finished_runs"
]

CHECKPOINT_FILE = "checkpoint.pt"

_RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9_.=+-]+$")
METRICS_FILE = "metrics.json"
SPEC_FILE = "spec.json"
HEADLINE_FILE = "headline.json"
SUMMARY_FILE = "summary.csv"


class DeterministicRunError(Exception):
    """Base of run failures that repeat with the same inputs (a diverging training run): never retried."""


DETERMINISTIC_ERRORS: tuple[type[BaseException], ...] = (DeterministicRunError, ValueError, TypeError, LookupError,
                                                          ArithmeticError, NotImplementedError)
"""Failures of a run that a second attempt with the same spec would repeat (bad values, a bug, divergence)."""


class RunTakenOver(Exception):
    """The run's claim passed to another process while this one executed it: its result is dropped."""


@dataclass(frozen=True)
class RunSpec(Record):
    """One independent training/evaluation run: what to do, and where its results go.

    ``params`` must be JSON-serializable; it is everything ``execute`` needs
    besides the folder and the device (seed included). ``to_dict`` is what ``spec.json`` holds;
    ``from_dict`` reads it back (:class:`~lejepa_wm.schema.Record`).
    """

    experiment: str
    scale: str
    run_id: str
    params: Mapping[str, Any] = field(default_factory=dict)

    _what = "run spec"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not _RUN_ID_PATTERN.match(self.run_id):
            raise ValueError(f"run_id {self.run_id!r} must match {_RUN_ID_PATTERN.pattern}")
        json.dumps(dict(self.params), allow_nan=False)

    def run_dir(self, out: Path) -> Path:
        """Folder of this run below the results root ``out``."""
        return experiment_dir(out, self.experiment, self.scale) / "runs" / self.run_id

    @property
    def labels(self) -> Mapping[str, Any]:
        """The run's coordinates in its experiment's grid (``n``, ``method``, ``seed``, …; none if not recorded)."""
        labels = self.params.get("labels")
        return labels if isinstance(labels, Mapping) else {}


@dataclass(frozen=True)
class FinishedRun:
    """A finished run as read back from its folder (:func:`read_run`): its spec and its metrics, each read once
    into its type. Aggregation, the report and the estimate of a launch's compute take these."""

    spec: RunSpec
    metrics: RunMetrics

    def row(self) -> dict[str, Any]:
        """The run as one row of its experiment's summary: its parameters, its grid labels, its metrics (a later key
        wins)."""
        return {**self.spec.params, **self.spec.labels, **self.metrics}

    def misplaced(self, exp_dir: Path) -> str | None:
        """Why the run does not belong in ``exp_dir`` (its spec names another experiment or scale), or ``None``."""
        where = folder_labels(exp_dir)
        if (self.spec.experiment, self.spec.scale) == (where["experiment"], where["scale"]):
            return None
        return (f"records experiment {self.spec.experiment!r} at scale {self.spec.scale!r}, but lies in "
                f"{where['experiment']}/{where['scale']}/ (copied from elsewhere?)")


def experiment_dir(out: Path, experiment: str, scale: str) -> Path:
    """Folder holding one experiment's runs, summary and figures at one scale."""
    return Path(out) / experiment / scale


@runtime_checkable
class Experiment(Protocol):
    """What an experiment module's ``EXPERIMENT`` object provides."""

    name: str
    description: str

    def load_config(self, scale: str, path: Path | None = None, overrides: Mapping[str, Any] | None = None) -> Any:
        """Validated configuration for ``scale`` (``quick`` or ``full``), optionally from a file."""

    def grid(self, config: Any, scale: str, seed: int = 0) -> list[RunSpec]:
        """All runs of the experiment; ``seed`` offsets every run's seed."""

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict[str, Any]:
        """Do one run (resuming from checkpoints in ``run_dir``) and return its metrics."""

    # Optional: ``execute`` may take a keyword ``on_evaluation`` (an :data:`EvaluationLog`) that receives each
    # row of the training history as it is recorded; only such an experiment can be run with ``--tensorboard``
    # (:func:`logs_evaluations`), and it is passed only when a log was asked for.

    def aggregate(self, exp_dir: Path, config: Any) -> list[Path]:
        """Publish ``summary.csv``, figures and ``headline.json`` from the finished runs as one set
        (:func:`publish_results`); return the files published."""

    # Optional: ``check_environment(device)`` raises (naming the fix) when this machine cannot execute a run,
    # e.g. Reacher's rendering back-end; the driver calls it before any run starts.


def logs_evaluations(experiment: Experiment) -> bool:
    """Whether ``experiment.execute`` takes the optional ``on_evaluation`` log (see :class:`Experiment`)."""
    return "on_evaluation" in inspect.signature(experiment.execute).parameters


class StaleRunError(ValueError):
    """A run folder holds results (or checkpoints) computed with different parameters."""


def _check_stored_spec(spec: RunSpec, out: Path) -> None:
    """Raise :class:`StaleRunError` if the run's folder was started with other parameters.

    Resuming or reusing a run is only sound when it is the same run: a changed
    configuration must never be mixed with results or checkpoints of the old one.
    """
    stored_path = spec.run_dir(out) / SPEC_FILE
    if not stored_path.exists():
        return
    try:
        stored = read_json(stored_path)
    except (ValueError, OSError):
        stored = None
    current = json.loads(json.dumps(spec.to_dict()))
    if not isinstance(stored, dict):
        raise StaleRunError(f"run {spec.run_id!r} in {spec.run_dir(out)} has a damaged {SPEC_FILE}; start over "
                            f"(`lejepa-wm run --restart`) or choose another --out")
    if stored != current:
        old, new = stored.get("params", {}), current["params"]
        old = old if isinstance(old, dict) else {}
        changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k)) or ["experiment/scale"]
        raise StaleRunError(
            f"run {spec.run_id!r} in {spec.run_dir(out)} was started with different settings "
            f"(changed: {', '.join(changed)}); start over (`lejepa-wm run --restart`, "
            f"`lejepa-wm reproduce --fresh`) or choose another --out")


def read_run(run_dir: Path, root: Path | None = None) -> FinishedRun:
    """The finished run in ``run_dir``: its ``spec.json`` as a :class:`RunSpec` and its ``metrics.json`` as
    :class:`~lejepa_wm.schema.RunMetrics`.

    A run without both, or with one that is not readable JSON of its type, is a ``ValueError`` naming the file
    (relative to ``root`` if given), the field and the bad value: aggregation leaves it out and the report counts
    it damaged (the sweep runs it again, or refuses a ``spec.json`` of other settings: :func:`is_done`).
    """
    spec = _read_file(run_dir, SPEC_FILE, root)
    return FinishedRun(read(RunSpec, *spec), _read_metrics_file(run_dir, root))


def _read_file(run_dir: Path, name: str, root: Path | None) -> tuple[Any, str]:
    """The JSON data of the run's file ``name``, and its label (relative to ``root`` if given)."""
    path = Path(run_dir) / name
    label = str(path) if root is None else path.relative_to(root).as_posix()
    return read_named_json(path, label), label


def _read_metrics_file(run_dir: Path, root: Path | None = None) -> RunMetrics:
    """The run's ``metrics.json``, checked as :class:`~lejepa_wm.schema.RunMetrics` and kept as stored (a float
    field may hold an integer)."""
    metrics = _read_file(run_dir, METRICS_FILE, root)
    read(RunMetrics, *metrics)
    return metrics[0]


def read_metrics(spec: RunSpec, out: Path) -> RunMetrics | None:
    """The run's stored metrics, or ``None`` if it has none, they are damaged, or its ``spec.json`` is missing or
    not a JSON object: such a run is not finished, and it is run again. A ``spec.json`` that is an object is
    compared with the run's settings by :func:`is_done`."""
    run_dir = spec.run_dir(out)
    try:
        metrics = _read_metrics_file(run_dir)
        return metrics if isinstance(_read_file(run_dir, SPEC_FILE, None)[0], dict) else None
    except ValueError:
        return None


def is_done(spec: RunSpec, out: Path) -> bool:
    """Whether the run has finished (:func:`read_metrics`) with the same parameters.

    Raises :class:`StaleRunError` if the finished run had other parameters, or a ``spec.json`` that is not this
    run's (hand-edited, or of another version): a finished result is never discarded without a word.
    """
    if read_metrics(spec, out) is None:
        return False
    _check_stored_spec(spec, out)
    return True


def execute_run(experiment: Experiment, spec: RunSpec, out: Path, device: str = "cpu",
                guard: Callable[[], ContextManager[Any]] | None = None,
                keep: Collection[str] = (), log_dir: Path | None = None) -> dict[str, Any]:
    """Execute ``spec`` unless it is done; write ``spec.json`` and then ``metrics.json`` atomically.

    The returned metrics gain ``wall_time_s`` (time of this execution) and
    ``cpu_time_s`` (CPU time of this process in it, all its threads: unlike the
    wall time, it does not grow when other work shares the cores) unless the
    run was already done, in which case the stored metrics are returned. The
    run's checkpoint is deleted only after ``metrics.json`` is durably written,
    so an interruption at any moment loses at most the steps since the last
    checkpoint; stale temporary files of a killed write are removed first.
    Metrics that are not finite, or of the wrong type (:class:`~lejepa_wm.schema.RunMetrics`),
    are a ``ValueError`` naming the key. ``guard()`` is entered around writing
    the metrics and removing the checkpoint (the sweep's check that this
    process still owns the run; it raises :class:`RunTakenOver` to drop the result).
    ``keep`` names files of the run folder that belong to whoever executes it
    (the sweep's claim): they survive when an unfinished run of other settings is cleared.
    ``log_dir`` (``--tensorboard``) receives the run's TensorBoard log in
    ``<log_dir>/<experiment>/<scale>/<run id>`` (:mod:`~lejepa_wm.experiments.training_log`).
    """
    if is_done(spec, out):
        return read_metrics(spec, out)
    run_dir = spec.run_dir(out)
    try:
        _check_stored_spec(spec, out)
    except StaleRunError:  # an unfinished run with other settings: its checkpoints do not apply
        for entry in run_dir.iterdir():
            if entry.name not in keep:
                shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    run_dir.mkdir(parents=True, exist_ok=True)
    for path in run_dir.glob(".*.tmp"):  # left by an atomic write that was killed
        if path.is_file():
            path.unlink(missing_ok=True)
    (run_dir / METRICS_FILE).unlink(missing_ok=True)  # a damaged one: the run starts (or resumes) again
    atomic_write_json(run_dir / SPEC_FILE, spec.to_dict())
    start, cpu_start = time.perf_counter(), time.process_time()
    log_folder = None if log_dir is None else Path(log_dir) / spec.experiment / spec.scale / spec.run_id
    with tensorboard_log(log_folder) as on_evaluation:
        metrics = dict(experiment.execute(spec, run_dir, device, **(
            {} if on_evaluation is None else {"on_evaluation": on_evaluation})))
    metrics.setdefault("wall_time_s", time.perf_counter() - start)
    metrics.setdefault("cpu_time_s", time.process_time() - cpu_start)
    metrics.setdefault("run_id", spec.run_id)
    metrics.setdefault("machine", run_machine(device))
    bad = nonfinite_item(metrics)
    if bad is not None:
        raise ValueError(f"run {spec.run_id!r} produced a metric that is not finite: {bad}; a result must be a "
                         "finite number or null")
    read(RunMetrics, metrics, f"the metrics of run {spec.run_id!r}")
    with guard() if guard is not None else contextlib.nullcontext():
        atomic_write_json(run_dir / METRICS_FILE, metrics)
        (run_dir / CHECKPOINT_FILE).unlink(missing_ok=True)
    return metrics


def run_compute_seconds(metrics: RunMetrics) -> float | None:
    """The compute a finished run took over all its attempts, in seconds (``None`` without ``wall_time_s``).

    ``wall_time_s`` is the time of the execution that finished the run. A run
    resumed from a checkpoint (``resumed_from``: its step) adds the training
    time recorded before it: the ``seconds`` of the last ``history`` row at or
    before ``resumed_from`` (the training loop carries elapsed time across
    resumes; a lower bound when the checkpoint falls between evaluations).
    Work an interrupted attempt did after its last checkpoint was lost and is
    not counted.
    """
    if "wall_time_s" not in metrics:
        return None
    resumed_from = metrics.get("resumed_from")
    before = [row["seconds"] for row in metrics.get("history", ()) if "seconds" in row
              and resumed_from is not None and row["step"] <= resumed_from]
    return metrics["wall_time_s"] + (before[-1] if before else 0.0)


def folder_labels(exp_dir: Path) -> dict[str, str]:
    """The experiment and scale that the folder ``<out>/<experiment>/<scale>`` holds."""
    return {"experiment": Path(exp_dir).parent.name, "scale": Path(exp_dir).name}


def publish_results(exp_dir: Path) -> ContextManager[Stage]:
    """Publish an experiment's summary, figures and headline as one set (:func:`~lejepa_wm.atomic.publishing`),
    labelled with the experiment and scale of its folder: write them into the yielded ``stage.path``."""
    return publishing(exp_dir, folder_labels(exp_dir))


def finished_runs(exp_dir: Path) -> list[FinishedRun]:
    """The finished runs below ``exp_dir``, sorted by run id so that aggregation does not depend on the order in
    which they finished (serial, pool or cluster).

    Damaged runs (:func:`read_run`) are left out: they are not finished and will be run again. A run whose spec
    names another experiment or scale than its folder is a ``ValueError`` naming it.
    """
    runs = []
    for metrics_path in sorted((Path(exp_dir) / "runs").glob(f"*/{METRICS_FILE}")):
        try:
            run = read_run(metrics_path.parent)
        except ValueError:
            continue
        if (why := run.misplaced(exp_dir)) is not None:
            raise ValueError(f"{metrics_path.parent / SPEC_FILE} {why}; move or delete that run")
        runs.append(run)
    return sorted(runs, key=lambda run: run.spec.run_id)
