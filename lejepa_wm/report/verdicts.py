"""Verdicts computed from the numbers.

A check row (from ``verify.json``) or an experiment headline entry records a
measured ``value``, the bound it must satisfy as text (``tolerance`` or
``expected``, e.g. ``"<= 1e-10"``, ``"R² > 0.999"``, ``"in [0.9, 1.1]"``) and the
verdict its producer computed (``passed``). The report recomputes the verdict
from the value and the bound whenever the bound is one of these simple forms,
so a result file whose numbers contradict its recorded verdict is caught: the
row then counts as failed, with a note saying why. Bounds in any other form
(prose, formulas) cannot be re-evaluated and the recorded verdict is used.
An experiment entry whose ``passed`` is ``null`` is a measurement outside the
scope of any theorem (no prediction to test): it is shown as ``measured`` and
takes no part in verdicts.
Comparisons are exact float comparisons of the stored numbers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

HELD = "held"
FAILED = "failed"
NOT_RUN = "not run"
MEASURED = "measured"

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_COMPARISON = re.compile(rf"^[^<>=≤≥]*?(<=|>=|==|<|>|≤|≥|=)\s*({_NUMBER})\s*$")
_INTERVAL = re.compile(rf"^\s*(?:in\s*)?\[\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\]\s*$")
_OPERATORS = {
    "<=": lambda v, b: v <= b, "≤": lambda v, b: v <= b,
    ">=": lambda v, b: v >= b, "≥": lambda v, b: v >= b,
    "<": lambda v, b: v < b, ">": lambda v, b: v > b,
    "==": lambda v, b: v == b, "=": lambda v, b: v == b,
}


def satisfies(value: float, bound: str) -> bool | None:
    """Whether ``value`` satisfies the bound written as ``bound``; ``None`` if the form is not understood.

    Understood forms: ``[LABEL] OP NUMBER`` with OP one of ``<= >= < > == = ≤ ≥``
    (the optional label names the measured quantity, e.g. ``"R² ≥ 0.9"``) and
    ``[a, b]`` or ``in [a, b]`` (closed interval). A NaN value satisfies nothing.
    """
    match = _COMPARISON.match(bound)
    if match:
        return (not math.isnan(value)) and _OPERATORS[match.group(1)](value, float(match.group(2)))
    match = _INTERVAL.match(bound)
    if match:
        low, high = float(match.group(1)), float(match.group(2))
        return low <= value <= high
    return None


@dataclass(frozen=True)
class Verdict:
    """Outcome of one row: ``held`` or ``failed``, with a note when the numbers overrode the record."""

    status: str
    note: str | None = None


def judge(value: float | None, bound: str, recorded: bool | None) -> Verdict:
    """Verdict of one row from its value, its bound and the verdict its producer recorded.

    The row holds only if the recorded verdict is a pass *and*, where the bound
    can be evaluated, the value satisfies it. A disagreement is reported in the
    note so the reader sees which file is inconsistent.
    """
    if recorded is None:
        return Verdict(MEASURED)
    if not isinstance(recorded, bool):
        return Verdict(FAILED, f"recorded verdict {recorded!r} is not true/false")
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    computed = satisfies(float(value), bound) if is_number else None
    if computed is None or computed == recorded:
        return Verdict(HELD if recorded else FAILED)
    if recorded:
        return Verdict(FAILED, f"recorded as passed, but value {value!r} does not satisfy {bound!r}")
    return Verdict(FAILED, f"recorded as failed although value {value!r} satisfies {bound!r}")


def combine(statuses: list[str]) -> str:
    """Overall status of several parts: failed if any failed, else not run if any is missing, else held.

    ``measured`` parts (no prediction) are left out; a list of only those is
    ``measured``, and an empty list means nothing was run.
    """
    judged = [status for status in statuses if status != MEASURED]
    if not judged:
        return MEASURED if statuses else NOT_RUN
    statuses = judged
    if FAILED in statuses:
        return FAILED
    if NOT_RUN in statuses:
        return NOT_RUN
    return HELD
