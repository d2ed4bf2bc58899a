"""Validation of user-facing inputs: every bad value raises ``ValueError`` naming it."""

from __future__ import annotations

import math


def check_rho(rho: float, name: str = "rho") -> float:
    """Return ``rho`` as a float if it lies in the open interval (0, 1), else raise."""
    value = float(rho)
    if not (0.0 < value < 1.0) or math.isnan(value):
        raise ValueError(f"{name} must lie in the open interval (0, 1); got {rho!r}")
    return value


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
