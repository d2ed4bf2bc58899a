"""Settings from the command line (``KEY=VALUE``), typed by the config's own fields, and a config as TOML.

``lejepa-wm run scaling dims=16 max_steps=300 methods=sigreg`` changes any key
of the experiment's config for one launch, as a ``--config`` file would. A
value is read by the type of the field it sets:

- an integer, a number (``3e-3``), ``true``/``false``, or text (quotes optional);
- a list: ``[2, 8, 16]`` (TOML), or items separated by commas (``sigreg,whitening``), or one item (``16``);
- ``none`` for a field that may be unset.

:data:`_ALIASES` accepts a few short names (``steps`` for ``max_steps``, ``n``
for ``dims``) where the config has the long one and not the short one.
Everything is then validated by the config class like a file's values, so a
bad value is refused with the key, the value and the rule it breaks.
:func:`config_toml` prints a config as flat TOML keys that ``--config`` reads
back to the same config.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
import types
import typing
from typing import Any, Iterable

__all__ = ["parse_settings", "config_toml"]

_ALIASES: dict[str, str] = {"steps": "max_steps", "n": "dims"}
"""Short name → config key, used only where the config has the key and not the short name."""


def _toml_value(text: str) -> Any:
    """``text`` read as a TOML value; ``ValueError`` if it is not one."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        raise ValueError(f"{text!r} is not a TOML value") from None


def _parse_value(text: str, annotation: Any) -> Any:
    """``text`` as a value of a config field annotated ``annotation`` (see the module docstring).

    Text the field's type cannot read is passed on as text: the config refuses it, naming the key and the rule.
    """
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        if text.lower() in ("none", "null") and type(None) in args:
            return None
        return _parse_value(text, next(option for option in args if option is not type(None)))
    if origin in (tuple, list):
        if text.startswith("["):
            return _toml_value(text)
        item = args[0] if args else Any
        return tuple(_parse_value(part.strip(), item) for part in text.split(",") if part.strip())
    if annotation is str:
        return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" else text
    try:
        if annotation in (int, float):  # Python's reading: ``.5`` and ``1_000`` too
            return annotation(text)
        return _toml_value(text.lower() if annotation is bool else text)
    except ValueError:
        return text


def parse_settings(settings: Iterable[str], config_class: type) -> dict[str, Any]:
    """``{key: value}`` of ``KEY=VALUE`` settings for the dataclass ``config_class``.

    ``ValueError`` names a setting that is not ``KEY=VALUE``, a key the config
    does not have (with the known keys) and a key given twice. Values are typed
    by the fields (:func:`_parse_value`); their rules are the config's to check.
    """
    hints = typing.get_type_hints(config_class)
    parsed: dict[str, Any] = {}
    for text in settings:
        key, equals, value = text.partition("=")
        key = key.strip()
        if not equals or not (key.isascii() and key.isidentifier()):  # [A-Za-z_][A-Za-z0-9_]*
            raise ValueError(f"setting {text!r} is not KEY=VALUE (e.g. max_steps=300); known keys: --print-config")
        if key not in hints and _ALIASES.get(key) in hints:
            key = _ALIASES[key]
        if key not in hints:
            raise ValueError(f"setting {text!r}: {config_class.__name__} has no key {key!r}; known keys: "
                             f"{', '.join(item.name for item in dataclasses.fields(config_class))}")
        if key in parsed:
            raise ValueError(f"setting {text!r}: {key!r} is given twice")
        parsed[key] = _parse_value(value.strip(), hints[key])
    return parsed


def config_toml(config: Any, header: str = "") -> str:
    """The dataclass ``config`` as flat TOML keys, in field order; an unset (``None``) field as a comment.

    ``header`` becomes a comment on top. ``--config`` reads the text back to
    the same config (flat keys apply to every scale). A config holds booleans,
    finite numbers, text and (nested) tuples of them, which JSON writes as TOML
    writes them.
    """
    lines = [f"# {line}" for line in header.splitlines()]
    for key, value in dataclasses.asdict(config).items():
        lines.append(f"# {key} is not set" if value is None else f"{key} = {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"
