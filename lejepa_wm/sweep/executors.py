"""Where a sweep's runs execute: in this process, in a local process pool, or (see ``slurm.py``) on SLURM.

Every executor has the same small interface, :class:`SweepExecutor`:
``outcomes`` executes the attempts of a queue, yielding each with its
:class:`~lejepa_wm.sweep.worker.RunOutcome` as soon as it has ended; the
driver appends a retry to the queue while it iterates, and closing the iterator
early (the launch was interrupted) stops the attempts still in flight. Retries
and bookkeeping live in the driver, so they behave the same everywhere.
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
from typing import Iterator

from lejepa_wm.machine import usable_cores as available_cores
from lejepa_wm.sweep.state import reclaim_stale
from lejepa_wm.sweep.worker import RunOutcome, RunTask, init_pool_worker, outcome_from_exception, run_task

__all__ = ["available_cores", "SweepExecutor", "SerialExecutor", "WorkerDied", "PoolExecutor"]


class SweepExecutor:
    """What the sweep driver needs from an executor (the base of every executor): ``threads_per_run``, the CPU
    threads each run may use (``None``: the process's setting is left alone), and :meth:`outcomes`."""

    threads_per_run: int | None = None

    def outcomes(self, queue: deque[RunTask]) -> Iterator[tuple[RunTask, RunOutcome]]:
        """Execute the attempts of ``queue`` (which grows while the caller iterates) until it is empty and none is
        in flight, yielding each attempt with its outcome as it ends; closing the iterator early stops the attempts
        in flight (their finished runs are kept)."""
        raise NotImplementedError


class SerialExecutor(SweepExecutor):
    """Runs each attempt in this process, one at a time, when the driver asks for the next outcome (its
    ``threads_per_run`` is ``None``: a run uses this process's setting)."""

    def outcomes(self, queue: deque[RunTask]) -> Iterator[tuple[RunTask, RunOutcome]]:
        while queue:
            task = queue.popleft()
            yield task, run_task(task)


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
    on — and a fresh worker takes its place. Closing :meth:`outcomes` with
    attempts still in flight (the launch was interrupted) stops the workers and
    removes their markers.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.threads_per_run = max(1, available_cores() // jobs)  # an equal share of the cores, at least one

    def outcomes(self, queue: deque[RunTask]) -> Iterator[tuple[RunTask, RunOutcome]]:
        idle: list[ProcessPoolExecutor] = []
        # each attempt executing: its future, with the task, its worker and the worker's process
        pending: dict[Future[RunOutcome], tuple[RunTask, ProcessPoolExecutor, BaseProcess]] = {}
        try:
            while queue or pending:
                while queue and len(pending) < self.jobs:  # queued attempts go to idle workers, or new ones
                    worker = idle.pop() if idle else ProcessPoolExecutor(
                        1, multiprocessing.get_context("spawn"), initializer=init_pool_worker,
                        initargs=(self.threads_per_run, os.getpid()))
                    try:
                        future = worker.submit(run_task, queue[0])
                    except BrokenProcessPool:  # its process died while idle: a fresh worker takes its place
                        worker.shutdown(wait=True)
                        continue
                    # the pool's one process: concurrent.futures has no public handle on it (its pid, its exit status)
                    pending[future] = (queue.popleft(), worker, next(iter(worker._processes.values())))
                for future in wait(pending, return_when=FIRST_COMPLETED).done:
                    task, worker, process = pending.pop(future)
                    error = future.exception()
                    if isinstance(error, BrokenProcessPool):  # the worker died before it could report
                        worker.shutdown(wait=True)  # its process is reaped: its exit status is known
                        error = WorkerDied(
                            f"the worker process executing run {task.run_id} (pid {process.pid}) {_ended(process)}")
                    else:
                        idle.append(worker)
                    # a dead worker fails only its attempt, and so does an exception its worker raised outside the
                    # run (claiming, a marker); result() raises anything else (a BaseException, not an Exception)
                    yield task, outcome_from_exception(task, error) if isinstance(error, Exception) else future.result()
        finally:  # the workers still executing an attempt are terminated, and their runs' markers removed
            for _, _, process in pending.values():
                process.terminate()
            for _, _, process in pending.values():
                process.join(timeout=10.0)
                if process.exitcode is None:
                    process.kill()
            for worker in [*idle, *(worker for _, worker, _ in pending.values())]:
                worker.shutdown(wait=True, cancel_futures=True)
            for task, _, _ in pending.values():  # their processes are gone, so their markers are stale
                reclaim_stale(task.run_dir())
