"""What a launch would do, before it does it: the planned runs and an estimate of their compute.

The estimate comes from runs that were measured, never from a formula typed
in: the shipped results (``reference/<experiment>/<scale>/runs``, in the
repository root) and the launch's own results folder. A planned run is priced
at the seconds per training step of the measured runs with the same grid
labels except the seed (the same n, method, encoder, …), times its step
budget; without such a run, at the median over the experiment's measured
runs. The budget is an upper bound where a run may stop early, so is the
estimate; it says which runs it was measured on and on what machine.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from lejepa_wm.experiments.base import RunSpec, experiment_dir, is_done, read_run, run_compute_seconds
from lejepa_wm.lean_audit import default_root
from lejepa_wm.machine import describe_machine
from lejepa_wm.progress import format_duration

__all__ = ["Measured", "estimate_seconds", "describe_plan"]

_REFERENCE = "reference"
_UNRECORDED = describe_machine(None)


@dataclass(frozen=True)
class Measured:
    """One finished run: its grid labels without the seed, its compute, its steps (``None``: not recorded)."""

    labels: tuple[tuple[str, Any], ...]
    seconds: float
    steps: int | None
    machine: str


def _labels(spec: RunSpec) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((key, repr(value)) for key, value in spec.labels.items() if key != "seed"))


def _budget(spec: RunSpec) -> int | None:
    """The run's step budget (``None``: an experiment without one, Reacher)."""
    train = spec.params.get("train")
    return train.get("max_steps") if isinstance(train, Mapping) else None


def _measured_runs(folders: Iterable[Path]) -> list[Measured]:
    """The finished runs below each ``<folder>/runs`` with a recorded compute time."""
    found = []
    for folder in folders:
        for run_dir in sorted(Path(folder).glob("runs/*")):
            try:
                run = read_run(run_dir)
            except ValueError:  # not finished, or damaged
                continue
            seconds = run_compute_seconds(run.metrics)
            if seconds is not None:
                found.append(Measured(_labels(run.spec), seconds, run.metrics.get("steps") or None,
                                      describe_machine(run.metrics.get("machine"))))
    return found


def estimate_seconds(spec: RunSpec, measured: list[Measured]) -> float | None:
    """Compute ``spec`` would take: seconds per step of the alike measured runs (else all) times its budget."""
    alike = [run for run in measured if run.labels == _labels(spec)] or measured
    budget = _budget(spec)
    per_step = [run.seconds / run.steps for run in alike if run.steps]
    if budget is not None and per_step:
        return statistics.median(per_step) * budget
    return statistics.median(run.seconds for run in alike) if alike else None


def describe_plan(plan: Any) -> str:
    """The runs of a :class:`~lejepa_wm.sweep.state.SweepPlan`: which are finished, and the compute of the others."""
    folders = [experiment_dir(default_root() / _REFERENCE, plan.name, plan.scale), plan.exp_dir]
    measured = _measured_runs(folder for folder in dict.fromkeys(path.resolve() for path in folders) if folder.is_dir())
    lines, total, unknown = [], 0.0, 0
    width = max((len(spec.run_id) for spec in plan.specs), default=6)
    for spec in plan.specs:
        if is_done(spec, plan.out):
            lines.append(f"  {spec.run_id:<{width}}  finished, reused")
            continue
        seconds = estimate_seconds(spec, measured)
        budget = _budget(spec)
        total += seconds or 0.0
        unknown += seconds is None
        lines.append(f"  {spec.run_id:<{width}}  {'' if budget is None else f'{budget} steps, '}"
                     f"{'no estimate' if seconds is None else '≈ ' + format_duration(seconds)}")
    todo = len(plan.specs) - sum(line.endswith("reused") for line in lines)
    seeds = sorted({spec.labels["seed"] for spec in plan.specs if "seed" in spec.labels})
    machines = sorted({run.machine for run in measured} - {_UNRECORDED}) or ["a machine that was not recorded"]
    head = (f"{plan.name} at scale {plan.scale}: {len(plan.specs)} run(s), {todo} to execute "
            f"(seeds {', '.join(map(str, seeds)) or 'not labelled'}); results in {plan.exp_dir}")
    source = (f"estimated from {len(measured)} measured run(s) on {'; '.join(machines)}, one run at a time "
              "(a step budget is an upper bound: runs may stop early)" if measured
              else "no measured runs of this experiment to estimate from")
    tail = f"compute to execute: ≈ {format_duration(total)}" + (f" (+ {unknown} run(s) without an estimate)"
                                                                 if unknown else "") + f"; {source}"
    return "\n".join([head, *lines, tail])
