"""Where a sweep's runs execute: in this process, in a local process pool, or (see ``slurm.py``) on SLURM.

Every executor has the same small interface, :class:`SweepExecutor`: ``submit``
hands it attempts, ``wait_some`` blocks until at least one has ended and returns
the ended ones with their :class:`~lejepa_wm.sweep.worker.RunOutcome`, and
``in_flight`` counts the attempts held in ``_pending`` that have not been
returned yet. Retries and bookkeeping live in the driver, so they behave the
same everywhere.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Iterable, Sequence

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


def _serve(connection: Connection, threads: int, parent_pid: int) -> None:
    """A pool worker's life: set up (:func:`~lejepa_wm.sweep.worker.init_pool_worker`), then run each task it is
    sent and send back its outcome, until it is sent ``None`` or its launcher goes away."""
    init_pool_worker(threads, parent_pid)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        connection.send(run_task(task))


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


@dataclass(eq=False)
class _Worker:
    """One worker process, the launcher's end of its pipe, and the attempt it is executing (``None``: idle)."""

    process: BaseProcess
    connection: Connection
    task: RunTask | None = None


class PoolExecutor(SweepExecutor):
    """``jobs`` spawned worker processes, each executing one attempt at a time and independent of the others.

    Workers are started with the ``spawn`` method (a fresh interpreter, no state
    inherited from the launching process), only as many as there are attempts
    to run, and set up by :func:`~lejepa_wm.sweep.worker.init_pool_worker`:
    pinned to their thread share, so torch, numpy and scipy read the thread
    limit when they are first imported, and bound to this process, so they die
    with it (``kill -9`` of the launcher included) and never start a queued run
    without it. Each worker talks to the launcher through its own pipe, so a
    worker that dies (killed, out of memory) fails only the attempt it was
    executing — its neighbours carry on — and a fresh worker takes its place.
    :meth:`close` with attempts still in flight (the launch was interrupted)
    stops the workers and removes their markers.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.threads_per_run = threads_per_run(jobs, available_cores())
        self._context = multiprocessing.get_context("spawn")
        self._queue: deque[RunTask] = deque()
        self._workers: list[_Worker] = []
        self._pending: dict[int, RunTask] = {}  # id of each attempt submitted and not yet returned

    def _start_worker(self) -> _Worker:
        mine, theirs = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(theirs, self.threads_per_run, os.getpid()),
                                        name="lejepa-wm worker")
        process.start()
        theirs.close()
        worker = _Worker(process, mine)
        self._workers.append(worker)
        return worker

    def _dispatch(self) -> None:
        """Hand queued attempts to idle workers, starting workers up to ``jobs``."""
        while self._queue:
            idle = next((worker for worker in self._workers if worker.task is None), None)
            if idle is None and len(self._workers) < self.jobs:
                idle = self._start_worker()
            if idle is None:
                return
            task = self._queue.popleft()
            try:
                idle.connection.send(task)
            except (OSError, ValueError):  # it died while idle: replace it and try again
                self._retire(idle)
                self._queue.appendleft(task)
                continue
            idle.task = task

    def _retire(self, worker: _Worker) -> None:
        worker.connection.close()
        worker.process.join(timeout=10.0)
        self._workers.remove(worker)

    def submit(self, tasks: Sequence[RunTask]) -> None:
        for task in tasks:
            self._pending[id(task)] = task
        self._queue.extend(tasks)
        self._dispatch()

    def wait_some(self) -> list[tuple[RunTask, RunOutcome]]:
        busy = [worker for worker in self._workers if worker.task is not None]
        ready = set(wait([handle for worker in busy for handle in (worker.connection, worker.process.sentinel)]))
        ended = []
        for worker in busy:
            if worker.connection not in ready and worker.process.sentinel not in ready:
                continue
            task, worker.task = worker.task, None
            try:
                outcome = worker.connection.recv()
            except (EOFError, OSError):  # the worker died before it could report: only its attempt failed
                self._retire(worker)
                outcome = outcome_from_exception(task, WorkerDied(
                    f"the worker process executing run {task.run_id} (pid {worker.process.pid}) "
                    f"{_ended(worker.process)}"))
            del self._pending[id(task)]
            ended.append((task, outcome))
        self._dispatch()
        return ended

    def close(self) -> None:
        interrupted = [worker.task for worker in self._workers if worker.task is not None]
        for worker in self._workers:
            if worker.task is not None:
                worker.process.terminate()
            else:
                with contextlib.suppress(OSError, ValueError):
                    worker.connection.send(None)
        for worker in self._workers:
            worker.process.join(timeout=10.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=10.0)
            worker.connection.close()
        self._workers.clear()
        self._queue.clear()
        for task in interrupted:  # their processes are gone, so their markers are stale
            reclaim_stale(task.run_dir())
        self._pending.clear()
