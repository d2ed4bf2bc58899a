"""``lejepa-wm run EXPERIMENT``: execute every run of one experiment in this process, then aggregate.

Finished runs (those with ``metrics.json``) are skipped, so re-running the same
command after an interruption continues where it stopped; ``--restart``
deletes the experiment's folder at that scale first.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path
from typing import Any, Mapping

from tqdm import tqdm

from lejepa_wm.config import SCALES
from lejepa_wm.device import DEVICE_CHOICES
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment
from lejepa_wm.experiments.base import execute_run, experiment_dir, is_done

DEFAULT_OUT = Path("results")


def run_experiment(name: str, scale: str = "quick", out: Path = DEFAULT_OUT, seed: int = 0,
                   device: str = "cpu", config_path: Path | None = None,
                   overrides: Mapping[str, Any] | None = None, restart: bool = False,
                   progress: bool = True) -> dict[str, Any]:
    """Run (or resume) experiment ``name`` serially and aggregate; return a summary dict.

    The summary lists the runs executed now, the runs reused from an earlier
    invocation, the files written by aggregation and the wall time.
    """
    experiment = get_experiment(name)
    config = experiment.load_config(scale, config_path, overrides)
    exp_dir = experiment_dir(out, name, scale)
    if restart and exp_dir.exists():
        shutil.rmtree(exp_dir)
    specs = experiment.grid(config, scale, seed)
    reused = [spec.run_id for spec in specs if is_done(spec, out)]
    start = time.perf_counter()
    executed = []
    todo = [spec for spec in specs if not is_done(spec, out)]
    for spec in tqdm(todo, desc=f"{name} ({scale})", unit="run", disable=not progress):
        execute_run(experiment, spec, out, device)
        executed.append(spec.run_id)
    files = experiment.aggregate(exp_dir, config)
    return {"experiment": name, "scale": scale, "executed": executed, "reused": reused,
            "files": [str(path) for path in files], "wall_time_s": time.perf_counter() - start}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm run``."""
    parser.add_argument("experiment", choices=sorted(EXPERIMENT_MODULES))
    parser.add_argument("--scale", choices=SCALES, default="quick")
    parser.add_argument("--seed", type=int, default=0, help="offset added to every run's seed")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results root (default: results)")
    parser.add_argument("--config", type=Path, default=None, help="TOML file overriding the defaults")
    parser.add_argument("--device", choices=DEVICE_CHOICES, default="cpu")
    parser.add_argument("--restart", action="store_true", help="discard earlier results of this experiment")


def main(args: argparse.Namespace) -> int:
    """Run the experiment and print what was executed, reused and written."""
    summary = run_experiment(args.experiment, args.scale, args.out, args.seed, args.device,
                             args.config, restart=args.restart)
    if summary["reused"]:
        print(f"reused {len(summary['reused'])} finished run(s) from {args.out}")
    print(f"executed {len(summary['executed'])} run(s) in {summary['wall_time_s']:.1f} s")
    for path in summary["files"]:
        print(f"wrote {path}")
    return 0
