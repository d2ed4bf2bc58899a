"""Typed, validated experiment configuration.

An experiment describes its settings as a frozen dataclass; its defaults for
each scale live in a TOML file with one table per scale (``[quick]``,
``[full]``). :func:`config_from_mapping` refuses unknown keys and non-finite
numbers, then builds the dataclass with :func:`lejepa_wm.schema.read`, which
refuses values of the wrong type; every error names the key and the value.
A key's range or choices belongs in its annotation (``PositiveInt``,
``Literal[...]``: :mod:`lejepa_wm.schema`), relations between keys in the
dataclass's ``__post_init__``.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any, Mapping, TypeVar

from lejepa_wm.atomic import read_regular
from lejepa_wm.records import nonfinite_item
from lejepa_wm.schema import read

__all__ = ["SCALES", "CONFIG_LIMIT", "config_from_mapping", "read_toml", "load_scaled_config"]

_T = TypeVar("_T")

SCALES = ("quick", "full")
CONFIG_LIMIT = 2**20
"""The largest config file read (bytes): a config is a few hundred bytes."""


def config_from_mapping(cls: type[_T], mapping: Mapping[str, Any]) -> _T:
    """Config dataclass ``cls`` read from ``mapping`` by :func:`~lejepa_wm.schema.read`, after refusing unknown
    keys and numbers that are not finite (TOML has ``nan`` and ``inf``); the annotations hold each key's range,
    ``cls.__post_init__`` checks relations between keys. The ``ValueError`` names the key and the value."""
    known = sorted(field.name for field in dataclasses.fields(cls))  # type: ignore[arg-type]
    unknown = sorted(set(mapping) - set(known))
    if unknown:
        raise ValueError(f"unknown config key(s) {', '.join(map(repr, unknown))} for {cls.__name__}; "
                         f"known keys: {', '.join(known)}")
    for key, value in mapping.items():
        if nonfinite_item(value) is not None:
            raise ValueError(f"config key {key!r} must hold finite numbers only; got {value!r}")
    return read(cls, dict(mapping), f"config ({cls.__name__})")


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a syntax error, a folder, a FIFO or device, a file over :data:`CONFIG_LIMIT` bytes or
    an unreadable file is a ``ValueError`` naming it."""
    try:
        data = read_regular(path, CONFIG_LIMIT)
    except FileNotFoundError:
        raise ValueError(f"config file {path} does not exist") from None
    except ValueError as exc:
        raise ValueError(f"config file {exc}") from None
    except OSError as exc:
        raise ValueError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"config file {path}: TOML syntax error: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"config file {path} is not UTF-8 text (TOML must be): {exc.reason} at byte "
                         f"{exc.start}") from None


def _scale_table(data: dict[str, Any], scale: str, path: Path) -> dict[str, Any]:
    """The ``[common]`` table of ``data`` updated by its ``[scale]`` table (either may be absent)."""
    merged: dict[str, Any] = {}
    for name in ("common", scale):
        table = data.get(name, {})
        if not isinstance(table, dict):
            raise ValueError(f"config file {path}: [{name}] must be a table; got {table!r}")
        merged.update(table)
    return merged


def load_scaled_config(cls: type[_T], defaults: Path, scale: str, path: Path | None = None,
                       overrides: Mapping[str, Any] | None = None) -> _T:
    """Load ``cls`` for ``scale``: the defaults' ``[common]`` then ``[scale]`` table, a user file, overrides.

    Both files hold a ``[common]`` table (keys of every scale) and one table per
    scale (``[quick]``, ``[full]``) with only what differs; a user file may
    instead hold flat top-level keys, which apply to every scale. A user file
    with a table that is not a scale, with scale tables beside top-level keys,
    or whose tables say nothing about the requested scale (only another
    scale's table) is an error: it would otherwise be silently ignored.
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; expected one of {', '.join(SCALES)}")
    merged = _scale_table(read_toml(defaults), scale, defaults)
    if path is not None:
        user = read_toml(Path(path))
        tables = sorted(key for key, value in user.items() if isinstance(value, dict))
        unknown = [name for name in tables if name not in SCALES + ("common",)]
        if unknown:
            raise ValueError(f"config file {path}: unknown table(s) {unknown}; expected [common], "
                             f"{', '.join(f'[{s}]' for s in SCALES)} or flat keys")
        if tables:
            stray = sorted(set(user) - set(tables))
            if stray:
                raise ValueError(f"config file {path} mixes tables with top-level keys {stray}")
            if scale not in user and "common" not in user:
                raise ValueError(f"config file {path} has no [{scale}] or [common] table, so it would change "
                                 f"nothing at scale {scale!r}")
            merged.update(_scale_table(user, scale, path))
        else:
            merged.update(user)
    merged.update(overrides or {})
    return config_from_mapping(cls, merged)
