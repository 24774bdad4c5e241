"""HTML form fields → a command's JSON form, by a naming convention (no rule knowledge).

A page's form names each field with a type prefix and the command field it fills; the library
validates the result exactly as it validates the JSON API's commands. Empty fields are left out,
so a command's own defaults apply.

========================  ==========================================  =========================
field name                value(s)                                    JSON
========================  ==========================================  =========================
``kind``                  ``distribute``                              ``"kind": "distribute"``
``s:hex``                 ``23.16``                                   ``"hex": "23.16"``
``i:steps``               ``2``                                       ``"steps": 2``
``b:attest``              present (checkbox)                          ``"attest": true``
``l:members``             repeated, or one comma-separated value      ``"members": ["A", "B"]``
``ms:centers.1/ErP112``   ``23.15``                                   ``"centers": {"1/ErP112":
                                                                      "23.15"}``
``mi:heal.1/ErP112-1``    ``2`` (``0`` and empty are left out)        ``"heal": {"1/ErP112-1":
                                                                      2}``
``j:report``              JSON text                                   ``"report": {...}``
``o:moves.0.source``      ``A-1`` (row 0 of a list of objects)        ``"moves": [{"source":
                                                                      "A-1", ...}]``
``oi:moves.0.steps``      ``2`` (``0`` and empty are left out)        ``"moves": [{"steps": 2}]``
========================  ==========================================  =========================

The rows of a list of objects keep their numbers' order; a row left wholly empty is left out
(a form offers more rows than a player needs).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rallypoint.core.errors import MalformedInputError
from rallypoint.core.json_types import JsonObject, JsonValue

CONTROL = frozenset({"csrf_token", "expected_version", "dice", "policy", "decision", "kind",
                     "form", "repeat", "return"})
"""Fields that steer the request rather than fill the command."""


def whole_number(name: str, value: str) -> int:
    """A form field's whole number (surrounding spaces allowed).

    Raises:
        MalformedInputError: The field holds no whole number (its ``where`` is the field).
    """
    try:
        return int(value.strip())
    except ValueError:
        raise MalformedInputError(f"{name}: {value!r} is not a whole number", where=name,
                                  fix="Type a whole number, like 2.") from None


def command_from_form(items: Iterable[tuple[str, str]]) -> JsonObject:
    """Build a command's JSON form from (name, value) pairs of a submitted form.

    Raises:
        MalformedInputError: A number field holds no number, or a field has no known prefix.
    """
    command: dict[str, Any] = {}
    for raw_name, raw_value in items:
        value = raw_value.strip()
        if raw_name == "kind":
            command["kind"] = value
            continue
        if raw_name in CONTROL:
            continue
        prefix, sep, name = raw_name.partition(":")
        if not sep or not name:
            raise MalformedInputError(f"form field {raw_name!r} is not one this page sends",
                                      where=raw_name, fix="Reload the page and use its form.")
        _put(command, prefix, name, value, raw_name)
    return {k: _rows(v) if isinstance(v, _Rows) else v for k, v in command.items()}


class _Rows(dict[int, dict[str, Any]]):
    """The rows of a list-of-objects field as they come in, by row number."""


def _rows(rows: _Rows) -> list[JsonValue]:
    return [rows[n] for n in sorted(rows) if rows[n]]


def _row(command: dict[str, Any], raw: str, field: str, key: str) -> tuple[dict[str, Any], str]:
    """The row dict ``o:FIELD.N.KEY`` fills, and the key in it."""
    number, _, inner = key.partition(".")
    if not number.isdigit() or not inner:
        raise MalformedInputError(f"form field {raw!r} is not one this page sends", where=raw,
                                  fix="Reload the page and use its form.")
    rows = command.setdefault(field, _Rows())
    return rows.setdefault(int(number), {}), inner


def _put(command: dict[str, Any], prefix: str, name: str, value: str, raw: str) -> None:
    field, _, key = name.partition(".")
    if prefix in ("o", "oi"):
        row, inner = _row(command, raw, field, key)  # an empty row is dropped by _rows
        if value and prefix == "o":
            row[inner] = value
        elif value and whole_number(raw, value):
            row[inner] = whole_number(raw, value)
    elif prefix == "b":
        command[field] = True
    elif prefix == "l":
        items = [v.strip() for v in value.split(",") if v.strip()]
        command.setdefault(field, []).extend(items)
    elif not value:
        return
    elif prefix == "s":
        command[field] = value
    elif prefix == "i":
        command[field] = whole_number(raw, value)
    elif prefix == "ms" and key:
        command.setdefault(field, {})[key] = value
    elif prefix == "mi" and key:
        number = whole_number(raw, value)
        if number:
            command.setdefault(field, {})[key] = number
    elif prefix == "j":
        try:
            command[field] = json.loads(value)
        except json.JSONDecodeError as exc:
            raise MalformedInputError(f"{field}: not JSON ({exc.msg})",
                                      where=f"{field}:{exc.lineno}",
                                      fix="Paste the JSON as the battle gave it.") from None
    else:
        raise MalformedInputError(f"form field {raw!r} is not one this page sends", where=raw,
                                  fix="Reload the page and use its form.")


def version_from_form(value: str | None) -> int:
    """The ``expected_version`` a form carries.

    Raises:
        MalformedInputError: It is missing or not a whole number.
    """
    if value is None or not value.strip().isdigit():
        raise MalformedInputError("the form carries no campaign version", where="expected_version",
                                  fix="Reload the page and use its form.")
    return int(value)
