"""The typed records every layer shares: written by one side, read back by another, defined once.

- :class:`Bound` — a comparison (``<=``, ``>=``, ``<``, ``>``) with a number, or a
  closed interval; it evaluates itself (:meth:`Bound.holds`, :meth:`Bound.margin`)
  and is stored as numbers, never as text to be parsed back.
- :class:`CheckResult` — one row of ``lejepa-wm verify``: a numerical check of a claim.
- :class:`HeadlineEntry` — one headline result of an experiment: which quantity was
  measured, its value, the bound a theorem predicts (``None``: a measurement outside
  any theorem's scope), its standard error over seeds, the split and the seeds.
- :class:`PartOutcome` — how one part of ``lejepa-wm reproduce`` ended.

Verdicts
--------
:func:`verdict_of` is the one rule: no bound → ``measured``; a missing or
non-finite value → ``failed``; with a standard error ``se``, a value whose signed
margin to the bound lies within ``2·se`` of zero is ``not resolved`` (the data
cannot tell which side it is on); otherwise ``held`` if the bound holds, else
``failed``. Comparisons are exact float comparisons of the stored numbers.

Every record has ``to_dict`` (plain JSON data) and ``from_dict``, which rejects
malformed data with a ``ValueError`` naming the field and the bad value;
:func:`records_from_list` reads a JSON list of them (``headline.json`` is a list
of ``HeadlineEntry.to_dict()`` objects) and names the index of a bad item.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TypeVar

T = TypeVar("T")

HELD = "held"
FAILED = "failed"
NOT_RUN = "not run"
MEASURED = "measured"
UNRESOLVED = "not resolved"
VERDICTS = (HELD, FAILED, UNRESOLVED, MEASURED, NOT_RUN)

COMPARISONS = ("<=", ">=", "<", ">")
INTERVAL = "in"
SYMBOLS = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}


def _number(value: Any, name: str, allow_none: bool = False) -> float | None:
    """``value`` as a float, or ``ValueError`` naming ``name`` (``None`` passes when allowed)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number; got {value!r}")
    return float(value)


def number_text(x: float) -> str:
    """The shortest ``%g`` form of ``x`` that reads back as exactly ``x`` (``1e-09``, ``0.999999999``, ``5``)."""
    for digits in range(6, 18):
        text = f"{x:.{digits}g}"
        if float(text) == x:
            return text
    return repr(x)


def _text(value: Any, name: str, allow_none: bool = False) -> str | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string; got {value!r}")
    return value


