"""The function every executor runs: one run of a sweep, in whatever process or machine it lands on.

:func:`run_task` is importable by module path and takes only plain data, so it
can be pickled for a process pool or a SLURM job. It claims the run (its
``running.json`` marker, see :mod:`~lejepa_wm.sweep.state`; a run whose owner
is alive elsewhere is not started), keeps the marker's heartbeat fresh while it
executes the run through :func:`~lejepa_wm.experiments.base.execute_run` (the
same unit as ``lejepa-wm run``), commits its result only while it still owns
the run (:func:`~lejepa_wm.sweep.state.committing`; a run taken over while this
process was suspended drops its result), and turns any exception into a failed
:class:`RunOutcome` whose traceback is appended to the run's ``error.json``; a
failure that repeats with the same inputs
(:data:`~lejepa_wm.experiments.base.DETERMINISTIC_ERRORS`) is marked as not worth
retrying. Failures the worker cannot report itself (its process was killed, the
node was preempted) are recorded by the launching process with
:func:`outcome_from_exception`.

Pool workers die with the process that launched them
(:func:`init_pool_worker`): on Linux the kernel sends them ``SIGKILL`` when
their parent dies (``PR_SET_PDEATHSIG``), and everywhere a daemon thread
polls the parent's process id; a worker whose parent is gone never starts a
queued run.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from lejepa_wm.experiments.base import DETERMINISTIC_ERRORS, RunSpec, RunTakenOver, execute_run
from lejepa_wm.sweep.state import (ERROR_FILE, LOCK_FILE, RUNNING_FILE, RunOwnedElsewhere, claim_run, committing,
                                   describe_owner, heartbeat, owns, record_failure, release_run, remove_marker,
                                   stale_reason)

__all__ = [
    "PR_SET_PDEATHSIG", "RunTask", "RunOutcome", "pin_threads", "set_parent_death_signal", "init_pool_worker",
    "error_line", "run_task", "outcome_from_exception"
]

_THREAD_ENV_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                   "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_PARENT_POLL_S = 0.5
_EXIT_ORPHANED = 70  # a pool worker that found its parent gone

_parent_pid: int | None = None  # set in pool workers only: the launching process


@dataclass(frozen=True)
class RunTask:
    """One attempt at one run: the experiment's module path, the spec as a dict, and where to run.

    ``threads`` is the number of CPU threads the run may use (``None``: leave the
    process's setting alone); ``attempt`` counts from 1; ``log_dir`` is the
    ``--tensorboard`` folder (``None``: no TensorBoard log).
    """

    module: str
    spec: dict[str, Any] = field(hash=False)
    out: str
    device: str = "cpu"
    threads: int | None = None
    attempt: int = 1
    log_dir: str | None = None

    @property
    def run_id(self) -> str:
        """The run's id (names its folder)."""
        return str(self.spec["run_id"])

    def run_dir(self) -> Path:
        """The run's folder."""
        return RunSpec.from_dict(self.spec).run_dir(Path(self.out))


@dataclass(frozen=True)
class RunOutcome:
    """How one attempt ended (the task it belongs to names the run): ``ok``, or the error's one-line summary.

    ``elsewhere`` names the live owner of a run that was not started, or whose
    result was dropped, because another process owns it (not a failure; never
    retried); ``reclaimed`` says why a stale marker of the run was taken over;
    ``retry`` is false for a failure that another attempt would repeat.
    """

    ok: bool
    error: str | None = None
    elsewhere: str | None = None
    reclaimed: str | None = None
    retry: bool = True


def pin_threads(threads: int) -> None:
    """Limit this process to ``threads`` CPU threads.

    Sets the OpenMP/MKL/OpenBLAS variables (read by numpy, scipy and torch when
    they start their thread pools) and, if torch is already imported, its
    intra-op thread count.
    """
    os.environ.update(dict.fromkeys(_THREAD_ENV_VARS, str(threads)))
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask Linux to send ``sig`` to this process when its parent dies; ``False`` where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return int(ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _parent_gone() -> bool:
    """In a pool worker: whether the process that launched the pool has died (this one was re-parented)."""
    return _parent_pid is not None and os.getppid() != _parent_pid


def _watch_parent() -> None:
    """Exit this process as soon as its parent is gone (the portable fallback of the parent-death signal)."""
    while not _parent_gone():
        time.sleep(_PARENT_POLL_S)
    os._exit(_EXIT_ORPHANED)


def init_pool_worker(threads: int, parent_pid: int) -> None:
    """Initializer of a pool worker: die with ``parent_pid``, leave Ctrl-C to it, then pin the thread count."""
    global _parent_pid
    _parent_pid = parent_pid
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the launcher's to handle: it stops the pool
    set_parent_death_signal()
    # the watchdog also ends a worker whose parent died before the signal was armed
    threading.Thread(target=_watch_parent, name="parent watchdog", daemon=True).start()
    pin_threads(threads)


def error_line(exc: BaseException) -> str:
    """The one-line summary of a failure: ``TypeName: message``."""
    return f"{type(exc).__name__}: {exc}"


def run_task(task: RunTask) -> RunOutcome:
    """Execute one attempt of one run (skipped if it is already done) and report how it ended."""
    if _parent_gone():  # never start a queued run for a launcher that no longer exists
        os._exit(_EXIT_ORPHANED)
    if task.threads is not None:
        pin_threads(task.threads)
    spec = RunSpec.from_dict(task.spec)
    run_dir = task.run_dir()
    try:  # claiming writes the marker, which creates the run's folder
        marker, reclaimed = claim_run(run_dir, task.attempt)
    except RunOwnedElsewhere as exc:
        return RunOutcome(False, str(exc), elsewhere=describe_owner(exc.marker))
    try:
        with heartbeat(run_dir, marker):
            execute_run(import_module(task.module).EXPERIMENT, spec, Path(task.out), task.device,
                        guard=lambda: committing(run_dir, marker), keep=(RUNNING_FILE, LOCK_FILE),
                        log_dir=None if task.log_dir is None else Path(task.log_dir))
    except RunTakenOver as exc:
        return RunOutcome(False, str(exc), elsewhere=str(exc), reclaimed=reclaimed)
    except Exception as exc:  # noqa: BLE001 - any failure of a run is reported, never propagated
        error = error_line(exc)
        if owns(run_dir, marker):  # a run taken over meanwhile is its new owner's to record
            record_failure(run_dir, spec.run_id, task.attempt, error, traceback.format_exc())
        return RunOutcome(False, error, reclaimed=reclaimed, retry=not isinstance(exc, DETERMINISTIC_ERRORS))
    finally:
        release_run(run_dir, marker)
    (run_dir / ERROR_FILE).unlink(missing_ok=True)
    return RunOutcome(True, reclaimed=reclaimed)


def outcome_from_exception(task: RunTask, exc: BaseException) -> RunOutcome:
    """Record a failure that happened outside :func:`run_task` (a killed worker or job); it may be retried.

    The run's marker is removed if it is stale or belongs to this attempt (whose
    process is known to have ended), never a live marker of another launch.
    """
    run_dir = task.run_dir()
    error = error_line(exc)
    record_failure(run_dir, task.run_id, task.attempt, error, "".join(traceback.format_exception(exc)))
    # a lock held long elsewhere leaves the marker: it turns stale once its process is gone, and is reclaimed
    remove_marker(run_dir, lambda marker: stale_reason(marker) is not None or marker.get("attempt") == task.attempt)
    return RunOutcome(False, error)
