"""Launching a sweep: skip finished runs, dispatch the others, retry a failure that may pass, aggregate.

The driver is the same for every executor. A finished run (a readable
``metrics.json`` beside its ``spec.json``: :func:`~lejepa_wm.experiments.base.is_done`)
is never started again, so re-launching the same command after a crash starts
only the missing runs (and retries the failed ones). An attempt that fails in a
way another attempt could pass (its worker was killed, a file system error) is
resubmitted once, and the retry is reported; a failure that repeats with the
same inputs (a bad value, a diverging training run:
:data:`~lejepa_wm.experiments.base.DETERMINISTIC_ERRORS`) is not retried. Each
failed run is reported with its one-line cause (``error.json`` holds the
tracebacks) and the other runs carry on. Aggregation calls the
experiment's own ``aggregate`` on the folder, exactly as ``lejepa-wm run``
does, and only once every run of the grid is done; rows are read back sorted
by run id, so the result does not depend on the executor or the finishing order.

A run that another live process owns (its ``running.json`` marker is live, see
:mod:`~lejepa_wm.sweep.state`) is never started: it is reported as running
elsewhere. A stale marker (its owner was killed) is reclaimed, and the launch
says so, one line per run. A run whose ``metrics.json`` is damaged is run again.

Bad input is refused before any run starts: the executor, ``jobs`` (>= 1), the
seed offset (>= 0), a CUDA device that is not there (checked once, here; for
SLURM the nodes are asked for GPUs instead), an ``out`` that is a file or
cannot be written, and what the experiment's ``check_environment`` finds
missing on this machine.

While it runs, a launch holds a launch marker in the experiment's folder
(:func:`~lejepa_wm.sweep.state.launch_claim`), so the folder is not deleted
under it. Interrupting the launch (Ctrl-C, SIGTERM) stops the pool and cancels
SLURM jobs still in flight, releasing their claims; finished runs are kept, and
the next launch starts the others.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from lejepa_wm.atomic import read_json
from lejepa_wm.device import DEVICE_CHOICES, select_device
from lejepa_wm.experiments.base import METRICS_FILE, finished_runs, is_done, logs_evaluations
from lejepa_wm.experiments.training_log import check_tensorboard
from lejepa_wm.progress import progress_bar
from lejepa_wm.records import HeadlineEntry
from lejepa_wm.schema import read
from lejepa_wm.sweep.executors import PoolExecutor, SerialExecutor, SweepExecutor, available_cores
from lejepa_wm.sweep.slurm import SubmititExecutor, load_slurm_settings
from lejepa_wm.sweep.state import SweepPlan, describe_owner, launch_claim, live_marker, plan_sweep, reclaim_stale
from lejepa_wm.sweep.worker import RunTask
from lejepa_wm.validation import check_choice, check_nonnegative_int, check_positive_int, check_writable_dir

__all__ = [
    "EXECUTORS", "MAX_ATTEMPTS", "DEFAULT_OUT", "SweepResult", "check_environment", "check_launch",
    "aggregate_plan", "run_sweep", "format_headline"
]

EXECUTORS = ("serial", "local", "slurm")
MAX_ATTEMPTS = 2
DEFAULT_OUT = Path("results")
_TEMPORARY_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class SweepResult:
    """What one launch did: runs executed now, reused, failed, and whether (into which files) it aggregated.

    ``elsewhere`` holds ``(run_id, owner)`` of runs not started (or whose result
    was dropped) because another live process owns them; ``reclaimed`` holds
    ``(run_id, why)`` of runs whose stale marker was taken over; ``damaged`` the
    runs re-run because their ``metrics.json`` was damaged; ``errors`` the
    one-line cause of each failed run and ``retried`` that of each failed
    attempt that was retried, as ``(run_id, error)``.
    """

    experiment: str
    scale: str
    executor: str
    executed: tuple[str, ...]
    reused: tuple[str, ...]
    failed: tuple[str, ...]
    aggregated: bool
    files: tuple[Path, ...]
    wall_time_s: float
    elsewhere: tuple[tuple[str, str], ...] = ()
    reclaimed: tuple[tuple[str, str], ...] = ()
    damaged: tuple[str, ...] = ()
    errors: tuple[tuple[str, str], ...] = ()
    retried: tuple[tuple[str, str], ...] = ()


def check_environment(plan: SweepPlan, device: str) -> None:
    """The experiment's own check that this machine can execute its runs (if it has one), before any run."""
    check = getattr(plan.experiment, "check_environment", None)
    if check is not None:
        check(device)


