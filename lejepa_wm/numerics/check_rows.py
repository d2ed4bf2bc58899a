"""Small constructors for rows of the ``verify`` table (:class:`lejepa_wm.records.CheckResult`) and the worst
value of a table of measurements.

``lejepa-wm verify`` runs every check module with one BLAS thread (the checks
multiply small matrices; a multi-threaded BLAS on a busy machine only adds
contention), so the modules themselves do not limit threads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lejepa_wm.records import Bound, CheckResult


def _bounded(claim: str, name: str, what: str, value: float, bound: Bound,
             details: dict[str, Any] | None) -> CheckResult:
    value = float(value)
    return CheckResult.compare(claim, name, f"{what} = {value:.3g}", value, bound, details, quantity=what)


def at_most(claim: str, name: str, what: str, value: float, tolerance: float,
            details: dict[str, Any] | None = None) -> CheckResult:
    """Row that passes iff ``value <= tolerance`` (``value`` is an error, deficit or ratio named by ``what``)."""
    return _bounded(claim, name, what, value, Bound.at_most(tolerance), details)


def at_least(claim: str, name: str, what: str, value: float, threshold: float,
             details: dict[str, Any] | None = None) -> CheckResult:
    """Row that passes iff ``value >= threshold`` (a margin that must stay positive, a p-value)."""
    return _bounded(claim, name, what, value, Bound.at_least(threshold), details)


def worst(table: Mapping[Any, Mapping[str, float]], *keys: str,
          pick: Callable[[list[float]], float] = max) -> float:
    """``pick`` (the largest by default) of the values under ``keys`` in the entries of ``table`` that have them."""
    return pick([entry[key] for entry in table.values() for key in keys if key in entry])
