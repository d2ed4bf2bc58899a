"""Small constructors for rows of the ``verify`` table (:class:`lejepa_wm.records.CheckResult`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from threadpoolctl import threadpool_limits

from lejepa_wm.records import Bound, CheckResult


def at_most(claim: str, name: str, what: str, value: float, tolerance: float,
            details: dict[str, Any] | None = None) -> CheckResult:
    """Row that passes iff ``value <= tolerance`` (``value`` is an error, deficit or ratio named by ``what``)."""
    value = float(value)
    return CheckResult.compare(claim, name, f"{what} = {value:.3g}", value, Bound.at_most(tolerance), details,
                               quantity=what)


def at_least(claim: str, name: str, what: str, value: float, threshold: float,
             details: dict[str, Any] | None = None) -> CheckResult:
    """Row that passes iff ``value >= threshold`` (a margin that must stay positive, a p-value)."""
    value = float(value)
    return CheckResult.compare(claim, name, f"{what} = {value:.3g}", value, Bound.at_least(threshold), details,
                               quantity=what)


def holds(claim: str, name: str, measured: str, passed: bool, condition: str, value: float | None = None,
          quantity: str | None = None, details: dict[str, Any] | None = None) -> CheckResult:
    """Row for a verdict that is a logical combination of several computed facts, stated in ``condition``.

    ``value`` (named by ``quantity``) is a number worth showing beside the verdict; it is not what decides it.
    """
    return CheckResult.logical(claim, name, measured, passed, condition, value, details, quantity)


def single_threaded_blas(run_checks: Callable[[], list[CheckResult]]) -> Callable[[], list[CheckResult]]:
    """Run a check module's ``run_checks`` with the BLAS thread pool limited to one thread.

    The checks multiply small matrices; on a shared 2-core machine a
    multi-threaded BLAS spins for cores it does not get and runs them 10-70x
    slower than one thread does (measured with OpenBLAS 0.3.31).
    """

    @functools.wraps(run_checks)
    def wrapper() -> list[CheckResult]:
        with threadpool_limits(limits=1, user_api="blas"):
            return run_checks()

    return wrapper
