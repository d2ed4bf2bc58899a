"""The function every executor runs: one run of a sweep, in whatever process or machine it lands on.

:func:`run_task` is importable by module path and takes only plain data, so it
can be pickled for a process pool or a SLURM job. It executes the run through
:func:`~lejepa_wm.experiments.base.execute_run` (the same unit as
``lejepa-wm run``), keeps ``running.json`` while it works, and turns any
exception into a failed :class:`RunOutcome` whose traceback is appended to the
run's ``error.json``. Failures the worker cannot report itself (its process was
killed, the node was preempted) are recorded by the launching process with
:func:`outcome_from_exception`.
"""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from lejepa_wm.experiments.base import RunSpec, execute_run
from lejepa_wm.sweep.state import clear_failure, clear_running, mark_running, record_failure

THREAD_ENV_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                   "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


@dataclass(frozen=True)
class RunTask:
    """One attempt at one run: the experiment's module path, the spec as a dict, and where to run.

    ``threads`` is the number of CPU threads the run may use (``None``: leave the
    process's setting alone); ``attempt`` counts from 1.
    """

    module: str
    spec: dict[str, Any] = field(hash=False)
    out: str
    device: str = "cpu"
    threads: int | None = None
    attempt: int = 1

    @property
    def run_id(self) -> str:
        """The run's id (names its folder)."""
        return str(self.spec["run_id"])

    def run_dir(self) -> Path:
        """The run's folder."""
        return RunSpec.from_dict(self.spec).run_dir(Path(self.out))


@dataclass(frozen=True)
class RunOutcome:
    """How one attempt ended: ``ok``, or the error's one-line summary."""

    run_id: str
    ok: bool
    error: str | None = None


def pin_threads(threads: int) -> None:
    """Limit this process to ``threads`` CPU threads.

    Sets the OpenMP/MKL/OpenBLAS variables (read by numpy, scipy and torch when
    they start their thread pools) and, if torch is already imported, its
    intra-op thread count.
    """
    for name in THREAD_ENV_VARS:
        os.environ[name] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def run_task(task: RunTask) -> RunOutcome:
    """Execute one attempt of one run (skipped if it is already done) and report how it ended."""
    if task.threads is not None:
        pin_threads(task.threads)
    spec = RunSpec.from_dict(task.spec)
    run_dir = task.run_dir()
    run_dir.mkdir(parents=True, exist_ok=True)
    mark_running(run_dir, task.attempt)
    try:
        experiment = import_module(task.module).EXPERIMENT
        execute_run(experiment, spec, Path(task.out), task.device)
    except Exception as exc:  # noqa: BLE001 - any failure of a run is reported, never propagated
        error = f"{type(exc).__name__}: {exc}"
        record_failure(run_dir, spec.run_id, task.attempt, error, traceback.format_exc())
        return RunOutcome(spec.run_id, False, error)
    finally:
        clear_running(run_dir)
    clear_failure(run_dir)
    return RunOutcome(spec.run_id, True)


def outcome_from_exception(task: RunTask, exc: BaseException) -> RunOutcome:
    """Record a failure that happened outside :func:`run_task` (a killed worker or job)."""
    run_dir = task.run_dir()
    run_dir.mkdir(parents=True, exist_ok=True)
    error = f"{type(exc).__name__}: {exc}"
    text = "".join(traceback.format_exception(exc))
    record_failure(run_dir, task.run_id, task.attempt, error, text)
    clear_running(run_dir)
    return RunOutcome(task.run_id, False, error)
