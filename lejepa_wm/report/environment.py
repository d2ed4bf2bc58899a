"""The machine and software a report was produced with.

Versions come from :mod:`importlib.metadata` (the installed distributions, not
the source tree), the CPU model, usable cores and GPUs from
:mod:`lejepa_wm.machine`, and the load average from
:func:`os.getloadavg` (so that a run time is read beside how busy the machine was).
"""

from __future__ import annotations

import os
import platform
from importlib import metadata

from lejepa_wm.machine import cpu_model, gpus, usable_cores
from lejepa_wm.records import Environment

__all__ = ["collect_environment"]

_PACKAGES = ("lejepa-wm", "numpy", "scipy", "sympy", "matplotlib", "torch", "tqdm", "pillow")


def _version(name: str) -> str:
    """Installed version of the distribution, or ``"not installed"``."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _load_average() -> tuple[float, float, float] | None:
    """The system's load average over 1, 5 and 15 minutes (``None`` where the platform has none)."""
    try:
        one, five, fifteen = os.getloadavg()
        return round(one, 2), round(five, 2), round(fifteen, 2)
    except (AttributeError, OSError):
        return None


def collect_environment() -> Environment:
    """Python, platform, package versions, CPU model and cores, GPUs, and the machine's load right now."""
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "packages": {name: _version(name) for name in _PACKAGES},
        "cpu": cpu_model(),
        "cores": usable_cores(),
        "gpus": gpus(),
        "load_average": _load_average(),
    }
