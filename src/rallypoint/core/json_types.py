"""The shape of JSON data passed between the rules and everything else.

Scenario tables, rules data, stored payloads, commands as JSON and views of a state cross the
line between front ends and rules as plain JSON. Naming that shape (instead of ``Any``) lets
mypy check both sides: a front end reading a value must look at what it is before using it.
"""

from __future__ import annotations

from pydantic import JsonValue

__all__ = ["JsonObject", "JsonValue"]

JsonObject = dict[str, JsonValue]
"""A JSON object: names to JSON values (pydantic's recursive :data:`pydantic.JsonValue`)."""
