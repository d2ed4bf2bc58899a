"""``lejepa-wm run EXPERIMENT [KEY=VALUE ...]``: every run of one experiment, one after another, then aggregate.

It is the sweep driver (:func:`lejepa_wm.sweep.driver.run_sweep`) with the serial
executor, so ``run``, ``sweep`` and ``reproduce`` share one path: the same
planning, the same skipping of finished runs (an interrupted command continues
where it stopped, from each run's last checkpoint), the same retry and failure
records, the same aggregation, the same up-front checks of ``--seed``,
``--out`` and ``--device``. ``--restart`` deletes the experiment's folder at
that scale first (never while a run or a launch is using it).

Any key of the experiment's config can be set for one launch as ``KEY=VALUE``
(:mod:`lejepa_wm.overrides`), after the shipped defaults and a ``--config``
file. ``--print-config`` prints the settings a launch would use (as TOML that
``--config`` reads back), ``--dry-run`` the runs it would execute with an
estimate of their compute (:mod:`lejepa_wm.experiments.estimate`), and
``--no-control`` drops the λ = 0 control for a quick look, which every output
then marks as such (:mod:`lejepa_wm.experiments.quick_look`). Progress is a bar
on a terminal and one line per finished run elsewhere.
"""

from __future__ import annotations

import argparse
import shutil
from typing import Any

from lejepa_wm.commands import exits
from lejepa_wm.commands.sweep import print_result
from lejepa_wm.experiments import get_experiment, registered_experiments
from lejepa_wm.experiments.base import experiment_dir
from lejepa_wm.experiments.estimate import describe_plan
from lejepa_wm.experiments.quick_look import NO_CONTROL_TAG
from lejepa_wm.overrides import config_toml, parse_settings
from lejepa_wm.sweep.driver import check_launch, run_sweep
from lejepa_wm.sweep.state import plan_sweep, refuse_if_busy

__all__ = ["COMMON_OPTIONS", "add_arguments", "main"]

COMMON_OPTIONS = ("scale", "seed", "out", "config", "device", "tensorboard")
_CONTROL = "alignment_only"
_NO_CONTROL_LINE = (f"{NO_CONTROL_TAG} this launch trains no λ = 0 control: its results are a quick look, not "
                   "evidence, and its figure and headline say so")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm run``."""
    parser.add_argument("experiment", choices=sorted(registered_experiments()))
    parser.add_argument("settings", nargs="*", metavar="KEY=VALUE",
                        help="set any config key for this launch, after the defaults and --config (e.g. dims=16 "
                             "max_steps=300 methods=sigreg; lists as a,b or [a, b]; steps and n are short for "
                             "max_steps and dims); --print-config lists the keys")
    parser.add_argument("--restart", action="store_true", help="discard earlier results of this experiment")
    parser.add_argument("--no-control", action="store_true",
                        help="train no λ = 0 control (a quick look: every output says so; not evidence)")
    parser.add_argument("--print-config", action="store_true",
                        help="print the settings this launch would use (TOML, readable by --config) and stop")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the runs this launch would execute, with an estimate of their compute, and stop")


def _launch_settings(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """The launch's config and its ``KEY=VALUE`` settings, typed by the experiment's config; with ``--no-control``
    the control is dropped.

    ``ValueError`` names a malformed setting, an unknown key, a value the config
    refuses, and ``--no-control`` for an experiment without a λ = 0 control.
    """
    experiment = get_experiment(args.experiment)
    defaults = experiment.load_config(args.scale, args.config)
    overrides = parse_settings(args.settings, type(defaults))
    if args.no_control:
        if not hasattr(defaults, "control"):
            raise ValueError(f"--no-control: experiment {args.experiment!r} has no λ = 0 control to drop")
        overrides["control"] = False
        methods = overrides.get("methods", getattr(defaults, "methods", ()))
        if _CONTROL in methods:
            overrides["methods"] = tuple(method for method in methods if method != _CONTROL)
    return experiment.load_config(args.scale, args.config, overrides), overrides


def main(args: argparse.Namespace) -> int:
    """Run the experiment serially (or only print its settings or plan); print what was executed and written.

    Bad options and settings are refused before anything is deleted or run;
    ``--restart`` refuses to delete a folder that a live launch or run is using.
    """
    config, overrides = _launch_settings(args)  # a bad setting is refused here, before --restart deletes anything
    if args.print_config:
        print(config_toml(config, f"lejepa-wm run {args.experiment} --scale {args.scale}: the settings of this "
                                  "launch\n(defaults, then --config, then KEY=VALUE); --config reads this file"))
        return exits.OK
    if args.dry_run:
        print(describe_plan(plan_sweep(args.experiment, args.scale, args.out, args.seed, args.config, overrides)))
        if args.no_control:
            print(_NO_CONTROL_LINE)
        return exits.OK
    check_launch(args.out, "serial", None, args.seed, args.device)
    if args.no_control:
        print(_NO_CONTROL_LINE, flush=True)
    if args.restart:  # the experiment's folder at this scale goes, unless a live launch or run is using it
        folder = experiment_dir(args.out, args.experiment, args.scale)
        refuse_if_busy(folder, "--restart")
        if folder.exists():
            shutil.rmtree(folder)
    result = run_sweep(args.experiment, args.scale, args.out, executor="serial", seed=args.seed,
                       device=args.device, config_path=args.config, overrides=overrides,
                       tensorboard=args.tensorboard)
    status = print_result(result, args.out)
    if args.no_control:
        print(_NO_CONTROL_LINE)
    return status
