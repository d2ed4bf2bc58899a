"""Options and entry point of ``lejepa-wm sweep``."""

from __future__ import annotations

import argparse
from pathlib import Path

from lejepa_wm.config import SCALES
from lejepa_wm.device import DEVICE_CHOICES
from lejepa_wm.experiments import EXPERIMENT_MODULES
from lejepa_wm.experiments.base import is_done
from lejepa_wm.sweep.driver import DEFAULT_OUT, EXECUTORS, aggregate_plan, print_result, run_sweep
from lejepa_wm.sweep.executors import available_cores
from lejepa_wm.sweep.state import plan_sweep
from lejepa_wm.sweep.status import format_status, sweep_status
from lejepa_wm.validation import check_nonnegative_int, check_positive_int
from lejepa_wm.verify import check_writable_dir

SLURM_OPTIONS = {"partition": (str, None), "time_min": (int, "wall-clock limit of one run in minutes"),
                 "cpus_per_run": (int, None), "gpus_per_run": (int, None), "mem_gb": (float, None),
                 "array_parallelism": (int, "most runs of the array at once")}
"""Resources of one run on SLURM, each an option ``--time-min`` etc.: its type and help."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm sweep``."""
    parser.add_argument("experiment", choices=sorted(EXPERIMENT_MODULES))
    parser.add_argument("--scale", choices=SCALES, default="quick")
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="serial: this process; local: a process pool (default); slurm: job arrays via submitit")
    parser.add_argument("--jobs", type=int, default=None,
                        help="concurrent runs of the local pool (default: the available cores); "
                             "also the parallelism assumed by --status")
    parser.add_argument("--seed", type=int, default=0, help="offset added to every run's seed")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"results root (default: {DEFAULT_OUT})")
    parser.add_argument("--config", type=Path, default=None, help="TOML file overriding the experiment's defaults")
    parser.add_argument("--device", choices=DEVICE_CHOICES, default="cpu")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--status", action="store_true", help="print done/running/failed/pending counts and time left")
    mode.add_argument("--aggregate-only", action="store_true",
                      help="aggregate the runs finished so far, start nothing")
    slurm = parser.add_argument_group("slurm", "resources of one run (defaults: the [slurm] table of slurm.toml)")
    slurm.add_argument("--slurm-config", type=Path, default=None, help="TOML file with a [slurm] table")
    for name, (kind, help_text) in SLURM_OPTIONS.items():
        slurm.add_argument("--" + name.replace("_", "-"), type=kind, default=None, help=help_text)


def main(args: argparse.Namespace) -> int:
    """Show the status, aggregate the runs finished so far, or run the sweep; exit status 3 if a run failed.

    ``--jobs`` and ``--seed`` are checked first, in every mode (``--out`` is checked by
    :func:`lejepa_wm.cli.main` before any subcommand runs).
    """
    if args.jobs is not None:
        check_positive_int(args.jobs, "--jobs")
    check_nonnegative_int(args.seed, "the seed offset (--seed)")
    if args.status:
        status = sweep_status(args.experiment, args.scale, args.out, args.seed, args.config)
        print(format_status(status, available_cores() if args.jobs is None else args.jobs))
        return 0
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
        return 0
    result = run_sweep(args.experiment, args.scale, args.out, args.executor, args.jobs, args.seed, args.device,
                       args.config, slurm_config=args.slurm_config,
                       slurm_overrides={name: getattr(args, name) for name in SLURM_OPTIONS})
    return print_result(result, args.out)
