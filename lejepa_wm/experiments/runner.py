"""``lejepa-wm run EXPERIMENT``: every run of one experiment, one after another in this process, then aggregate.

It is the sweep driver (:func:`lejepa_wm.sweep.driver.run_sweep`) with the serial
executor, so ``run``, ``sweep`` and ``reproduce`` share one path: the same
planning, the same skipping of finished runs (an interrupted command continues
where it stopped, from each run's last checkpoint), the same retry and failure
records, the same aggregation, the same up-front checks of ``--seed``,
``--out`` and ``--device``. ``--restart`` deletes the experiment's folder at
that scale first (never while a run or a launch is using it).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from lejepa_wm.config import SCALES
from lejepa_wm.device import DEVICE_CHOICES
from lejepa_wm.experiments import EXPERIMENT_MODULES
from lejepa_wm.experiments.base import experiment_dir
from lejepa_wm.sweep.driver import DEFAULT_OUT, check_launch, print_result, run_sweep
from lejepa_wm.sweep.state import refuse_if_busy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm run``."""
    parser.add_argument("experiment", choices=sorted(EXPERIMENT_MODULES))
    parser.add_argument("--scale", choices=SCALES, default="quick", help="experiment scale (default: quick)")
    parser.add_argument("--seed", type=int, default=0, help="first run seed (default: 0); runs use seed, seed+1, ...")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"results root (default: {DEFAULT_OUT})")
    parser.add_argument("--config", type=Path, default=None, help="TOML file overriding the defaults")
    parser.add_argument("--device", choices=DEVICE_CHOICES, default="cpu", help="torch device (default: cpu)")
    parser.add_argument("--restart", action="store_true", help="discard earlier results of this experiment")


def main(args: argparse.Namespace) -> int:
    """Run the experiment serially; print what was executed, reused, failed and written.

    Bad options are refused before anything is deleted or run; ``--restart``
    refuses to delete runs that a live process is executing.
    """
    check_launch(args.out, "serial", None, args.seed, args.device)
    if args.restart:
        folder = experiment_dir(args.out, args.experiment, args.scale)
        refuse_if_busy(folder, "--restart")
        if folder.exists():
            shutil.rmtree(folder)
    result = run_sweep(args.experiment, args.scale, args.out, executor="serial", seed=args.seed,
                       device=args.device, config_path=args.config)
    return print_result(result, args.out)
