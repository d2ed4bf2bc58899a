"""The typed records every layer shares: written by one side, read back by another, defined once.

- :class:`Bound` — a comparison (``<=``, ``>=``, ``<``, ``>``) with a number, or a
  closed interval; it evaluates itself (:meth:`Bound.holds`, :meth:`Bound.margin`)
  and is stored as numbers, never as text to be parsed back.
- :class:`CheckResult` — one row of ``lejepa-wm verify``: a numerical check of a claim.
- :class:`HeadlineEntry` — one headline result of an experiment: which quantity was
  measured, its value, the bound a theorem predicts (``None``: a measurement outside
  any theorem's scope), its standard error over seeds, the split and the seeds.
- :class:`VerifyRecord` — what ``verify.json`` holds: the check rows and their timings.
- :class:`PartOutcome` — how one part of ``lejepa-wm reproduce`` ended.
- :class:`ReproduceRecord` — what ``reproduce.json`` holds: the last reproduction, its
  machine (:class:`Environment`) and its parts, finished or not.

Verdicts
--------
:func:`verdict_of` is the one rule: no bound → ``measured``; a missing or
non-finite value → ``failed``; with a standard error ``se``, a value whose signed
margin to the bound lies within ``2·se`` of zero is ``not resolved`` (the data
cannot tell which side it is on); otherwise ``held`` if the bound holds, else
``failed``. Comparisons are exact float comparisons of the stored numbers.

Every record is a :class:`lejepa_wm.schema.Record`: ``to_dict`` (plain JSON data) and
``from_dict``, which reads it back with :func:`lejepa_wm.schema.read` (a ``ValueError``
naming the field and the bad value; constraints such as a finite number or a status
out of a list are in the field's type); ``read(list[HeadlineEntry], data, what)``
reads ``headline.json``, a list of them, naming the index of a bad item.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Mapping

from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

from lejepa_wm.schema import Finite, NonNegative, Record

__all__ = [
    "HELD", "FAILED", "NOT_RUN", "MEASURED", "UNRESOLVED", "VERDICTS", "number_text", "nonfinite_item", "Bound",
    "verdict_of", "combine",
    "CheckResult", "HeadlineEntry", "VerifyRecord", "PartOutcome", "Environment",
    "ReproduceRecord"
]

HELD = "held"
FAILED = "failed"
NOT_RUN = "not run"
MEASURED = "measured"
UNRESOLVED = "not resolved"
VERDICTS = (HELD, FAILED, UNRESOLVED, MEASURED, NOT_RUN)

_INTERVAL = "in"
_SYMBOLS = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}  # the comparisons a bound may make, and how each reads


def number_text(x: float) -> str:
    """The shortest ``%g`` form of ``x`` that reads back as exactly ``x`` (``1e-09``, ``0.999999999``, ``5``)."""
    for digits in range(6, 18):
        text = f"{x:.{digits}g}"
        if float(text) == x:
            return text
    return repr(x)


def nonfinite_item(data: Any, where: str = "") -> str | None:
    """Where in the JSON-like ``data`` a float is NaN or infinite (``"history[3].loss"``), or ``None``."""
    if isinstance(data, float) and not math.isfinite(data):
        return f"{where or 'the value'} = {data!r}"
    items = data.items() if isinstance(data, Mapping) else enumerate(data) if isinstance(data, (list, tuple)) else ()
    for key, value in items:
        found = nonfinite_item(value, f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}".lstrip("."))
        if found is not None:
            return found
    return None


def _comparison(op: str) -> Any:
    """The constructor ``Bound.<name>(value)`` of the bound ``quantity op value``."""
    return classmethod(lambda cls, value: cls(op, float(value)))


@dataclass(frozen=True)
class Bound(Record):
    """``quantity OP value`` (``OP`` in ``<= >= < >``), or ``quantity in [value, upper]``."""

    op: str
    value: Finite
    upper: Finite | None = None

    _what = "bound"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.op not in (*_SYMBOLS, _INTERVAL):
            raise ValueError(f"bound operator must be one of {(*_SYMBOLS, _INTERVAL)}; got {self.op!r}")
        if self.op == _INTERVAL:
            if self.upper is None or self.upper < self.value:
                raise ValueError(f"interval [{self.value!r}, {self.upper!r}] needs an upper end, at least its value")
        elif self.upper is not None:
            raise ValueError(f"only an interval bound has an upper end; got {self.op!r} with {self.upper!r}")

    at_most = _comparison("<=")
    at_least = _comparison(">=")
    above = _comparison(">")
    below = _comparison("<")

    @classmethod
    def between(cls, low: float, high: float) -> "Bound":
        return cls(_INTERVAL, float(low), float(high))

    def margin(self, x: float) -> float:
        """Signed distance of ``x`` from the boundary: positive inside, negative outside (NaN stays NaN)."""
        if self.op == _INTERVAL:
            return min(x - self.value, float(self.upper) - x)
        return self.value - x if self.op in ("<=", "<") else x - self.value

    def holds(self, x: float) -> bool:
        """Whether ``x`` satisfies the bound: a margin above 0 (strict ``<``, ``>``) or at least 0; NaN fails both."""
        return self.margin(x) > 0 if self.op in ("<", ">") else self.margin(x) >= 0

    def describe(self, quantity: str = "") -> str:
        """Readable form, e.g. ``R² ≥ 0.999`` or ``in [0.9, 1.1]``; numbers exact (never rounded to look equal)."""
        prefix = f"{quantity} " if quantity else ""
        if self.op == _INTERVAL:
            return f"{prefix}in [{number_text(self.value)}, {number_text(float(self.upper))}]"
        return f"{prefix}{_SYMBOLS[self.op]} {number_text(self.value)}"

    def to_dict(self) -> dict[str, Any]:
        """``op`` and ``value``, and ``upper`` for an interval."""
        return {key: value for key, value in asdict(self).items() if value is not None}


def verdict_of(value: float | None, bound: Bound | None, standard_error: float | None = None) -> str:
    """The verdict rule of the module docstring."""
    if bound is None:
        return MEASURED
    if value is None or not math.isfinite(value):
        return FAILED
    if standard_error and math.isfinite(standard_error) and abs(bound.margin(value)) <= 2.0 * standard_error:
        return UNRESOLVED  # (a standard error of 0 or below resolves nothing)
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
    return next((status for status in (FAILED, NOT_RUN, UNRESOLVED) if status in judged), HELD)


@dataclass(frozen=True)
class CheckResult(Record):
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

    _what = "check result"

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
        return self.bound.describe(self.quantity or "") if self.bound is not None else self.condition or "-"

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


@dataclass(frozen=True)
class HeadlineEntry(Record):
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
    standard_error: NonNegative | None = None
    seeds: tuple[int, ...] = ()
    split: str = "test"
    scope: str | None = None
    paper: str | None = None
    figures: tuple[str, ...] = ()
    precondition: str | None = None
    precondition_met: bool = True

    _what = "headline entry"
    _for_readers = ("verdict",)  # recomputed (not trusted) on reading

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


@dataclass(frozen=True)
class VerifyRecord(Record):
    """What ``verify.json`` holds: the rows of ``lejepa-wm verify``, each claim's seconds, and (once written) the
    wall time and the package version that wrote it (``lejepa-wm reproduce`` reuses a file of its own version).
    ``passed``, whether every row passed, is written for readers and recomputed on reading."""

    rows: tuple[CheckResult, ...]
    seconds_per_claim: dict[str, float] = field(default_factory=dict)
    wall_time_s: float | None = None
    package_version: str | None = None

    _what = "verify record"
    _for_readers = ("passed",)

    @property
    def passed(self) -> bool:
        return all(row.passed for row in self.rows)


@dataclass(frozen=True)
class PartOutcome(Record):
    """How one part of ``lejepa-wm reproduce`` (``verify``, an experiment, ``report``) ended."""

    name: str
    kind: str
    status: Literal["ok", "failed"]
    wall_time_s: float | None = None
    detail: str = ""
    reused: bool = False
    error: str | None = None
    traceback: str | None = None

    _what = "part record"

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Environment(TypedDict):
    """The machine a reproduction ran on (``lejepa_wm.report.environment.collect_environment``): Python, platform,
    package versions, CPU model and usable cores, GPUs, and the load average when it started (``None`` where the
    platform has none)."""

    python: str
    platform: str
    packages: dict[str, str]
    cpu: str
    cores: int
    gpus: list[str]
    load_average: tuple[float, float, float] | None


_WHEN_FINISHED = ("claims", "exit_status")


@dataclass(frozen=True)
class ReproduceRecord(Record):
    """What ``reproduce.json`` holds: the settings of the last ``lejepa-wm reproduce``, its machine, each finished
    part's outcome and the wall time so far; once it finished, ``finished_at``, every claim's verdict and the exit
    status (written only then, with ``all_claims_held``, which is recomputed on reading).

    A reproduction that has not finished has ``finished_at`` ``None``: ``current_part`` (``{"name", "kind"}``)
    names the part it is in, ``pid`` and ``host`` its process, and ``interrupted`` says why it stopped when it
    was stopped (Ctrl-C, SIGTERM); one that was killed says nothing, its process is gone.
    """

    package_version: str
    scale: str
    seed: int
    device: str
    fresh: bool
    strict: bool
    started_at: str
    pid: int
    host: str
    environment: Environment
    wall_time_s: NonNegative = 0.0
    parts: tuple[PartOutcome, ...] = ()
    current_part: dict[str, str] | None = None
    interrupted: str | None = None
    finished_at: str | None = None
    claims: dict[str, str] | None = None
    exit_status: int | None = None

    _what = "reproduce record"

    @property
    def all_claims_held(self) -> bool:
        return bool(self.claims) and all(status == HELD for status in self.claims.values())  # type: ignore[union-attr]

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        if self.finished_at is None:
            return {key: value for key, value in data.items() if key not in _WHEN_FINISHED}
        return {**data, "all_claims_held": self.all_claims_held}
