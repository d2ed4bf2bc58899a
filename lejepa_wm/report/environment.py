"""The machine and software a report was produced with.

Versions come from :mod:`importlib.metadata` (the installed distributions, not
the source tree), the CPU model from ``/proc/cpuinfo`` where it exists (else
:func:`platform.processor`), the usable cores from the scheduler affinity, the
GPU from torch (only if torch imports), and the load average from
:func:`os.getloadavg` (so that a run time is read beside how busy the machine was).
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = ("lejepa-wm", "numpy", "scipy", "sympy", "matplotlib", "torch", "tqdm", "pillow")


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Installed version of each distribution, or ``"not installed"``."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def cpu_model() -> str:
    """The CPU's model name (Linux ``/proc/cpuinfo``), else what :mod:`platform` reports."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown"


def usable_cores() -> int:
    """Cores this process may run on (scheduler affinity where supported)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def gpus() -> list[str]:
    """Names of the CUDA devices torch sees (empty if none, or if torch is missing)."""
    try:
        import torch
    except ImportError:
        return []
    if not torch.cuda.is_available():
        return []
    return [torch.cuda.get_device_name(index) for index in range(torch.cuda.device_count())]


def load_average() -> list[float] | None:
    """The system's load average over 1, 5 and 15 minutes (``None`` where the platform has none)."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def collect_environment() -> dict[str, Any]:
    """Python, platform, package versions, CPU model and cores, GPUs, and the machine's load right now."""
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "packages": package_versions(),
        "cpu": cpu_model(),
        "cores": usable_cores(),
        "gpus": gpus(),
        "load_average": load_average(),
    }
