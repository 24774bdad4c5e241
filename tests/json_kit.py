"""Reading JSON views in tests: a path into a ``JsonValue``, each step checked as it is taken.

The rules hand front ends JSON (``JsonObject``), so a test reading a view field by field must
look at what each level is before indexing into it; :func:`at` does that once, and a wrong
path fails the test naming the step, instead of passing by accident.
"""

from __future__ import annotations

from rallypoint.core.json_types import JsonObject, JsonValue


def at(value: JsonValue, *path: str | int) -> JsonValue:
    """The value at ``path`` (object keys and list indexes) inside ``value``."""
    for step in path:
        if isinstance(step, str):
            assert isinstance(value, dict), f"{step!r}: {value!r} is not a JSON object"
            value = value[step]
        else:
            assert isinstance(value, list), f"[{step}]: {value!r} is not a JSON list"
            value = value[step]
    return value


def obj(value: JsonValue, *path: str | int) -> JsonObject:
    """The JSON object at ``path`` inside ``value``."""
    found = at(value, *path)
    assert isinstance(found, dict), f"{path}: {found!r} is not a JSON object"
    return found


def items(value: JsonValue, *path: str | int) -> list[JsonValue]:
    """The JSON list at ``path`` inside ``value``."""
    found = at(value, *path)
    assert isinstance(found, list), f"{path}: {found!r} is not a JSON list"
    return found