def _make_executor(kind: str, plan: SweepPlan, jobs: int | None = None, device: str = "cpu",
                  slurm_config: Path | None = None, slurm_overrides: Mapping[str, Any] | None = None,
                  submitit_cluster: str = "slurm") -> SweepExecutor:
    """Build the executor called ``kind`` (``serial``, ``local`` or ``slurm``) for ``plan``.

    ``jobs`` is the number of concurrent runs of the local pool (default: the
    cores available). For ``slurm``, resources come from
    :func:`~lejepa_wm.sweep.slurm.load_slurm_settings`; ``submitit_cluster="local"``
    runs the submitit path as local subprocesses. ``kind`` and ``jobs`` were checked by :func:`check_launch`.
    """
    if kind == "serial":
        return SerialExecutor()
    if kind == "local":
        return PoolExecutor(available_cores() if jobs is None else jobs)
    settings = load_slurm_settings(slurm_config, slurm_overrides)
    if device == "cuda" and settings.gpus_per_run == 0:
        raise ValueError("device 'cuda' needs gpus_per_run >= 1 on SLURM; got gpus_per_run = 0")
    return SubmititExecutor(plan.exp_dir / "logs", settings, f"lejepa-{plan.name}-{plan.scale}",
                            submitit_cluster)


def check_launch(out: Path, executor: str = "serial", jobs: int | None = None, seed: int = 0,
                 device: str = "cpu") -> Path:
    """Refuse bad launch settings before anything runs; return ``out`` (created if needed).

    ``ValueError`` names a bad executor, ``jobs`` < 1, a negative seed offset or
    an ``out`` that is a file or not writable; ``EnvironmentUnavailable`` a CUDA device
    that this machine lacks (not checked for SLURM, whose nodes get GPUs).
    """
    check_choice(executor, EXECUTORS, "executor")
    check_choice(device, DEVICE_CHOICES, "device")
    if jobs is not None:
        check_positive_int(jobs, "--jobs")
    check_nonnegative_int(seed, "the seed offset (--seed)")
    if device == "cuda" and executor != "slurm":
        select_device(device)
    return check_writable_dir(Path(out), "--out")


def aggregate_plan(plan: SweepPlan) -> tuple[Path, ...]:
    """The experiment's ``aggregate``; a run whose metrics lack a key the aggregation needs is named.

    Temporary files of killed atomic writes in the experiment's folder (not
    below it) older than :data:`_TEMPORARY_TIMEOUT_S` are deleted first: an atomic
    write lasts milliseconds (the run folders are cleaned when each run starts).
    A ``KeyError`` traced to ``metrics.json`` files that lack the key becomes a
    ``ValueError`` naming the first such file (a damaged or older result:
    deleting it makes the next launch run it again); any other error propagates.
    """
    now = time.time()
    for path in plan.exp_dir.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            if path.is_file() and now - path.stat().st_mtime > _TEMPORARY_TIMEOUT_S:
                path.unlink()
    try:
        return tuple(plan.experiment.aggregate(plan.exp_dir, plan.config))
    except KeyError as exc:
        key = exc.args[0] if exc.args else None
        lacking = [run.spec.run_dir(plan.out) / METRICS_FILE for run in finished_runs(plan.exp_dir)
                   if key not in run.row()]
        if not lacking:
            raise
        more = f" (and {len(lacking) - 1} other run(s))" if len(lacking) > 1 else ""
        raise ValueError(f"cannot aggregate {plan.name}: {lacking[0]}{more} lacks the key {key!r} (a damaged "
                         f"or older result); delete that metrics.json and launch again to re-run the run") from None


