"""Where a sweep's runs execute: in this process, in a local process pool, or (see ``slurm.py``) on SLURM.

Every executor has the same small interface, :class:`SweepExecutor`: ``submit``
hands it attempts, ``wait_some`` blocks until at least one has ended and returns
the ended ones with their :class:`~lejepa_wm.sweep.worker.RunOutcome`, and
``in_flight`` counts the attempts submitted that have not been returned yet.
Retries and bookkeeping live in the driver, so they behave the same everywhere.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.process import BaseProcess
from typing import Any, Sequence

from lejepa_wm.machine import usable_cores as available_cores
from lejepa_wm.sweep.state import reclaim_stale
from lejepa_wm.sweep.worker import RunOutcome, RunTask, init_pool_worker, outcome_from_exception, run_task

__all__ = ["available_cores", "SweepExecutor", "threads_per_run", "SerialExecutor", "WorkerDied", "PoolExecutor"]


class SweepExecutor:
    """What the sweep driver needs from an executor (the base of every executor)."""

    threads_per_run: int | None
    _pending: Any  # the attempts submitted and not yet returned by wait_some

    def submit(self, tasks: Sequence[RunTask]) -> None:
        """Start (or queue) these attempts."""

    def in_flight(self) -> int:
        """Number of submitted attempts that have not been returned by :meth:`wait_some`."""
        return len(self._pending)

    def wait_some(self) -> list[tuple[RunTask, RunOutcome]]:
        """Block until at least one attempt has ended; return every ended one (requires ``in_flight() > 0``)."""

    def close(self) -> None:
        """Release workers; attempts still in flight are stopped (their finished runs are kept)."""


def threads_per_run(jobs: int, cores: int) -> int:
    """Each of ``jobs`` concurrent runs gets an equal share of ``cores`` threads (at least one; both are >= 1)."""
    return max(1, cores // jobs)


class SerialExecutor(SweepExecutor):
    """Runs each attempt in this process, one at a time, when the driver waits for it."""

    threads_per_run = None

    def __init__(self) -> None:
        self._pending: deque[RunTask] = deque()

    def submit(self, tasks: Sequence[RunTask]) -> None:
        self._pending.extend(tasks)

    def wait_some(self) -> list[tuple[RunTask, RunOutcome]]:
        task = self._pending.popleft()
        return [(task, run_task(task))]


def _ended(process: BaseProcess) -> str:
    """How a worker process ended, in words."""
    code = process.exitcode
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
        return f"was killed by signal {-code}"
    return f"exited with status {code}"


class WorkerDied(RuntimeError):
    """The worker process executing an attempt ended before it reported the outcome."""


class PoolExecutor(SweepExecutor):
    """``jobs`` spawned worker processes, each executing one attempt at a time and independent of the others.

    Each worker is a :class:`concurrent.futures.ProcessPoolExecutor` of one
    process, started with the ``spawn`` method (a fresh interpreter, no state
    inherited from the launching process), only as many as there are attempts
    to run, and set up by :func:`~lejepa_wm.sweep.worker.init_pool_worker`:
    pinned to their thread share, so torch, numpy and scipy read the thread
    limit when they are first imported, and bound to this process, so they die
    with it (``kill -9`` of the launcher included) and never start a queued run
    without it. A pool of one breaks alone, so a worker that dies (killed, out
    of memory) fails only the attempt it was executing — its neighbours carry
    on — and a fresh worker takes its place. :meth:`close` with attempts still
    in flight (the launch was interrupted) stops the workers and removes their
    markers.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.threads_per_run = threads_per_run(jobs, available_cores())
        self._queue: deque[RunTask] = deque()
        self._idle: list[ProcessPoolExecutor] = []
        # each attempt executing: its future, with the task, its worker and the worker's process
        self._pending: dict[Future[RunOutcome], tuple[RunTask, ProcessPoolExecutor, BaseProcess]] = {}

    def _dispatch(self) -> None:
        """Hand queued attempts to idle workers, starting workers up to ``jobs``."""
        while self._queue and len(self._pending) < self.jobs:
            worker = self._idle.pop() if self._idle else ProcessPoolExecutor(
                1, multiprocessing.get_context("spawn"), initializer=init_pool_worker,
                initargs=(self.threads_per_run, os.getpid()))
            try:
                future = worker.submit(run_task, self._queue[0])
            except BrokenProcessPool:  # its process died while idle: a fresh worker takes its place
                worker.shutdown(wait=True)
                continue
            process = next(iter(worker._processes.values()))  # the pool's one process
            self._pending[future] = (self._queue.popleft(), worker, process)

    def submit(self, tasks: Sequence[RunTask]) -> None:
        self._queue.extend(tasks)
        self._dispatch()

    def in_flight(self) -> int:
        return len(self._pending) + len(self._queue)

    def wait_some(self) -> list[tuple[RunTask, RunOutcome]]:
        ended = []
        for future in wait(self._pending, return_when=FIRST_COMPLETED).done:
            task, worker, process = self._pending.pop(future)
            try:
                outcome = future.result()
            except BrokenProcessPool:  # the worker died before it could report: only its attempt failed
                worker.shutdown(wait=True)  # its process is reaped: its exit status is known
                outcome = outcome_from_exception(task, WorkerDied(
                    f"the worker process executing run {task.run_id} (pid {process.pid}) {_ended(process)}"))
            else:
                self._idle.append(worker)
            ended.append((task, outcome))
        self._dispatch()
        return ended

    def close(self) -> None:
        interrupted = list(self._pending.values())
        for _, _, process in interrupted:
            process.terminate()
        for _, _, process in interrupted:
            process.join(timeout=10.0)
            if process.exitcode is None:
                process.kill()
        for worker in [*self._idle, *(worker for _, worker, _ in interrupted)]:
            worker.shutdown(wait=True, cancel_futures=True)
        for task, _, _ in interrupted:  # their processes are gone, so their markers are stale
            reclaim_stale(task.run_dir())
