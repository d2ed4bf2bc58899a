"""What a sweep consists of and where each run stands, read from the run folders alone.

A sweep is the grid of :class:`~lejepa_wm.experiments.base.RunSpec` s that the
experiment's ``grid`` returns for one configuration, scale and seed offset. The
state of a run is derived from files in its folder, so any process (the one that
launched the sweep, a later ``--status`` call, a re-launch after a crash) sees
the same picture:

- ``metrics.json``: the run is **done** (written atomically by
  :func:`~lejepa_wm.experiments.base.execute_run`, and never recomputed);
- ``running.json``: a worker is executing it (host, process id, start time,
  attempt); removed when the worker finishes, successfully or not;
- ``error.json``: the attempts that failed, each with its traceback; removed
  once the run succeeds.

A ``running.json`` left behind by a process that no longer exists on this host
(a killed pool or a crashed machine) is *stale*: the run counts as pending.
Markers written on another host (a SLURM node) cannot be checked from here and
are taken at their word.
"""

from __future__ import annotations

import enum
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment
from lejepa_wm.experiments.base import METRICS_FILE, Experiment, RunSpec, experiment_dir

RUNNING_FILE = "running.json"
ERROR_FILE = "error.json"


class RunState(enum.Enum):
    """Where one run of a sweep stands."""

    DONE = "done"
    RUNNING = "running"
    FAILED = "failed"
    PENDING = "pending"


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
    ``load_config`` rejects bad scales and configuration values. Run ids must be
    unique, since each names a folder.
    """
    experiment = get_experiment(name)
    module = EXPERIMENT_MODULES[name]
    config = experiment.load_config(scale, config_path, overrides)
    specs = tuple(experiment.grid(config, scale, seed))
    run_ids = [spec.run_id for spec in specs]
    duplicates = sorted({run_id for run_id in run_ids if run_ids.count(run_id) > 1})
    if duplicates:
        raise ValueError(f"experiment {name!r} produced duplicate run ids {duplicates}")
    return SweepPlan(name, module, scale, Path(out), experiment, config, specs)


def mark_running(run_dir: Path, attempt: int) -> None:
    """Write ``running.json``: this process on this host executes the run (attempt 1, 2, ...)."""
    atomic_write_json(run_dir / RUNNING_FILE, {"host": socket.gethostname(), "pid": os.getpid(),
                                               "started_at": time.time(), "attempt": attempt})


def clear_running(run_dir: Path) -> None:
    """Remove ``running.json`` if present."""
    (run_dir / RUNNING_FILE).unlink(missing_ok=True)


def record_failure(run_dir: Path, run_id: str, attempt: int, error: str, traceback_text: str) -> None:
    """Append one failed attempt to the run's ``error.json`` (rewritten atomically)."""
    path = run_dir / ERROR_FILE
    attempts = read_json(path)["attempts"] if path.exists() else []
    attempts.append({"attempt": attempt, "error": error, "traceback": traceback_text,
                     "host": socket.gethostname(), "failed_at": time.time()})
    atomic_write_json(path, {"run_id": run_id, "attempts": attempts})


def clear_failure(run_dir: Path) -> None:
    """Remove ``error.json`` if present (the run has now succeeded)."""
    (run_dir / ERROR_FILE).unlink(missing_ok=True)


def _process_exists(pid: int) -> bool:
    """Whether a process with id ``pid`` exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def live_marker(run_dir: Path) -> dict[str, Any] | None:
    """The run's ``running.json`` unless absent or stale (its process is gone from this host)."""
    path = run_dir / RUNNING_FILE
    if not path.exists():
        return None
    try:
        marker = read_json(path)
    except FileNotFoundError:  # the worker finished between the check and the read
        return None
    if marker.get("host") == socket.gethostname() and not _process_exists(int(marker["pid"])):
        return None
    return marker


def run_state(spec: RunSpec, out: Path) -> RunState:
    """State of one run, from the files in its folder (see the module docstring)."""
    run_dir = spec.run_dir(out)
    if (run_dir / METRICS_FILE).exists():
        return RunState.DONE
    if live_marker(run_dir) is not None:
        return RunState.RUNNING
    if (run_dir / ERROR_FILE).exists():
        return RunState.FAILED
    return RunState.PENDING
