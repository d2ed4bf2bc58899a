"""What a sweep consists of and where each run stands, read from the run folders alone.

A sweep is the grid of :class:`~lejepa_wm.experiments.base.RunSpec` s that the
experiment's ``grid`` returns for one configuration, scale and seed offset. The
state of a run is derived from files in its folder, so any process (the one that
launched the sweep, a later ``--status`` call, a re-launch after a crash) sees
the same picture:

- ``metrics.json``: the run is **done** (written atomically by
  :func:`~lejepa_wm.experiments.base.execute_run`, and never recomputed); a
  ``metrics.json`` that cannot be read as :class:`~lejepa_wm.schema.RunMetrics`, or one
  without a ``spec.json`` object beside it, is **damaged**: the run is not finished and
  is run again;
- ``running.json``: the run's *marker*: a process owns the run and executes it.
  It names its owner (host, process id, a random token), when it started, and a
  heartbeat that a background thread of the owner refreshes every
  :data:`HEARTBEAT_S` seconds while the run executes; the owner removes it when
  the run ends, successfully or not;
- ``error.json``: the attempts that failed, each with its traceback; removed
  once the run succeeds.

A marker is **live** when its owner is still at work: on this host, its process
exists *and* its heartbeat is fresh (younger than :data:`_STALE_BEATS` heartbeat
intervals); on another host (a SLURM node), its heartbeat is fresh. Any other
marker (the owner was killed, its machine crashed, the file is damaged) is
**stale**, and so is the marker of a SLURM job seen from the same job requeued
on another node. A run is claimed by writing its marker under the run's lock
(:func:`claim_run`): a live marker of another owner is never taken over, a
stale one is reclaimed, and the reclaim is reported. So a re-launch never
starts a run whose owner is still alive, and two launches never execute the
same run at the same time.

Ownership is kept to the end: claiming a run, taking over a stale marker, renewing a
heartbeat, releasing a run and committing its result (:func:`committing`:
``metrics.json`` written, checkpoint removed) each hold the run's lock
(``.claim.lock``, a :mod:`filelock` file lock), and a commit first re-checks
that the marker is still its own. An owner that was suspended long enough to
be taken over therefore drops its result instead of finishing the run twice.

A launch (``run``, ``sweep``, ``reproduce``) holds a *launch marker*
(``.launch-<token>.json`` in the experiment's folder, with a heartbeat) while
it runs, so ``run --restart`` and ``reproduce --fresh`` refuse to delete a
folder that a live launch or a live run is using (:func:`refuse_if_busy`),
even between two of its runs.
"""

from __future__ import annotations

import contextlib
import enum
import os
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from filelock import FileLock, Timeout
from pydantic import ConfigDict
from typing_extensions import NotRequired, TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment
from lejepa_wm.experiments.base import (METRICS_FILE, Experiment, RunSpec, RunTakenOver, experiment_dir,
                                        read_metrics)
from lejepa_wm.schema import read

__all__ = [
    "RUNNING_FILE", "ERROR_FILE", "LOCK_FILE", "HEARTBEAT_S", "RunState", "SweepPlan", "plan_sweep",
    "process_exists", "RunMarker", "read_marker", "describe_owner", "stale_reason", "live_marker", "new_marker",
    "RunOwnedElsewhere", "run_lock", "remove_marker", "reclaim_stale", "claim_run", "owns", "release_run",
    "committing", "heartbeat", "launch_claim", "refuse_if_busy", "record_failure", "run_state"
]

RUNNING_FILE = "running.json"
ERROR_FILE = "error.json"
LOCK_FILE = ".claim.lock"
_LAUNCH_PREFIX = ".launch-"
HEARTBEAT_S = 30.0
_STALE_BEATS = 4
_LOCK_WAIT_S = 30.0
"""How long a takeover, a release or a commit waits for the run's lock before giving up."""


class RunState(enum.Enum):
    """Where one run of a sweep stands."""

    DONE = "done"
    RUNNING = "running"
    FAILED = "failed"
    PENDING = "pending"
    DAMAGED = "damaged"