def _mapping(data: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must be a JSON object; got {type(data).__name__}")
    return data


def _require(data: Mapping[str, Any], keys: tuple[str, ...], what: str) -> None:
    missing = [key for key in keys if key not in data]
    if missing:
        raise ValueError(f"{what} lacks the field(s) {', '.join(missing)}")


def _standard_error(value: Any) -> float | None:
    se = _number(value, "standard_error", allow_none=True)
    if se is not None and not (math.isfinite(se) and se >= 0):
        raise ValueError(f"standard_error must be finite and non-negative; got {value!r}")
    return se


def records_from_list(data: Any, from_dict: Callable[[Any], T], what: str) -> list[T]:
    """Each item of the JSON list ``data`` read with ``from_dict``; ``ValueError`` names ``what[index]``."""
    if not isinstance(data, list):
        raise ValueError(f"{what} must be a JSON list; got {type(data).__name__}")
    records = []
    for index, item in enumerate(data):
        try:
            records.append(from_dict(item))
        except ValueError as exc:
            raise ValueError(f"{what}[{index}]: {exc}") from None
    return records


@dataclass(frozen=True)
class Bound:
    """``quantity OP value`` (``OP`` in ``<= >= < >``), or ``quantity in [value, upper]``."""

    op: str
    value: float
    upper: float | None = None

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS + (INTERVAL,):
            raise ValueError(f"bound operator must be one of {COMPARISONS + (INTERVAL,)}; got {self.op!r}")
        if not math.isfinite(_number(self.value, "bound value")):
            raise ValueError(f"bound value must be finite; got {self.value!r}")
        if self.op == INTERVAL:
            upper = _number(self.upper, "bound upper end")
            if not (math.isfinite(upper) and upper >= self.value):
                raise ValueError(f"interval [{self.value!r}, {self.upper!r}] must be finite and ordered")
        elif self.upper is not None:
            raise ValueError(f"only an interval bound has an upper end; got {self.op!r} with {self.upper!r}")

    @classmethod
    def at_most(cls, value: float) -> "Bound":
        return cls("<=", float(value))

    @classmethod
    def at_least(cls, value: float) -> "Bound":
        return cls(">=", float(value))

    @classmethod
    def above(cls, value: float) -> "Bound":
        return cls(">", float(value))

    @classmethod
    def below(cls, value: float) -> "Bound":
        return cls("<", float(value))

    @classmethod
    def between(cls, low: float, high: float) -> "Bound":
        return cls(INTERVAL, float(low), float(high))

    def margin(self, x: float) -> float:
        """Signed distance of ``x`` from the boundary: positive inside, negative outside (NaN stays NaN)."""
        if self.op in ("<=", "<"):
            return self.value - x
        if self.op in (">=", ">"):
            return x - self.value
        return min(x - self.value, float(self.upper) - x)

    def holds(self, x: float) -> bool:
        """Whether ``x`` satisfies the bound (a NaN satisfies nothing)."""
        if math.isnan(x):
            return False
        if self.op in ("<", ">"):
            return self.margin(x) > 0
        return self.margin(x) >= 0

    def describe(self, quantity: str = "") -> str:
        """Readable form, e.g. ``R² ≥ 0.999`` or ``in [0.9, 1.1]``; numbers exact (never rounded to look equal)."""
        prefix = f"{quantity} " if quantity else ""
        if self.op == INTERVAL:
            return f"{prefix}in [{number_text(self.value)}, {number_text(float(self.upper))}]"
        return f"{prefix}{SYMBOLS[self.op]} {number_text(self.value)}"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"op": self.op, "value": self.value}
        if self.upper is not None:
            data["upper"] = self.upper
        return data

    @classmethod
    def from_dict(cls, data: Any) -> "Bound":
        data = _mapping(data, "bound")
        _require(data, ("op", "value"), "bound")
        return cls(str(data["op"]), _number(data["value"], "bound value"),
                   _number(data.get("upper"), "bound upper end", allow_none=True))


def verdict_of(value: float | None, bound: Bound | None, standard_error: float | None = None) -> str:
    """The verdict rule of the module docstring."""
    if bound is None:
        return MEASURED
    if value is None or not math.isfinite(value):
        return FAILED
    if standard_error is not None and math.isfinite(standard_error) and standard_error > 0:
        if abs(bound.margin(value)) <= 2.0 * standard_error:
            return UNRESOLVED
    return HELD if bound.holds(value) else FAILED


def combine(statuses: list[str]) -> str:
    """Overall status of several parts.

    ``failed`` if any failed, else ``not run`` if any is missing, else ``not
    resolved`` if any is unresolved, else ``held``. ``measured`` parts (no
    prediction) are left out; a list of only those is ``measured``, and an
    empty list means nothing was run.
    """
    judged = [status for status in statuses if status != MEASURED]
    if not judged:
        return MEASURED if statuses else NOT_RUN
    for status in (FAILED, NOT_RUN, UNRESOLVED):
        if status in judged:
            return status
    return HELD


