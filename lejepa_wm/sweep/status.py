"""``lejepa-wm sweep EXPERIMENT --status``: how many runs are done, running, failed, pending, and what is left.

The estimate of what is left uses the compute of the runs finished so far
(:func:`~lejepa_wm.experiments.base.run_compute_seconds` of their
``metrics.json``: wall time, with the training time of earlier attempts for a
resumed run). Runs of one grid differ a lot in cost (a 1024-dimensional run
takes far longer than a 2-dimensional one), but runs that differ only in their
seed cost about the same, so every run that is not done is expected to take
``w``, the mean compute of the finished runs of its *cost group* (the same grid
labels but the seed, :func:`_cost_group`), or the mean of all finished runs
when none of its group has finished; a running one is expected to take
``max(w - elapsed, 0)`` more. Their sum is the compute left; divided over
``jobs`` concurrent runs (at most one slot per remaining run) it gives the wall
time left. With no finished run there is no estimate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from lejepa_wm.experiments.base import RunSpec, read_metrics, run_compute_seconds
from lejepa_wm.progress import format_duration
from lejepa_wm.sweep.state import RunState, describe_owner, plan_sweep, run_state

__all__ = ["SweepStatus", "sweep_status", "format_status"]


@dataclass(frozen=True)
class SweepStatus:
    """Counts of runs per state, the failed run ids, and the time estimate (``None`` without a finished run).

    ``running`` holds ``(run_id, owner)`` of the runs with a live marker,
    ``damaged`` the runs whose ``metrics.json`` is damaged (they run again), and
    ``stale`` the runs whose marker is stale (the next launch reclaims them).
    """

    experiment: str
    scale: str
    counts: Mapping[RunState, int]
    failed: tuple[str, ...]
    mean_wall_s: float | None
    compute_left_s: float | None
    runs_left: int
    running: tuple[tuple[str, str], ...] = ()
    damaged: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()

    def wall_left_s(self, jobs: int) -> float | None:
        """Wall time left with ``jobs`` (>= 1, checked by the command line) runs at a time (``None`` without an
        estimate)."""
        if self.compute_left_s is None:
            return None
        return self.compute_left_s / max(1, min(jobs, self.runs_left))


def sweep_status(name: str, scale: str, out: Path, seed: int = 0, config_path: Path | None = None,
                 overrides: Mapping[str, Any] | None = None, now: float | None = None) -> SweepStatus:
    """Read every run folder of the sweep and summarize (``now``: the clock, for elapsed times)."""
    plan = plan_sweep(name, scale, out, seed, config_path, overrides)
    now = time.time() if now is None else now
    ids: dict[RunState, list[str]] = {state: [] for state in RunState}
    stale, running = [], []
    wall_by_group: dict[tuple[tuple[str, str], ...], list[float]] = {}
    left: list[tuple[tuple[tuple[str, str], ...], float]] = []  # (cost group, seconds already spent)
    for spec in plan.specs:
        state, marker = run_state(spec, plan.out)
        ids[state].append(spec.run_id)
        if state is RunState.DONE:
            wall = run_compute_seconds(read_metrics(spec, plan.out) or {})
            if wall is not None:
                wall_by_group.setdefault(_cost_group(spec), []).append(wall)
            continue
        spent = 0.0
        if state is RunState.RUNNING:
            running.append((spec.run_id, describe_owner(marker)))
            spent = max(0.0, now - float(marker["started_at"]))
        elif marker is not None:
            stale.append(spec.run_id)
        left.append((_cost_group(spec), spent))
    wall_times = [wall for walls in wall_by_group.values() for wall in walls]
    mean_wall = sum(wall_times) / len(wall_times) if wall_times else None
    group_mean = {group: sum(walls) / len(walls) for group, walls in wall_by_group.items()}
    compute_left = None if mean_wall is None else sum(max(group_mean.get(group, mean_wall) - spent, 0.0)
                                                      for group, spent in left)
    return SweepStatus(name, scale, {state: len(run_ids) for state, run_ids in ids.items()},
                       tuple(ids[RunState.FAILED]), mean_wall, compute_left, len(left), tuple(running),
                       tuple(ids[RunState.DAMAGED]), tuple(stale))


def _cost_group(spec: RunSpec) -> tuple[tuple[str, str], ...]:
    """The runs expected to cost about the same: the run's grid labels (``params["labels"]``) without its seed."""
    labels = spec.params.get("labels", {})
    return tuple(sorted((str(key), str(value)) for key, value in labels.items() if key != "seed"))


def _format_duration(seconds: float) -> str:
    """``seconds`` as ``1h02m``, ``3m05s`` or ``12s`` (:func:`~lejepa_wm.progress.format_duration` of the whole
    seconds, without spaces)."""
    return format_duration(round(seconds)).replace(" min", "m").replace(" ", "")


def format_status(status: SweepStatus, jobs: int) -> str:
    """Human-readable status: counts, failed runs, and the estimate for ``jobs`` concurrent runs."""
    shown = [state for state in RunState if state is not RunState.DAMAGED or status.counts[state]]
    counts = ", ".join(f"{state.value} {status.counts[state]}" for state in shown)
    lines = [f"{status.experiment} ({status.scale}): {sum(status.counts.values())} runs: {counts}"]
    for title, runs in (("running", [f"{run_id} ({owner})" for run_id, owner in status.running]),
                        ("failed (see error.json in each run folder)", status.failed),
                        ("damaged metrics.json or spec.json (the next launch runs them again)", status.damaged),
                        ("left behind by a process that is gone (the next launch reclaims them)", status.stale)):
        if runs:
            lines.append(f"{title}: {', '.join(runs)}")
    if status.runs_left == 0:
        lines.append("nothing left to run")
    elif status.compute_left_s is None:
        lines.append(f"{status.runs_left} runs left; no finished run yet to estimate their time")
    else:
        lines.append(f"{status.runs_left} runs left: about {_format_duration(status.compute_left_s)} of compute "
                     f"(each run costed as the finished runs of its grid point; mean "
                     f"{_format_duration(status.mean_wall_s or 0.0)} per finished run), "
                     f"about {_format_duration(status.wall_left_s(jobs) or 0.0)} with {jobs} runs at a time")
    return "\n".join(lines)
