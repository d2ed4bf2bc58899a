"""Validation of user-facing inputs: every bad value raises ``ValueError`` naming it.

What this machine lacks (a CUDA device, a SLURM cluster, a rendering back-end,
an optional package) raises :class:`EnvironmentUnavailable`. These, with
``OSError`` for a path, are the failures a user can fix; the command line
reports them in one line (exit status 2), and any other exception as a bug.
"""

from __future__ import annotations

import math
import numbers
import tempfile
from pathlib import Path
from typing import Any, Callable

__all__ = [
    "EnvironmentUnavailable", "check_number", "check_positive", "check_rho", "check_positive_int",
    "check_nonnegative_int", "check_choice", "check_writable_dir"
]


class EnvironmentUnavailable(RuntimeError):
    """This machine lacks what was asked for: the message names what is missing and how to get it."""


def check_number(value: Any, name: str, valid: Callable[[float], bool], rule: str) -> float:
    """``value`` as a float if it is a finite real number (``true``/``false`` are not) for which ``valid`` holds;
    else ``ValueError`` naming it, and the rule (``rule``: "be >= 0", "lie in [0, 1]", ...) it breaks."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    if not valid(value):
        raise ValueError(f"{name} must {rule}; got {value!r}")
    return float(value)


def check_positive(value: Any, name: str) -> float:
    """``value`` as a float if it is a finite number > 0, else ``ValueError`` naming it."""
    return check_number(value, name, lambda number: number > 0, "be a positive number")


def check_rho(rho: float, name: str = "rho") -> float:
    """Return ``rho`` as a float if it is a finite number in the open interval (0, 1), else raise."""
    return check_number(rho, name, lambda value: 0 < value < 1, "lie in the open interval (0, 1)")


def check_positive_int(value: int, name: str) -> int:
    """Return ``value`` if it is an integer >= 1, else raise naming the value."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return value


def check_nonnegative_int(value: int, name: str) -> int:
    """Return ``value`` if it is an integer >= 0, else raise naming the value."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {value!r}")
    return value


def check_choice(value: str, choices: tuple[str, ...] | list[str], name: str) -> str:
    """Return ``value`` if it is one of ``choices``, else raise listing them."""
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; expected one of {', '.join(map(repr, choices))}")
    return value


def check_writable_dir(folder: Path, what: str) -> Path:
    """Create ``folder`` if needed and make sure a file can be written in it; ``ValueError`` says why not."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{what} {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise ValueError(f"{what} {folder} is not writable: {exc.strerror or exc}") from None
    return folder
