"""Where a sweep's runs execute: in this process, in a local process pool, or (see ``slurm.py``) on SLURM.

Every executor has the same small interface, :class:`SweepExecutor`: ``submit``
hands it attempts, ``wait_some`` blocks until at least one has ended and returns
the ended ones with their :class:`~lejepa_wm.sweep.worker.RunOutcome`, and
``in_flight`` counts the attempts held in ``_pending`` that have not been
returned yet. Retries and bookkeeping live in the driver, so they behave the
same everywhere.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from collections import deque
from typing import Any, Iterable, Sequence

from lejepa_wm.machine import usable_cores as available_cores
from lejepa_wm.sweep.state import reclaim_stale
from lejepa_wm.sweep.worker import RunOutcome, RunTask, init_pool_worker, outcome_from_exception, run_task


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

    def _outcomes(self, ended: Iterable[Any]) -> list[tuple[RunTask, RunOutcome]]:
        """Pop the ``ended`` futures or jobs from ``_pending``: each task with its outcome, or with the failure
        that ended it outside :func:`~lejepa_wm.sweep.worker.run_task` (a dead worker, a killed job)."""
        outcomes = []
        for handle in ended:
            task = self._pending.pop(handle)
            try:
                outcome = handle.result()
            except Exception as exc:  # noqa: BLE001 - killed, preempted past requeueing, unpicklable result
                outcome = outcome_from_exception(task, exc)
            outcomes.append((task, outcome))
        return outcomes

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

    def close(self) -> None:
        self._pending.clear()


class PoolExecutor(SweepExecutor):
    """A ``concurrent.futures`` process pool of ``jobs`` spawned workers, each pinned to its thread share.

    Workers are started with the ``spawn`` method (a fresh interpreter, no state
    inherited from the launching process) and set up by their initializer
    (:func:`~lejepa_wm.sweep.worker.init_pool_worker`): pinned, so torch, numpy
    and scipy read the thread limit when they are first imported, and bound to
    this process, so they die with it (``kill -9`` of the launcher included) and
    never start a queued run without it. If a worker dies (killed, out of
    memory), the pool is broken and every attempt in flight fails; the next
    ``submit`` finds it broken and starts a fresh pool. :meth:`close` with
    attempts still in flight (the launch was interrupted) stops the workers and
    removes their markers.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.threads_per_run = threads_per_run(jobs, available_cores())
        self._pool: cf.ProcessPoolExecutor | None = None
        self._pending: dict[cf.Future[RunOutcome], RunTask] = {}

    def _live_pool(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = cf.ProcessPoolExecutor(
                max_workers=self.jobs, mp_context=multiprocessing.get_context("spawn"),
                initializer=init_pool_worker, initargs=(self.threads_per_run, os.getpid()))
        return self._pool

    def submit(self, tasks: Sequence[RunTask]) -> None:
        for task in tasks:
            try:
                future = self._live_pool().submit(run_task, task)
            except cf.BrokenExecutor:  # a worker died: this pool takes no new work, so start a fresh one
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
                future = self._live_pool().submit(run_task, task)
            self._pending[future] = task

    def wait_some(self) -> list[tuple[RunTask, RunOutcome]]:
        return self._outcomes(cf.wait(self._pending, return_when=cf.FIRST_COMPLETED)[0])

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None and self._pending:  # interrupted: stop the runs in flight now
            processes = list((getattr(pool, "_processes", None) or {}).values())
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(timeout=10.0)
            pool.shutdown(wait=False, cancel_futures=True)
            for task in self._pending.values():
                reclaim_stale(task.run_dir())
        elif pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        self._pending.clear()
