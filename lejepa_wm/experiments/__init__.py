"""Experiments with trained encoders that test the theory's predictions, and the registry that names them.

Every experiment is a module that defines ``EXPERIMENT``, an object satisfying
:class:`lejepa_wm.experiments.base.Experiment`. :data:`EXPERIMENT_MODULES` maps
each name that ``lejepa-wm run NAME``, ``lejepa-wm sweep NAME`` and the report
know to the module that defines it; modules are imported only when an
experiment is used, and a worker in another process imports it from that path.

A user's own experiment joins them in one of two ways:

- :func:`register_experiment` (``register_experiment("my_world", "my_pkg.my_world")``)
  in the process that runs it, e.g. a script that then calls
  :func:`lejepa_wm.sweep.driver.run_sweep`;
- an entry point of the group :data:`_ENTRY_POINT_GROUP` in the user's
  package metadata (``my_world = "my_pkg.my_world"``), which makes
  ``lejepa-wm run my_world`` work from the command line.

A world kind that runs store in ``spec.json`` (``{"kind": ..., **fields}``) is
registered with :func:`lejepa_wm.experiments.worlds.register_world`, so a run
can be rebuilt from its files.
"""

from __future__ import annotations

import importlib
import re
from importlib.metadata import entry_points

from lejepa_wm.experiments.base import Experiment

__all__ = [
    "SYNTHETIC_EXPERIMENTS", "EXPERIMENT_MODULES", "register_experiment", "registered_experiments", "get_experiment"
]

SYNTHETIC_EXPERIMENTS: tuple[str, ...] = ("scaling", "distribution", "anisotropic", "bounds", "output_dim")
EXPERIMENT_MODULES: dict[str, str] = {name: f"lejepa_wm.experiments.{name}"
                                      for name in (*SYNTHETIC_EXPERIMENTS, "reacher")}
_ENTRY_POINT_GROUP = "lejepa_wm.experiments"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def register_experiment(name: str, module: str) -> None:
    """Make the experiment ``EXPERIMENT`` of the importable ``module`` known as ``name``.

    ``name`` is lower-case letters, digits and underscores (it names a results
    folder); ``module`` a dotted module path. The module is imported now, so a
    mistake is found here: ``ValueError`` names a bad name, a name already taken
    by another module, a module that cannot be imported, and one whose
    ``EXPERIMENT`` lacks what :class:`~lejepa_wm.experiments.base.Experiment`
    requires or is named otherwise.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"experiment name {name!r} must be lower-case letters, digits and underscores, "
                         "starting with a letter")
    if not isinstance(module, str) or not _MODULE.match(module):
        raise ValueError(f"experiment module {module!r} must be a dotted module path (e.g. 'my_pkg.my_world')")
    if EXPERIMENT_MODULES.get(name, module) != module:
        raise ValueError(f"experiment {name!r} is already registered (module {EXPERIMENT_MODULES[name]!r})")
    experiment = _load(name, module)
    if experiment.name != name:
        raise ValueError(f"module {module!r} defines experiment {experiment.name!r}, not {name!r}")
    EXPERIMENT_MODULES[name] = module


def _load(name: str, module: str) -> Experiment:
    """The ``EXPERIMENT`` of ``module``, checked against the protocol; ``ValueError`` says what is wrong."""
    try:
        experiment = importlib.import_module(module).EXPERIMENT
    except ImportError as exc:
        raise ValueError(f"experiment {name!r}: module {module!r} cannot be imported: {exc}") from None
    except AttributeError:
        raise ValueError(f"experiment {name!r}: module {module!r} defines no EXPERIMENT") from None
    if not isinstance(experiment, Experiment):
        missing = [member for member in ("name", "description", "load_config", "grid", "execute", "aggregate")
                   if not hasattr(experiment, member)]
        raise ValueError(f"experiment {name!r}: EXPERIMENT of {module!r} lacks {', '.join(missing)}")
    return experiment


def _entry_point_modules() -> dict[str, str]:
    """Experiments that installed packages declare in the entry-point group :data:`_ENTRY_POINT_GROUP`."""
    return {point.name: point.value.split(":")[0] for point in entry_points(group=_ENTRY_POINT_GROUP)}


def registered_experiments() -> dict[str, str]:
    """Every experiment name with its module: the package's, those of entry points and those registered here."""
    return {**_entry_point_modules(), **EXPERIMENT_MODULES}


def get_experiment(name: str) -> Experiment:
    """Import and return the experiment called ``name`` (``ValueError`` names unknown ones).

    An experiment declared only by an entry point is registered on first use.
    """
    if name not in EXPERIMENT_MODULES and name in (declared := _entry_point_modules()):
        register_experiment(name, declared[name])
    if name not in EXPERIMENT_MODULES:
        raise ValueError(f"unknown experiment {name!r}; expected one of {', '.join(registered_experiments())}")
    return importlib.import_module(EXPERIMENT_MODULES[name]).EXPERIMENT