@dataclass(frozen=True)
class SweepPlan:
    """One experiment's grid at one scale, with everything needed to execute and aggregate it.

    ``module`` is the import path of the experiment's module: workers in other
    processes or on other machines import the experiment from it.
    """

    name: str
    module: str
    scale: str
    out: Path
    experiment: Experiment
    config: Any
    specs: tuple[RunSpec, ...]

    @property
    def exp_dir(self) -> Path:
        """Folder holding the runs, the summary and the figures."""
        return experiment_dir(self.out, self.name, self.scale)


def plan_sweep(name: str, scale: str, out: Path, seed: int = 0, config_path: Path | None = None,
               overrides: Mapping[str, Any] | None = None) -> SweepPlan:
    """Load the experiment's validated configuration and expand its grid.

    ``ValueError`` names an unknown experiment; the experiment's own
    ``load_config`` rejects bad scales and configuration values (the seed offset
    was checked by the caller: the command line or ``check_launch``). Run ids
    must be unique, since each names a folder.
    """
    experiment = get_experiment(name)
    config = experiment.load_config(scale, config_path, overrides)
    specs = tuple(experiment.grid(config, scale, seed))
    if not specs:
        raise ValueError(f"the configuration of {name!r} at scale {scale!r} gives an empty grid (no run); "
                         "check its lists of settings")
    duplicates = sorted(run_id for run_id, count in Counter(spec.run_id for spec in specs).items() if count > 1)
    if duplicates:
        raise ValueError(f"experiment {name!r} produced duplicate run ids {duplicates}")
    return SweepPlan(name, EXPERIMENT_MODULES[name], scale, Path(out), experiment, config, specs)


# --- markers -----------------------------------------------------------------------------------------------


def process_exists(pid: int) -> bool:
    """Whether a process with id ``pid`` exists on this host (a zombie counts as gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # Linux: a killed process that nobody has reaped yet still answers kill(pid, 0)
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


class RunMarker(TypedDict):
    """What ``running.json`` holds: the owner's host and process, when it started and last beat, its claim's
    token, the attempt, and its SLURM job (``None`` outside SLURM)."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]

    host: str
    pid: int
    started_at: float
    token: NotRequired[str]
    heartbeat_at: NotRequired[float]
    heartbeat_s: NotRequired[float]
    attempt: NotRequired[int]
    slurm_job: NotRequired[str | None]


def read_marker(run_dir: Path, name: str = RUNNING_FILE) -> dict[str, Any] | None:
    """The run's marker (``running.json``, or the file ``name``) as a dict: ``None`` if absent, ``{}`` if damaged
    (unreadable, wrong shape)."""
    try:
        return dict(read(RunMarker, read_json(Path(run_dir) / name), name))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}


def describe_owner(marker: Mapping[str, Any]) -> str:
    """``pid 123 on host node7``."""
    return f"pid {marker.get('pid')} on host {marker.get('host')}"


def stale_reason(marker: Mapping[str, Any]) -> str | None:
    """Why the marker is stale (its owner is gone), or ``None`` if it is live (see the module docstring)."""
    if not marker:
        return f"its {RUNNING_FILE} is damaged"
    silent = time.time() - float(marker.get("heartbeat_at", marker["started_at"]))
    here = marker["host"] == socket.gethostname()
    if here and not process_exists(int(marker["pid"])):
        return f"its owner ({describe_owner(marker)}) is gone"
    job = marker.get("slurm_job")
    if job and job == os.environ.get("SLURM_JOB_ID") and not here:
        return f"its SLURM job {job} was requeued (it ran on host {marker['host']})"
    if silent > _STALE_BEATS * float(marker.get("heartbeat_s", HEARTBEAT_S)):
        return f"its owner ({describe_owner(marker)}) has sent no heartbeat for {silent:.0f} s"
    return None


def live_marker(run_dir: Path, name: str = RUNNING_FILE) -> dict[str, Any] | None:
    """The run's ``running.json`` (or the marker file ``name``) if it is live (its owner is at work), else ``None``
    (absent or stale)."""
    marker = read_marker(run_dir, name)
    return marker if marker is not None and stale_reason(marker) is None else None


def new_marker(attempt: int) -> dict[str, Any]:
    """A marker naming this process as the owner of a run (attempt 1, 2, ...)."""
    now = time.time()
    return {"host": socket.gethostname(), "pid": os.getpid(), "token": uuid.uuid4().hex, "started_at": now,
            "heartbeat_at": now, "heartbeat_s": HEARTBEAT_S, "attempt": attempt,
            "slurm_job": os.environ.get("SLURM_JOB_ID")}