def run_sweep(name: str, scale: str = "quick", out: Path = DEFAULT_OUT, executor: str = "local",
              jobs: int | None = None, seed: int = 0, device: str = "cpu",
              config_path: Path | None = None, overrides: Mapping[str, Any] | None = None,
              slurm_config: Path | None = None, slurm_overrides: Mapping[str, Any] | None = None,
              submitit_cluster: str = "slurm", progress: bool | None = None,
              tensorboard: Path | None = None) -> SweepResult:
    """Launch (or resume) the sweep of experiment ``name`` and aggregate it once every run is done.

    ``tensorboard`` names a folder for a TensorBoard log of every run executed
    (:mod:`~lejepa_wm.experiments.training_log`); without the package it is refused before any run.

    A failed attempt is resubmitted until :data:`MAX_ATTEMPTS` when its outcome
    says a retry may pass; each run's final outcome is counted once, as soon as it is known.
    """
    check_launch(out, executor, jobs, seed, device)
    plan = plan_sweep(name, scale, out, seed, config_path, overrides)
    if tensorboard is not None:
        if not logs_evaluations(plan.experiment):
            raise ValueError(f"--tensorboard: experiment {name!r} does not log its training (its execute takes "
                             "no on_evaluation); leave out --tensorboard")
        check_tensorboard()
        check_writable_dir(tensorboard, "--tensorboard")
    start = time.perf_counter()
    reused = tuple(spec.run_id for spec in plan.specs if is_done(spec, plan.out))
    todo = [spec for spec in plan.specs if spec.run_id not in reused]
    if todo:
        check_environment(plan, device)
    elsewhere: dict[str, str] = {}
    reclaimed: dict[str, str] = {}
    errors: dict[str, str] = {}
    retried: list[tuple[str, str]] = []
    executed: list[str] = []
    with launch_claim(plan.exp_dir):  # its marker's write creates the folder
        startable = []
        for spec in todo:
            if (marker := live_marker(spec.run_dir(plan.out))) is not None:
                elsewhere[spec.run_id] = describe_owner(marker)
                continue
            if (reason := reclaim_stale(spec.run_dir(plan.out))) is not None:
                reclaimed[spec.run_id] = reason
            startable.append(spec)
        damaged = tuple(sorted(spec.run_id for spec in startable if (spec.run_dir(plan.out) / METRICS_FILE).exists()))
        if startable:
            runner = _make_executor(executor, plan, jobs, device, slurm_config, slurm_overrides, submitit_cluster)
            queue = deque(RunTask(plan.module, spec.to_dict(), str(plan.out), device, runner.threads_per_run,
                                  log_dir=None if tensorboard is None else str(tensorboard)) for spec in startable)
            bar = progress_bar(len(queue), f"{name} ({scale}, {executor})", "run", progress)
            # closing the outcomes early (an interruption) stops the attempts in flight
            with contextlib.closing(bar), contextlib.closing(runner.outcomes(queue)) as outcomes:
                for task, outcome in outcomes:
                    if outcome.reclaimed is not None:
                        reclaimed.setdefault(task.run_id, outcome.reclaimed)
                    if outcome.elsewhere is not None:
                        elsewhere[task.run_id] = outcome.elsewhere
                    elif outcome.ok:
                        executed.append(task.run_id)
                    elif outcome.retry and task.attempt < MAX_ATTEMPTS:
                        retried.append((task.run_id, outcome.error or "failed"))
                        queue.append(replace(task, attempt=task.attempt + 1))
                        continue
                    else:
                        errors[task.run_id] = outcome.error or "failed without an error message"
                        bar.set_postfix(failed=len(errors))
                    bar.update(1)
        complete = all(is_done(spec, plan.out) for spec in plan.specs)
        files = aggregate_plan(plan) if complete else ()
    return SweepResult(name, scale, executor, tuple(sorted(executed)), reused, tuple(sorted(errors)), complete,
                       files, time.perf_counter() - start, tuple(sorted(elsewhere.items())),
                       tuple(sorted(reclaimed.items())), damaged, tuple(sorted(errors.items())), tuple(retried))


def format_headline(path: Path) -> str:
    """The headline results in ``path``: verdict, the quantity and its value over the seeds, the prediction,
    and the supporting numbers (which include the raw observation's baseline)."""
    lines = [f"headline ({path.parent.name} scale; test sample):"]
    for entry in read(list[HeadlineEntry], read_json(path), path.name):
        error = "" if entry.standard_error is None else f" ± {entry.standard_error:.3g}"
        value = "none" if entry.value is None else f"{entry.value:.4g}{error}"
        prediction = entry.requirement if entry.bound is None else (
            f"predicted {entry.bound.describe()}" + (f", provided that {entry.precondition}" if entry.precondition
                                                      else ""))
        lines.append(f"  [{entry.verdict}] {entry.name}: {entry.quantity} = {value} (seeds "
                     f"{', '.join(map(str, entry.seeds))}); {prediction}")
        lines.append(f"      {entry.measured}")
    return "\n".join(lines)
