"""Writing scenario data as TOML (the standard library reads TOML but does not write it).

Enough TOML for a scenario: top-level tables as ``[sections]``, lists of tables as
``[[arrays]]`` (nested ones too, ``[[formations.companies]]``), small flat tables and lists of
them inline (``modifiers = [{ name = "x", value = 1 }]``). ``tomllib.loads(dumps(data)) == data``
for every scenario (a test holds the shipped ones to it).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def dumps(data: Mapping[str, Any]) -> str:
    """``data`` as TOML text."""
    out: list[str] = []
    _table(out, [], data)
    return "\n".join(out).lstrip("\n") + "\n"


def _table(out: list[str], path: list[str], table: Mapping[str, Any]) -> None:
    """A table's own keys, then its sub-tables, then its arrays of tables (TOML's order)."""
    for key, value in table.items():
        if not _section(path, value) and not _array_of_tables(path, value):
            out.append(f"{_key(key)} = {_value(value)}")
    for key, value in table.items():
        if _section(path, value):
            out += ["", f"[{_dotted([*path, key])}]"]
            _table(out, [*path, key], value)
    for key, value in table.items():
        if _array_of_tables(path, value):
            for item in value:
                out += ["", f"[[{_dotted([*path, key])}]]"]
                _table(out, [*path, key], item)


def _flat(value: Any) -> bool:
    """A value with no table inside it (a scalar, or a list of scalars)."""
    if isinstance(value, Mapping):
        return False
    if isinstance(value, list | tuple):
        return all(_flat(v) for v in value)
    return True


def _section(path: Sequence[str], value: Any) -> bool:
    """A table written as ``[section]``: every top-level one, and any holding a table."""
    return isinstance(value, Mapping) and (not path or not all(_flat(v) for v in value.values()))


def _array_of_tables(path: Sequence[str], value: Any) -> bool:
    """A list of tables written as ``[[array]]``: every top-level one, and any whose tables are
    not small and flat (more than two keys, or a table inside)."""
    if not isinstance(value, list | tuple) or not value:
        return False
    if not all(isinstance(item, Mapping) for item in value):
        return False
    return not path or any(len(item) > 2 or not all(_flat(v) for v in item.values())
                           for item in value)


def _key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key, ensure_ascii=False)


def _dotted(path: Sequence[str]) -> str:
    return ".".join(_key(part) for part in path)


def _value(value: Any) -> str:
    """An inline TOML value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError("nan and inf have no place in a scenario")
        return repr(value)
    if isinstance(value, str):
        # A JSON string is a TOML basic string (the escapes TOML knows are JSON's), but for
        # DEL, which JSON leaves as it is and TOML refuses.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007F")
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items())
        return f"{{ {inner} }}" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")
