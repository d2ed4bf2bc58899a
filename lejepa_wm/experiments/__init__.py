"""Experiments with trained encoders that test the theory's predictions.

Every experiment is a module of this package that defines ``EXPERIMENT``, an
object satisfying :class:`lejepa_wm.experiments.base.Experiment`. The names
below are what ``lejepa-wm run NAME`` and ``lejepa-wm sweep NAME`` accept;
modules are imported only when an experiment is used.
"""

from __future__ import annotations

import importlib

from lejepa_wm.experiments.base import Experiment

SYNTHETIC_EXPERIMENTS: tuple[str, ...] = ("scaling", "distribution", "anisotropic", "bounds", "output_dim")
EXPERIMENT_MODULES: dict[str, str] = {name: f"lejepa_wm.experiments.{name}"
                                      for name in (*SYNTHETIC_EXPERIMENTS, "reacher")}


def get_experiment(name: str) -> Experiment:
    """Import and return the experiment called ``name`` (``ValueError`` names unknown ones)."""
    if name not in EXPERIMENT_MODULES:
        raise ValueError(f"unknown experiment {name!r}; expected one of {', '.join(EXPERIMENT_MODULES)}")
    return importlib.import_module(EXPERIMENT_MODULES[name]).EXPERIMENT
