"""``lejepa-wm sweep``: an experiment's grid on a local process pool or on SLURM, resumable (:mod:`lejepa_wm.sweep`).

``--status`` prints the counts of done, running, failed and pending runs and
the time left; ``--aggregate-only`` aggregates the runs finished so far.
:func:`print_result` prints what a launch did, for ``sweep`` and ``run``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lejepa_wm.commands import exits
from lejepa_wm.experiments import EXPERIMENT_MODULES
from lejepa_wm.experiments.base import HEADLINE_FILE, is_done
from lejepa_wm.sweep.driver import EXECUTORS, SweepResult, aggregate_plan, format_headline, run_sweep
from lejepa_wm.sweep.executors import available_cores
from lejepa_wm.sweep.state import plan_sweep
from lejepa_wm.sweep.status import format_status, sweep_status
from lejepa_wm.validation import check_nonnegative_int, check_positive_int, check_writable_dir

__all__ = ["COMMON_OPTIONS", "add_arguments", "main", "print_result"]

COMMON_OPTIONS = ("scale", "seed", "out", "config", "device", "tensorboard")

_SLURM_OPTIONS = {"partition": (str, None), "time_min": (int, "wall-clock limit of one run in minutes"),
                 "cpus_per_run": (int, None), "gpus_per_run": (int, None), "mem_gb": (float, None),
                 "array_parallelism": (int, "most runs of the array at once")}
"""Resources of one run on SLURM, each an option ``--time-min`` etc.: its type and help."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm sweep``."""
    parser.add_argument("experiment", choices=sorted(EXPERIMENT_MODULES))
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="serial: this process; local: a process pool (default); slurm: job arrays via submitit")
    parser.add_argument("--jobs", type=int, default=None,
                        help="concurrent runs of the local pool (default: the available cores); "
                             "also the parallelism assumed by --status")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--status", action="store_true", help="print done/running/failed/pending counts and time left")
    mode.add_argument("--aggregate-only", action="store_true",
                      help="aggregate the runs finished so far, start nothing")
    slurm = parser.add_argument_group("slurm", "resources of one run (defaults: the [slurm] table of slurm.toml)")
    slurm.add_argument("--slurm-config", type=Path, default=None, help="TOML file with a [slurm] table")
    for name, (kind, help_text) in _SLURM_OPTIONS.items():
        slurm.add_argument("--" + name.replace("_", "-"), type=kind, default=None, help=help_text)


def main(args: argparse.Namespace) -> int:
    """Show the status, aggregate the runs finished so far, or run the sweep; exit status 3 if a run failed.

    ``--jobs`` and ``--seed`` are checked first, in every mode (``--out`` is checked by
    :func:`lejepa_wm.commands.cli.main` before any subcommand runs).
    """
    if args.jobs is not None:
        check_positive_int(args.jobs, "--jobs")
    check_nonnegative_int(args.seed, "the seed offset (--seed)")
    if args.status:
        status = sweep_status(args.experiment, args.scale, args.out, args.seed, args.config)
        print(format_status(status, available_cores() if args.jobs is None else args.jobs))
        return exits.OK
    if args.aggregate_only:
        check_writable_dir(args.out, "--out")
        plan = plan_sweep(args.experiment, args.scale, args.out, args.seed, args.config)
        finished = sum(is_done(spec, plan.out) for spec in plan.specs)
        if finished == 0:
            raise ValueError(f"no finished run of {args.experiment!r} ({args.scale}) below {plan.exp_dir}; "
                             "nothing to aggregate")
        files = aggregate_plan(plan)
        if finished < len(plan.specs):
            print(f"warning: aggregated {finished} of {len(plan.specs)} runs; the others have not finished")
        for path in files:
            print(f"wrote {path}")
        return exits.OK
    result = run_sweep(args.experiment, args.scale, args.out, args.executor, args.jobs, args.seed, args.device,
                       args.config, slurm_config=args.slurm_config,
                       slurm_overrides={name: getattr(args, name) for name in _SLURM_OPTIONS},
                       tensorboard=args.tensorboard)
    return print_result(result, args.out)


def print_result(result: SweepResult, out: Path) -> int:
    """Print what a launch did, with the one-line cause of each failure; return the exit status (0, or 3 if a run
    failed)."""
    for run_id, why in result.reclaimed:
        print(f"reclaimed run {run_id}: {why}; it runs again")
    for run_id, error in result.retried:
        print(f"run {run_id}: an attempt failed ({error}); it was retried")
    if result.damaged:
        print(f"ran again {len(result.damaged)} run(s) whose metrics.json or spec.json was damaged: "
              f"{', '.join(result.damaged)}")
    if result.reused:
        print(f"reused {len(result.reused)} finished run(s) from {out}")
    print(f"executed {len(result.executed)} run(s) in {result.wall_time_s:.1f} s with executor {result.executor}")
    if result.elsewhere:
        owners = ", ".join(f"{run_id} ({owner})" for run_id, owner in result.elsewhere)
        print(f"{len(result.elsewhere)} run(s) running elsewhere, not started here: {owners}; "
              "launch the same command again once they finish to aggregate")
    for path in result.files:
        print(f"wrote {path}")
    for path in result.files:
        if path.name == HEADLINE_FILE:
            print(format_headline(path))
    for run_id, error in result.errors:
        print(f"FAILED run {run_id}: {error}")
    if result.failed:
        print(f"{len(result.failed)} run(s) failed (each cause above; tracebacks in their error.json): "
              f"{', '.join(result.failed)}; a failure that repeats with the same inputs is not retried: fix its "
              "cause, then launch the same command again")
        return exits.CRASHED
    return exits.OK
