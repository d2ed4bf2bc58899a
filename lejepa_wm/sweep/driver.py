"""Launching a sweep: skip finished runs, dispatch the others, retry each failure once, aggregate.

The driver is the same for every executor. A run whose ``metrics.json`` exists
is never started again, so re-launching the same command after a crash starts
only the missing runs (and retries the failed ones). Each attempt that fails is
resubmitted once; a run that fails twice is reported (its ``error.json`` holds
both tracebacks) and the other runs carry on. Aggregation calls the
experiment's own ``aggregate`` on the folder, exactly as ``lejepa-wm run``
does, and only once every run of the grid is done; rows are read back sorted
by run id, so the result does not depend on the executor or the finishing order.

Interrupting the launch (Ctrl-C) stops the pool and cancels SLURM jobs still in
flight; finished runs are kept, and the next launch starts the others.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from tqdm import tqdm

from lejepa_wm.device import DEVICE_CHOICES
from lejepa_wm.experiments.base import is_done
from lejepa_wm.sweep.executors import PoolExecutor, SerialExecutor, SweepExecutor, available_cores
from lejepa_wm.sweep.state import SweepPlan, plan_sweep
from lejepa_wm.sweep.worker import RunOutcome, RunTask
from lejepa_wm.validation import check_choice, check_positive_int

EXECUTORS = ("serial", "local", "slurm")
MAX_ATTEMPTS = 2
DEFAULT_OUT = Path("results")


@dataclass(frozen=True)
class SweepResult:
    """What one launch did: runs executed now, reused, failed, and whether (into which files) it aggregated."""

    experiment: str
    scale: str
    executor: str
    executed: tuple[str, ...]
    reused: tuple[str, ...]
    failed: tuple[str, ...]
    aggregated: bool
    files: tuple[Path, ...]
    wall_time_s: float


def make_executor(kind: str, plan: SweepPlan, jobs: int | None = None, device: str = "cpu",
                  slurm_config: Path | None = None, slurm_overrides: Mapping[str, Any] | None = None,
                  submitit_cluster: str = "slurm") -> SweepExecutor:
    """Build the executor called ``kind`` (``serial``, ``local`` or ``slurm``) for ``plan``.

    ``jobs`` is the number of concurrent runs of the local pool (default: the
    cores available). For ``slurm``, resources come from
    :func:`~lejepa_wm.sweep.slurm.load_slurm_settings`; ``submitit_cluster="local"``
    runs the submitit path as local subprocesses.
    """
    check_choice(kind, EXECUTORS, "executor")
    if jobs is not None:
        check_positive_int(jobs, "jobs")
    if kind == "serial":
        return SerialExecutor()
    if kind == "local":
        return PoolExecutor(available_cores() if jobs is None else jobs)
    from lejepa_wm.sweep.slurm import SubmititExecutor, load_slurm_settings

    settings = load_slurm_settings(slurm_config, slurm_overrides)
    if device == "cuda" and settings.gpus_per_run == 0:
        raise ValueError("device 'cuda' needs gpus_per_run >= 1 on SLURM; got gpus_per_run = 0")
    return SubmititExecutor(plan.exp_dir / "logs", settings, f"lejepa-{plan.name}-{plan.scale}",
                            submitit_cluster)


def execute_with_retry(executor: SweepExecutor, tasks: list[RunTask],
                       on_end: Callable[[RunTask, RunOutcome], None]) -> dict[str, RunOutcome]:
    """Run ``tasks`` on ``executor``; resubmit each failed attempt until ``MAX_ATTEMPTS``; return final outcomes.

    ``on_end`` is called once per run, with its final outcome, as soon as it is known.
    """
    final: dict[str, RunOutcome] = {}
    executor.submit(tasks)
    while executor.in_flight():
        for task, outcome in executor.wait_some():
            if not outcome.ok and task.attempt < MAX_ATTEMPTS:
                executor.submit([replace(task, attempt=task.attempt + 1)])
                continue
            final[task.run_id] = outcome
            on_end(task, outcome)
    return final


def run_sweep(name: str, scale: str = "quick", out: Path = DEFAULT_OUT, executor: str = "local",
              jobs: int | None = None, seed: int = 0, device: str = "cpu",
              config_path: Path | None = None, overrides: Mapping[str, Any] | None = None,
              slurm_config: Path | None = None, slurm_overrides: Mapping[str, Any] | None = None,
              submitit_cluster: str = "slurm", progress: bool | None = None) -> SweepResult:
    """Launch (or resume) the sweep of experiment ``name`` and aggregate it once every run is done."""
    check_choice(executor, EXECUTORS, "executor")
    check_choice(device, DEVICE_CHOICES, "device")
    if jobs is not None:
        check_positive_int(jobs, "jobs")
    plan = plan_sweep(name, scale, out, seed, config_path, overrides)
    progress = sys.stderr.isatty() if progress is None else progress
    start = time.perf_counter()
    reused = tuple(spec.run_id for spec in plan.specs if is_done(spec, plan.out))
    todo = [spec for spec in plan.specs if not is_done(spec, plan.out)]
    final: dict[str, RunOutcome] = {}
    if todo:
        runner = make_executor(executor, plan, jobs, device, slurm_config, slurm_overrides, submitit_cluster)
        tasks = [RunTask(plan.module, spec.to_dict(), str(plan.out), device, runner.threads_per_run)
                 for spec in todo]
        bar = tqdm(total=len(tasks), desc=f"{name} ({scale}, {executor})", unit="run", disable=not progress)
        failures: list[str] = []

        def on_end(task: RunTask, outcome: RunOutcome) -> None:
            if not outcome.ok:
                failures.append(task.run_id)
                bar.set_postfix(failed=len(failures))
            bar.update(1)

        try:
            final = execute_with_retry(runner, tasks, on_end)
        finally:
            runner.close()
            bar.close()
    executed = tuple(sorted(run_id for run_id, outcome in final.items() if outcome.ok))
    failed = tuple(sorted(run_id for run_id, outcome in final.items() if not outcome.ok))
    complete = all(is_done(spec, plan.out) for spec in plan.specs)
    files = tuple(plan.experiment.aggregate(plan.exp_dir, plan.config)) if complete else ()
    return SweepResult(name, scale, executor, executed, reused, failed, complete, files,
                       time.perf_counter() - start)


def print_result(result: SweepResult, out: Path) -> int:
    """Print what a launch did; return the exit status (0, or 3 if a run failed)."""
    if result.reused:
        print(f"reused {len(result.reused)} finished run(s) from {out}")
    print(f"executed {len(result.executed)} run(s) in {result.wall_time_s:.1f} s with executor {result.executor}")
    for path in result.files:
        print(f"wrote {path}")
    if result.failed:
        print(f"{len(result.failed)} run(s) failed twice (tracebacks in their error.json): "
              f"{', '.join(result.failed)}; launch the same command again to retry them")
        return 3
    return 0


def aggregate_sweep(name: str, scale: str = "quick", out: Path = DEFAULT_OUT, seed: int = 0,
                    config_path: Path | None = None,
                    overrides: Mapping[str, Any] | None = None) -> tuple[list[Path], int, int]:
    """Aggregate whatever runs have finished; return the files written, runs finished and runs in the grid.

    ``ValueError`` if no run has finished yet.
    """
    plan = plan_sweep(name, scale, out, seed, config_path, overrides)
    finished = sum(is_done(spec, plan.out) for spec in plan.specs)
    if finished == 0:
        raise ValueError(f"no finished run of {name!r} ({scale}) below {plan.exp_dir}; nothing to aggregate")
    files = list(plan.experiment.aggregate(plan.exp_dir, plan.config))
    return files, finished, len(plan.specs)
