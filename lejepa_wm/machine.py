"""The machine a computation runs on: CPU model, usable cores, GPUs, and the record a run keeps of it.

The CPU model comes from ``/proc/cpuinfo`` where it exists (else
:func:`platform.processor`), the usable cores from the scheduler affinity, the
GPUs from torch (only if torch imports). Every finished run stores
:func:`run_machine` in its ``metrics.json`` (key ``machine``), so that results
computed in parts, on different machines, say which ran where.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any, Mapping

from lejepa_wm.device import select_device

__all__ = ["cpu_model", "usable_cores", "gpus", "run_machine", "describe_machine"]


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
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def gpus() -> list[str]:
    """Names of the CUDA devices torch sees (empty if none, or if torch is missing)."""
    try:
        import torch
    except ImportError:
        return []
    if not torch.cuda.is_available():
        return []
    return [torch.cuda.get_device_name(index) for index in range(torch.cuda.device_count())]


def run_machine(device: str) -> dict[str, Any]:
    """What a run records of its machine: the torch device it asked for and used, CPU model, usable cores, GPU."""
    used = select_device(device)
    record: dict[str, Any] = {"device": used.type, "cpu": cpu_model(), "cores": usable_cores()}
    if used.type == "cuda":
        import torch

        record["gpu"] = torch.cuda.get_device_name(used)
    return record


def describe_machine(record: Any) -> str:
    """One line for a run's machine record, e.g. ``"AMD EPYC, 2 cores, CPU"``; ``"not recorded"`` without one."""
    if not isinstance(record, Mapping):
        return "not recorded"
    where = f"GPU {record['gpu']}" if record.get("gpu") else str(record.get("device", "?")).upper()
    return f"{record.get('cpu', 'unknown CPU')}, {record.get('cores', '?')} cores, {where}"