@dataclass(frozen=True)
class CheckResult:
    """One numerical check of a claim (a row of ``lejepa-wm verify``).

    ``value`` is the headline number (an error, a ratio, a margin) and ``bound``
    what it must satisfy; then ``passed`` is computed from them
    (:meth:`compare`). A check that combines several facts logically has no
    numeric bound: ``condition`` states it in words and ``passed`` records it.
    ``measured`` says in words what was measured; ``quantity`` names what ``value``
    is (e.g. "max |E[H_a H_b] - delta_ab|"), so that a reader sees ``quantity =
    value`` against ``bound.describe(quantity)``; ``details`` keeps anything else
    worth storing (JSON data; a failed check module puts its traceback there).
    """

    claim: str
    name: str
    measured: str
    value: float | None
    bound: Bound | None
    passed: bool
    condition: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    quantity: str | None = None

    @classmethod
    def compare(cls, claim: str, name: str, measured: str, value: float, bound: Bound,
                details: dict[str, Any] | None = None, quantity: str | None = None) -> "CheckResult":
        """A row whose verdict is ``bound.holds(value)``."""
        value = float(value)
        return cls(claim, name, measured, value, bound, bound.holds(value), None, details or {}, quantity)

    @classmethod
    def logical(cls, claim: str, name: str, measured: str, passed: bool, condition: str,
                value: float | None = None, details: dict[str, Any] | None = None,
                quantity: str | None = None) -> "CheckResult":
        """A row whose verdict is a logical combination of computed facts, stated in ``condition``."""
        return cls(claim, name, measured, None if value is None else float(value), None, bool(passed),
                   condition, details or {}, quantity)

    @property
    def requirement(self) -> str:
        """What the value must satisfy, in words (the bound on the named quantity, or the condition)."""
        if self.bound is not None:
            return self.bound.describe(self.quantity or "")
        return self.condition or "-"

    def judged(self) -> tuple[str, str | None]:
        """``(verdict, note)``: recomputed from value and bound where there is one.

        A stored ``passed`` that contradicts the numbers fails the row, with a
        note naming the contradiction (a result file edited or written by a bug).
        """
        if self.bound is None:
            return (HELD if self.passed else FAILED), None
        computed = verdict_of(self.value, self.bound)
        if (computed == HELD) == self.passed:
            return computed, None
        if self.passed:
            return FAILED, f"recorded as passed, but value {self.value!r} does not satisfy {self.requirement}"
        return FAILED, f"recorded as failed although value {self.value!r} satisfies {self.requirement}"

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "name": self.name, "measured": self.measured, "value": self.value,
                "bound": None if self.bound is None else self.bound.to_dict(), "passed": self.passed,
                "condition": self.condition, "details": dict(self.details), "quantity": self.quantity}

    @classmethod
    def from_dict(cls, data: Any) -> "CheckResult":
        data = _mapping(data, "check result")
        _require(data, ("claim", "name", "measured", "value", "bound", "passed"), "check result")
        if not isinstance(data["passed"], bool):
            raise ValueError(f"check result field 'passed' must be true or false; got {data['passed']!r}")
        details = data.get("details") or {}
        if not isinstance(details, dict):
            raise ValueError(f"check result field 'details' must be an object; got {details!r}")
        return cls(_text(data["claim"], "claim"), _text(data["name"], "name"),
                   _text(data["measured"], "measured"), _number(data["value"], "value", allow_none=True),
                   None if data["bound"] is None else Bound.from_dict(data["bound"]), data["passed"],
                   _text(data.get("condition"), "condition", allow_none=True), details,
                   _text(data.get("quantity"), "quantity", allow_none=True))