class RunOwnedElsewhere(Exception):
    """The run has a live marker of another owner: it must not be started here."""

    def __init__(self, run_dir: Path, marker: Mapping[str, Any]) -> None:
        super().__init__(f"run {Path(run_dir).name} is running elsewhere ({describe_owner(marker)})")
        self.marker = dict(marker)


@contextlib.contextmanager
def run_lock(run_dir: Path, timeout: float = _LOCK_WAIT_S) -> Iterator[dict[str, Any] | None]:
    """Hold the run's lock (created with its folder) and yield the run's marker read under it (as
    :func:`read_marker` returns it); ``Timeout`` if another process keeps the lock longer."""
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    with FileLock(str(Path(run_dir) / LOCK_FILE), timeout=timeout):
        yield read_marker(run_dir)


def remove_marker(run_dir: Path, condition: Callable[[dict[str, Any]], Any]) -> Any:
    """Under the run's lock, remove its marker if ``condition(marker)`` is true; return what ``condition`` returned.

    ``None`` when the run has no marker, or when another process holds the lock
    longer than :data:`_LOCK_WAIT_S` (its owner is committing, or suspended
    while committing: it counts as a live owner).
    """
    try:
        with run_lock(run_dir) as marker:
            verdict = None if marker is None else condition(marker)
            if verdict:
                (Path(run_dir) / RUNNING_FILE).unlink(missing_ok=True)
            return verdict
    except Timeout:
        return None


def reclaim_stale(run_dir: Path) -> str | None:
    """Remove the run's marker if it is stale; return the reason (``None``: no marker, or a live one)."""
    return None if read_marker(run_dir) is None else remove_marker(run_dir, stale_reason)


def claim_run(run_dir: Path, attempt: int) -> tuple[dict[str, Any], str | None]:
    """Make this process the run's owner: write its marker; return it and why a stale one was reclaimed.

    Done under the run's lock, so two processes never both claim it. Raises
    :class:`RunOwnedElsewhere` when a live marker of another owner exists, or
    when another process holds the run's lock longer than :data:`_LOCK_WAIT_S`.
    """
    try:
        with run_lock(run_dir) as current:
            reclaimed = None if current is None else stale_reason(current)
            if current is not None and reclaimed is None:
                raise RunOwnedElsewhere(run_dir, current)
            marker = new_marker(attempt)
            atomic_write_json(Path(run_dir) / RUNNING_FILE, marker)
    except Timeout:
        raise RunOwnedElsewhere(run_dir, read_marker(run_dir) or {}) from None
    return marker, reclaimed


def owns(run_dir: Path, marker: Mapping[str, Any], name: str = RUNNING_FILE) -> bool:
    """Whether the run's marker (or the marker file ``name``) is still ``marker`` (same owner token)."""
    return (read_marker(run_dir, name) or {}).get("token") == marker["token"]


def release_run(run_dir: Path, marker: Mapping[str, Any]) -> None:
    """Remove the run's marker if it is still ``marker`` (never another owner's), under the run's lock; a lock
    held long elsewhere leaves it, to be found stale once this process has exited."""
    remove_marker(run_dir, lambda current: current.get("token") == marker["token"])


@contextlib.contextmanager
def committing(run_dir: Path, marker: Mapping[str, Any]) -> Iterator[None]:
    """Hold the run's lock while the block writes its result, after checking that ``marker`` still owns it.

    :class:`~lejepa_wm.experiments.base.RunTakenOver` (the block does not run)
    names the new owner when the claim passed to another process, or when the
    lock could not be had: the result is dropped, the checkpoint kept.
    """
    here = describe_owner(marker)
    try:
        with run_lock(run_dir) as current:
            if (current or {}).get("token") != marker["token"]:
                owner = describe_owner(current) if current else "no owner"
                raise RunTakenOver(f"run {Path(run_dir).name} was taken over ({owner} holds it now) while its "
                                   f"earlier owner ({here}) was suspended or silent; that owner's result is dropped")
            yield
    except Timeout:
        raise RunTakenOver(f"run {Path(run_dir).name}: its lock {Path(run_dir) / LOCK_FILE} was held by another "
                           f"process for {_LOCK_WAIT_S:.0f} s, so {here} cannot check that it still owns the run; "
                           "its result is dropped") from None


