"""The options several subcommands share, each declared once with one meaning, and the type of every path option.

A subcommand takes the shared options it uses through
``parents=[common_options(...)]``; ``--seed`` is the same seed offset in
``run``, ``sweep`` and ``reproduce``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from lejepa_wm.config import SCALES
from lejepa_wm.device import DEVICE_CHOICES
from lejepa_wm.sweep.driver import DEFAULT_OUT

__all__ = ["common_options", "path_argument"]

_SEED_HELP = ("seed offset S (default: 0), added to every run's seed: a synthetic experiment's runs use seeds "
             "first_seed + S, first_seed + S + 1, ... (first_seed is a config key, 0 unless the config sets "
             "it; `run --print-config` shows it); Reacher's data world w uses data seed S + w and its models "
             "seeds S + w * seeds onwards. `run --dry-run` lists a launch's runs")

_COMMON: dict[str, dict[str, Any]] = {
    "scale": {"choices": SCALES, "default": "quick", "help": "experiment scale (default: quick)"},
    "seed": {"type": int, "default": 0, "help": _SEED_HELP},
    "out": {"type": Path, "default": DEFAULT_OUT, "help": f"results root (default: {DEFAULT_OUT})"},
    "device": {"choices": DEVICE_CHOICES, "default": "cpu", "help": "torch device (default: cpu)"},
    "config": {"type": Path, "default": None, "help": "TOML file overriding the experiment's defaults"},
    "tensorboard": {"type": Path, "default": None, "metavar": "DIR",
                    "help": "also log every executed run's training curves for TensorBoard in "
                            "DIR/EXPERIMENT/SCALE/RUN_ID (`tensorboard --logdir DIR`; needs the tensorboard "
                            "package: pip install 'lejepa-wm[tensorboard]')"},
}
"""The shared options (``--NAME``) and their declarations."""


def common_options(*names: str) -> argparse.ArgumentParser:
    """A parent parser holding the shared options ``names`` (keys of :data:`_COMMON`), in that order."""
    parent = argparse.ArgumentParser(add_help=False)
    for name in names:
        parent.add_argument(f"--{name}", **_COMMON[name])
    return parent


def path_argument(text: str) -> Path:
    """The type of every path option: a ``Path``, refusing the empty string (which would mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is an empty path; give a file or folder name")
    return Path(text)
