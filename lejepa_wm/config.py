"""Typed, validated experiment configuration.

An experiment describes its settings as a frozen dataclass; its defaults for
each scale live in a TOML file with one table per scale (``[quick]``,
``[full]``). :func:`config_from_mapping` builds the dataclass from a mapping and
rejects unknown keys and values of the wrong type with an error that names the
key and the value; range checks belong in the dataclass's ``__post_init__``.
"""

from __future__ import annotations

import dataclasses
import tomllib
import typing
from pathlib import Path
from typing import Any, Mapping, TypeVar

T = TypeVar("T")

SCALES = ("quick", "full")


def _coerce(key: str, value: Any, annotation: Any) -> Any:
    """Check ``value`` against a (simple) type annotation; lists become tuples."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        errors = []
        for option in args:
            if option is type(None) and value is None:
                return None
            try:
                return _coerce(key, value, option)
            except (TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise TypeError(f"config key {key!r}: value {value!r} matches none of {annotation}")
    if origin in (tuple, list):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"config key {key!r} must be a list; got {value!r}")
        item_type = args[0] if args else Any
        return tuple(_coerce(key, item, item_type) for item in value)
    if annotation is Any:
        return value
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"config key {key!r} must be a number; got {value!r}")
        return float(value)
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"config key {key!r} must be an integer; got {value!r}")
        return value
    if annotation is bool:
        if not isinstance(value, bool):
            raise TypeError(f"config key {key!r} must be true or false; got {value!r}")
        return value
    if annotation is str:
        if not isinstance(value, str):
            raise TypeError(f"config key {key!r} must be a string; got {value!r}")
        return value
    return value


def config_from_mapping(cls: type[T], mapping: Mapping[str, Any]) -> T:
    """Build dataclass ``cls`` from ``mapping``; unknown keys and wrong types raise ``ValueError``."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(mapping) - set(fields))
    if unknown:
        raise ValueError(
            f"unknown config key(s) {', '.join(map(repr, unknown))} for {cls.__name__}; "
            f"known keys: {', '.join(sorted(fields))}"
        )
    hints = typing.get_type_hints(cls)
    values = {}
    for key, value in mapping.items():
        try:
            values[key] = _coerce(key, value, hints[key])
        except TypeError as exc:
            raise ValueError(str(exc)) from None
    return cls(**values)


def load_scaled_config(cls: type[T], defaults: Path, scale: str, path: Path | None = None,
                       overrides: Mapping[str, Any] | None = None) -> T:
    """Load ``cls`` from the ``[scale]`` table of ``defaults``, then a user file, then overrides.

    The user file (``path``) may hold either flat keys or its own ``[quick]``/``[full]``
    tables; its keys replace the defaults'.
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; expected one of {', '.join(SCALES)}")
    with open(defaults, "rb") as handle:
        table = tomllib.load(handle)
    merged: dict[str, Any] = dict(table.get("common", {}))
    merged.update(table.get(scale, {}))
    if path is not None:
        with open(path, "rb") as handle:
            user = tomllib.load(handle)
        if any(key in user for key in SCALES + ("common",)):
            stray = sorted(set(user) - set(SCALES) - {"common"})
            if stray:
                raise ValueError(f"config file {path} mixes scale tables with top-level keys {stray}")
            merged.update(user.get("common", {}))
            merged.update(user.get(scale, {}))
        else:
            merged.update(user)
    if overrides:
        merged.update(overrides)
    return config_from_mapping(cls, merged)
