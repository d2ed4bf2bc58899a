"""Small constructors for rows of the ``verify`` table (:class:`lejepa_wm.records.CheckResult`) and the worst
value of a table of measurements (or of a running record of them).

``lejepa-wm verify`` runs every check module with one BLAS thread (the checks
multiply small matrices; a multi-threaded BLAS on a busy machine only adds
contention), so the modules themselves do not limit threads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from lejepa_wm.records import Bound, CheckResult

__all__ = ["at_most", "at_least", "worst", "keep_worst"]


def at_most(claim: str, name: str, what: str, value: float, tolerance: float,
            details: dict[str, Any] | None = None, fmt: str = ".3g", prefix: str = "") -> CheckResult:
    """Row that passes iff ``value <= tolerance`` (``value`` is an error, deficit or ratio named by ``what``);
    measured as ``prefix + what = value``, the value in format ``fmt``."""
    return CheckResult.compare(claim, name, f"{prefix}{what} = {float(value):{fmt}}", value, Bound.at_most(tolerance),
                               details, quantity=what)


def at_least(claim: str, name: str, what: str, value: float, threshold: float,
             details: dict[str, Any] | None = None, fmt: str = ".3g", prefix: str = "") -> CheckResult:
    """Row that passes iff ``value >= threshold`` (a margin that must stay positive, a p-value)."""
    return CheckResult.compare(claim, name, f"{prefix}{what} = {float(value):{fmt}}", value,
                               Bound.at_least(threshold), details, quantity=what)


def worst(table: Mapping[Any, Mapping[str, float]], *keys: str,
          pick: Callable[[list[float]], float] = max) -> float:
    """``pick`` (the largest by default) of the values under ``keys`` in the entries of ``table`` that have them."""
    return pick([entry[key] for entry in table.values() for key in keys if key in entry])


def keep_worst(table: MutableMapping[str, float], key: str, value: float,
               pick: Callable[[float, float], float] = max) -> None:
    """Keep in ``table[key]`` the worst value seen: the largest error or violation (``pick=max``), the smallest
    gap or margin (``min``)."""
    table[key] = pick(table[key], float(value))