@contextlib.contextmanager
def heartbeat(run_dir: Path, marker: dict[str, Any], name: str = RUNNING_FILE) -> Iterator[None]:
    """While the block runs, a daemon thread renews ``marker``'s heartbeat (in the file ``name``) every
    ``heartbeat_s`` seconds (the marker's own interval), as long as the marker is still the run's; each renewal
    holds the run's lock. A full disk, a network file system hiccup or a busy lock is retried at the next beat."""
    path = Path(run_dir) / name
    interval = float(marker.get("heartbeat_s", HEARTBEAT_S))
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(interval):
            with contextlib.suppress(OSError, Timeout):
                with run_lock(run_dir, timeout=interval / 2) if name == RUNNING_FILE else contextlib.nullcontext():
                    if not owns(run_dir, marker, name):
                        return  # taken over (we were presumed dead): leave the new owner's marker alone
                    marker["heartbeat_at"] = time.time()
                    atomic_write_json(path, marker)

    thread = threading.Thread(target=beat, name=f"heartbeat {path.parent.name}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5.0)


# --- launches ----------------------------------------------------------------------------------------------


@contextlib.contextmanager
def launch_claim(exp_dir: Path) -> Iterator[dict[str, Any]]:
    """Mark the experiment's folder as used by this launch (a marker with a heartbeat) while the block runs."""
    marker = new_marker(0)
    name = f"{_LAUNCH_PREFIX}{marker['token']}.json"
    atomic_write_json(Path(exp_dir) / name, marker)
    try:
        with heartbeat(Path(exp_dir), marker, name=name):
            yield marker
    finally:
        (Path(exp_dir) / name).unlink(missing_ok=True)


def refuse_if_busy(folder: Path, option: str) -> None:
    """``ValueError`` when ``option`` (``--restart``, ``--fresh``) would delete ``folder`` while it is in use: by a
    live launch, or by a run with a live marker; stale launch markers found on the way are removed."""
    busy = []
    for path in sorted(folder.glob(f"{_LAUNCH_PREFIX}*.json")):
        marker = live_marker(folder, path.name)
        if marker is None:
            path.unlink(missing_ok=True)
        else:
            busy.append(("a launch", marker))
    busy += [(f"run {path.parent.name}", marker) for path in sorted(folder.glob(f"runs/*/{RUNNING_FILE}"))
             if (marker := live_marker(path.parent)) is not None]
    if busy:
        what, marker = busy[0]
        more = f" (and {len(busy) - 1} more)" if len(busy) > 1 else ""
        raise ValueError(f"{option} would delete {folder} while {what} is using it ({describe_owner(marker)}){more}; "
                         "stop it first or wait for it to finish")


# --- failures and states -----------------------------------------------------------------------------------


def record_failure(run_dir: Path, run_id: str, attempt: int, error: str, traceback_text: str) -> None:
    """Append one failed attempt to the run's ``error.json`` (rewritten atomically; a damaged one is replaced)."""
    path = Path(run_dir) / ERROR_FILE
    try:
        attempts = read(list[dict[str, Any]], read_json(path)["attempts"], ERROR_FILE)
    except (OSError, ValueError, KeyError, TypeError):  # none yet, or damaged
        attempts = []
    attempts.append({"attempt": attempt, "error": error, "traceback": traceback_text,
                     "host": socket.gethostname(), "failed_at": time.time()})
    atomic_write_json(path, {"run_id": run_id, "attempts": attempts})


def run_state(spec: RunSpec, out: Path) -> tuple[RunState, dict[str, Any] | None]:
    """State of one run, from the files in its folder (see the module docstring), and its marker as
    :func:`read_marker` returns it (live for a running run; otherwise ``None`` or stale)."""
    run_dir = spec.run_dir(out)
    marker = read_marker(run_dir)
    if read_metrics(spec, out) is not None:
        return RunState.DONE, marker
    if marker is not None and stale_reason(marker) is None:
        return RunState.RUNNING, marker
    if (run_dir / METRICS_FILE).exists():
        return RunState.DAMAGED, marker
    return (RunState.FAILED if (run_dir / ERROR_FILE).exists() else RunState.PENDING), marker