@dataclass(frozen=True)
class HeadlineEntry:
    """One headline result of an experiment, judged by :func:`verdict_of`.

    ``quantity`` names what ``value`` is (e.g. "worst residual ratio (1 − R²)/(1 − R²_raw)
    over n"); ``bound`` is the theorem's prediction for it, or ``None`` for a
    measurement outside every theorem's scope (``scope`` then says why);
    ``standard_error`` is the value's standard error over ``seeds`` (``None`` with
    one seed). ``measured`` gives the supporting numbers in words; ``split`` names
    the sample every number comes from; ``figures`` are file names in the
    experiment's folder. ``precondition`` states, with its measured value, what
    the runs had to reach for the comparison to test the theorem at all (e.g.
    that training reached the optimum the theorem describes); when it is not
    met (``precondition_met`` false) the verdict is "not resolved", whatever the
    value.
    """

    claim: str
    name: str
    quantity: str
    value: float | None
    bound: Bound | None
    measured: str
    standard_error: float | None = None
    seeds: tuple[int, ...] = ()
    split: str = "test"
    scope: str | None = None
    paper: str | None = None
    figures: tuple[str, ...] = ()
    precondition: str | None = None
    precondition_met: bool = True

    @property
    def verdict(self) -> str:
        verdict = verdict_of(self.value, self.bound, self.standard_error)
        if verdict in (HELD, FAILED) and not self.precondition_met:
            return UNRESOLVED
        return verdict

    @property
    def requirement(self) -> str:
        """The prediction in words (the bound on the named quantity), or why there is none."""
        if self.bound is None:
            return self.scope or "no prediction (a measurement outside the theorem's scope)"
        if self.precondition is None:
            return self.bound.describe(self.quantity)
        met = "met" if self.precondition_met else "NOT met"
        return f"{self.bound.describe(self.quantity)}, provided that {self.precondition} ({met})"

    def judged(self, recorded: Any = None) -> tuple[str, str | None]:
        """``(verdict, note)`` given the verdict its file recorded (``None``: none recorded).

        The verdict is always recomputed (:attr:`verdict`); a recorded one that
        disagrees fails the entry, with a note naming both (a result file edited
        or written by a bug).
        """
        computed = self.verdict
        if recorded is None or recorded == computed:
            return computed, None
        if recorded not in VERDICTS:
            return FAILED, f"recorded verdict {recorded!r} is not one of {', '.join(VERDICTS)}"
        return FAILED, (f"recorded as {recorded!r}, but {self.quantity} = {self.value!r} against "
                        f"{self.requirement} is {computed!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON data; ``verdict`` is included for readers, and recomputed (not trusted) on reading."""
        return {"claim": self.claim, "name": self.name, "quantity": self.quantity, "value": self.value,
                "bound": None if self.bound is None else self.bound.to_dict(), "measured": self.measured,
                "standard_error": self.standard_error, "seeds": list(self.seeds), "split": self.split,
                "scope": self.scope, "paper": self.paper, "figures": list(self.figures),
                "precondition": self.precondition, "precondition_met": self.precondition_met,
                "verdict": self.verdict}

    @classmethod
    def from_dict(cls, data: Any) -> "HeadlineEntry":
        data = _mapping(data, "headline entry")
        _require(data, ("claim", "name", "quantity", "value", "bound", "measured"), "headline entry")
        seeds, figures = data.get("seeds") or [], data.get("figures") or []
        if not isinstance(seeds, list) or any(isinstance(s, bool) or not isinstance(s, int) for s in seeds):
            raise ValueError(f"headline entry field 'seeds' must be a list of integers; got {seeds!r}")
        if not isinstance(figures, list) or any(not isinstance(f, str) for f in figures):
            raise ValueError(f"headline entry field 'figures' must be a list of file names; got {figures!r}")
        return cls(_text(data["claim"], "claim"), _text(data["name"], "name"), _text(data["quantity"], "quantity"),
                   _number(data["value"], "value", allow_none=True),
                   None if data["bound"] is None else Bound.from_dict(data["bound"]),
                   _text(data["measured"], "measured"),
                   _standard_error(data.get("standard_error")), tuple(seeds),
                   _text(data.get("split", "test"), "split"), _text(data.get("scope"), "scope", allow_none=True),
                   _text(data.get("paper"), "paper", allow_none=True), tuple(figures),
                   _text(data.get("precondition"), "precondition", allow_none=True),
                   _flag(data.get("precondition_met", True), "precondition_met"))


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false; got {value!r}")
    return value


PART_STATUSES = ("ok", "failed")


@dataclass(frozen=True)
class PartOutcome:
    """How one part of ``lejepa-wm reproduce`` (``verify``, an experiment, ``report``) ended."""

    name: str
    kind: str
    status: str
    wall_time_s: float | None
    detail: str
    reused: bool = False
    error: str | None = None
    traceback: str | None = None

    def __post_init__(self) -> None:
        if self.status not in PART_STATUSES:
            raise ValueError(f"part status must be one of {PART_STATUSES}; got {self.status!r}")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "status": self.status, "wall_time_s": self.wall_time_s,
                "detail": self.detail, "reused": self.reused, "error": self.error, "traceback": self.traceback}

    @classmethod
    def from_dict(cls, data: Any) -> "PartOutcome":
        data = _mapping(data, "part record")
        _require(data, ("name", "kind", "status"), "part record")
        reused = data.get("reused", False)
        if not isinstance(reused, bool):
            raise ValueError(f"part record field 'reused' must be true or false; got {reused!r}")
        return cls(_text(data["name"], "name"), _text(data["kind"], "kind"), _text(data["status"], "status"),
                   _number(data.get("wall_time_s"), "wall_time_s", allow_none=True),
                   _text(data.get("detail", ""), "detail"), reused,
                   _text(data.get("error"), "error", allow_none=True),
                   _text(data.get("traceback"), "traceback", allow_none=True))
