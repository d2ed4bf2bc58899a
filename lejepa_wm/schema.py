"""Reading data into the package's typed records: one rule, one place, validated once.

Every value that enters from a file (a config's TOML, a run's ``spec.json`` and
``metrics.json``, ``headline.json``, ``verify.json``, ``reproduce.json``) or
from the command line's ``KEY=VALUE`` settings is read by :func:`read` into the
frozen dataclass (or type) that holds it. pydantic (v2) checks the data against
the class's annotations strictly, as JSON data: a number is never read from a
string, ``true`` is not a number, an integer field refuses ``1.5``, a list
becomes a tuple where the field is one, nested records are built field by
field, and a missing field is named. Keys a class does not have are passed
over (a stored record may come from a newer writer); configs refuse them
(:func:`lejepa_wm.config.config_from_mapping`). Constraints on one field are
in its annotation (``Annotated[float, Field(ge=0, allow_inf_nan=False)]``,
``Literal["ok", "failed"]``); the class's own ``__post_init__`` then checks
relations between fields. :class:`Record` gives a record ``to_dict`` and
``from_dict``.

Whatever fails is one ``ValueError`` naming what was read, the field
(``train.lr``, ``[3].bound.value``) and the bad value. Inside the package,
functions trust the typed values they are given.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import Required, TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

__all__ = ["read", "check_fields", "Record", "Finite", "NonNegative", "Positive", "PositiveInt", "UnitInterval",
           "HistoryRow", "RunMetrics"]

_T = TypeVar("_T")

_MISSING = ("missing", "missing_argument")


_adapter = functools.cache(TypeAdapter)  # the validator of a type, built once


def _item_and_field(location: tuple[int | str, ...]) -> tuple[str, str]:
    """``(3, 'bound', 'value')`` as ``("[3]", "bound.value")``: the item of a list read, and the field in it."""
    index = next((i for i, part in enumerate(location) if not isinstance(part, int)), len(location))
    field = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location[index:])
    return "".join(f"[{part}]" for part in location[:index]), field.lstrip(".")


def _problem(error: Any, where: str) -> str:
    """One of pydantic's errors (not a missing field) in words: the field, what is wrong, and the value."""
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "value_error":
        return f"{where}: {message}" if where else message
    subject = f"field {where!r}" if where else "the data"
    return f"{subject} {message.replace('Input should', 'must', 1)}; got {error['input']!r}"


def read(kind: type[_T] | Any, data: Any, what: str) -> _T:
    """``data`` (parsed JSON or TOML: dicts, lists, numbers, strings) as ``kind``, strictly validated.

    ``kind`` is a dataclass, or a type built of them (``list[HeadlineEntry]``,
    ``float | None``, ``dict[str, Any]``). ``ValueError`` names ``what``, each
    bad field and its value; data that is not JSON data at all (a TOML date, a
    Python object) is refused the same way.
    """
    try:
        text = json.dumps(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} is not JSON data: {exc}") from None
    try:
        return _adapter(kind).validate_json(text, strict=True)
    except ValidationError as exc:
        problems: dict[str, list[str]] = {}  # item -> what is wrong with it
        missing: dict[str, list[str]] = {}
        for error in exc.errors():
            item, where = _item_and_field(error["loc"])
            if error["type"] in _MISSING:
                missing.setdefault(item, []).append(repr(where))
            else:
                problems.setdefault(item, []).append(_problem(error, where))
        for item, names in missing.items():
            problems.setdefault(item, []).insert(0, f"lacks the field{'s' * (len(names) > 1)} {', '.join(names)}")
        raise ValueError("; ".join(f"{what}{item}: {'; '.join(found)}" for item, found in problems.items())) from None


def _plain(value: Any) -> Any:
    """A field as JSON data: a record as its ``to_dict``, a tuple as a list of such, a dict copied."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return dict(value) if isinstance(value, dict) else value


def _constrains(hint: Any) -> bool:
    """Whether the annotation ``hint`` constrains a value: ``Annotated``, ``Literal``, or a union holding one."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(map(_constrains, get_args(hint)))
    return origin in (Annotated, Literal)


@functools.cache
def _constrained_fields(cls: type) -> tuple[tuple[str, TypeAdapter], ...]:
    """The fields of dataclass ``cls`` whose annotation constrains their value, each with the validator of that
    annotation."""
    hints = get_type_hints(cls, include_extras=True)
    return tuple((item.name, TypeAdapter(hints[item.name])) for item in dataclasses.fields(cls)
                 if _constrains(hints[item.name]))


def check_fields(record: Any) -> None:
    """Check each number or string field of the dataclass ``record`` whose annotation constrains it (a range, a
    choice) against that annotation, so a record built in Python meets the rules a file read by :func:`read`
    meets; ``ValueError`` names the field and the value."""
    for name, adapter in _constrained_fields(type(record)):
        value = getattr(record, name)
        if not isinstance(value, (int, float, str)):  # a number or a choice: a nested record checks itself
            continue
        try:
            adapter.validate_python(value)
        except ValidationError as exc:
            raise ValueError("; ".join(_problem(error, name) for error in exc.errors())) from None


class Record:
    """``to_dict``/``from_dict`` of a frozen dataclass record: ``to_dict`` writes every field in order (a nested
    record by its own ``to_dict``), then the properties named in ``_for_readers`` (written for readers of the file,
    recomputed, never read back); ``from_dict`` reads the fields back with :func:`read`, naming ``_what`` and the
    field. Built in Python, a record checks its constrained fields (:func:`check_fields`); a subclass's own
    ``__post_init__`` calls this one first."""

    _what = "record"
    _for_readers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_fields(self)

    def to_dict(self) -> dict[str, Any]:
        names = [item.name for item in dataclasses.fields(self)] + list(self._for_readers)  # type: ignore[arg-type]
        return {name: _plain(getattr(self, name)) for name in names}

    @classmethod
    def from_dict(cls, data: Any) -> Any:
        return read(cls, data, cls._what)


# A field's constraints, in its annotation: a finite number; a finite number >= 0 (seconds, a standard error); a
# finite number > 0; an integer >= 1 (a count or a width); a finite number in [0, 1] (a fraction).
Finite = Annotated[float, Field(allow_inf_nan=False)]
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(ge=1)]
UnitInterval = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
_Count = Annotated[int, Field(ge=0)]


class HistoryRow(TypedDict, total=False):
    """One row of a run's training history: its ``step`` and, where it was evaluated, the ``seconds`` of training
    so far; the evaluation's other keys are the experiment's own."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]

    step: Required[_Count]
    seconds: NonNegative


class RunMetrics(TypedDict, total=False):
    """The keys every run's ``metrics.json`` may hold with a fixed type: those ``execute_run`` adds and those
    every synthetic run reports. An experiment's other keys are its own, passed over unchecked."""

    __pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[misc]

    run_id: str
    split: str | None
    machine: dict[str, Any] | None
    wall_time_s: NonNegative
    cpu_time_s: NonNegative
    train_seconds: NonNegative
    data_seconds: NonNegative
    baseline_seconds: NonNegative
    seconds_to_target: NonNegative | None
    steps: _Count
    steps_to_target: _Count | None
    resumed_from: _Count | None
    probe_r2: float
    validation_r2: float
    raw_observation_r2: float
    residual_ratio: float
    procrustes_error: float
    scale_free_error: float
    orthogonality_error: float
    embedding_std: float
    history: list[HistoryRow]
