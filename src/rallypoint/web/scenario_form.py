"""A scenario's pydantic model as an HTML form, and a submitted form back as scenario data.

Generic over any ruleset's scenario model: plain fields become inputs (a number, a box to tick,
a choice of an enum's values, a comma list, an inline TOML table), a nested model a group, a
list of models a list of rows (a table when its rows hold only plain fields: counters, units,
the platoon's roster). Every input is named ``v:`` + its path (``v:formations.0.companies.1
.counters.2.steps``) and every row carries ``r:`` + its path, so a row left empty still counts.

Values the model would refuse are kept as typed (``"five"`` for a number), so the page shows
them again and the scenario check words the refusal exactly as ``rallypoint new`` does. Nothing
here judges a value: that is :func:`rallypoint.session.scenarios.check_scenario`'s work.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from enum import Enum, StrEnum
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

MAX_ROWS = 200
"""Most rows one list may hold in the builder (a form is not a bulk import)."""


class Kind(StrEnum):
    """How a field is typed in."""

    TEXT = "text"
    NUMBER = "number"
    CHECK = "check"
    """A box to tick (``bool``)."""
    EITHER = "either"
    """Yes, no or unset (``bool | None``)."""
    CHOICE = "choice"
    LIST = "list"
    """Comma-separated values (``tuple[str, ...]``)."""
    INLINE = "inline"
    """An inline TOML table's inside (``dict``): ``pairing_scope = "formation"``."""
    GROUP = "group"
    ROWS = "rows"


@dataclass(frozen=True)
class Field:
    """One field of the form (a group's and a row's fields are in ``fields``)."""

    name: str
    kind: Kind
    required: bool
    default: str = ""
    help: str = ""
    choices: tuple[str, ...] = ()
    fields: tuple[Field, ...] = ()
    min_rows: int = 0
    parse: str = ""
    """``datetime``/``time``/``int``: what a typed text or list item is read as."""

    @property
    def flat(self) -> bool:
        """Rows holding only plain fields, shown as one table."""
        return all(f.kind not in (Kind.GROUP, Kind.ROWS) for f in self.fields)


def form_fields(model: type[BaseModel]) -> tuple[Field, ...]:
    """The form of a scenario model (its ``ruleset`` field is the page's, not the player's)."""
    return tuple(_field(name, info) for name, info in model.model_fields.items()
                 if name != "ruleset")


def _field(name: str, info: FieldInfo) -> Field:
    annotation, optional = _unwrap(info.annotation)
    default = info.default
    shown = "" if default in (PydanticUndefined, None) or isinstance(default, BaseModel | tuple
                                                                     | dict) else str(default)
    if isinstance(default, Enum):
        shown = str(default.value)
    base = {"name": name, "required": info.is_required(), "default": shown,
            "help": info.description or ""}
    min_rows = next((m.min_length for m in info.metadata if hasattr(m, "min_length")), 0)
    return _typed(annotation, optional, base, min_rows or 0)


def _typed(annotation: Any, optional: bool, base: dict[str, Any], min_rows: int) -> Field:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Field(kind=Kind.GROUP, fields=form_fields(annotation), **base)
    if origin is tuple and args and isinstance(args[0], type) and issubclass(args[0],
                                                                              BaseModel):
        return Field(kind=Kind.ROWS, fields=form_fields(args[0]), min_rows=min_rows, **base)
    if origin is tuple:
        return Field(kind=Kind.LIST, parse="int" if args and args[0] is int else "", **base)
    if origin is dict or annotation is dict:
        return Field(kind=Kind.INLINE, **base)
    if annotation is bool:
        return Field(kind=Kind.EITHER if optional else Kind.CHECK, **base)
    if annotation is int:
        return Field(kind=Kind.NUMBER, **base)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return Field(kind=Kind.CHOICE, choices=tuple(str(m.value) for m in annotation), **base)
    parse = {datetime: "datetime", time: "time", date: "date"}.get(annotation, "")
    return Field(kind=Kind.TEXT, parse=parse, **base)


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` → ``(X, True)``."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return rest[0], True
    return annotation, False


# --- the submitted form → scenario data ------------------------------------------------------


def data_from_form(fields: tuple[Field, ...], pairs: Iterable[tuple[str, str]],
                   ruleset: str) -> dict[str, Any]:
    """The scenario the form describes (``ruleset`` first), values the model may yet refuse
    kept as typed."""
    values: dict[str, str] = {}
    rows: set[str] = set()
    for name, value in pairs:
        if name.startswith("v:"):
            values[name[2:]] = value
        elif name.startswith("r:"):
            rows.add(name[2:])
    return {"ruleset": ruleset, **_group(fields, "", values, rows)}


def _group(fields: tuple[Field, ...], prefix: str, values: dict[str, str],
           rows: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in fields:
        path = prefix + field.name
        value = _value(field, path, values, rows)
        if value is not None:
            out[field.name] = value
    return out


def _value(field: Field, path: str, values: dict[str, str], rows: set[str]) -> Any:
    if field.kind is Kind.GROUP:
        inner = _group(field.fields, path + ".", values, rows)
        return inner if inner or field.required else None
    if field.kind is Kind.ROWS:
        found = sorted({int(r[len(path) + 1:]) for r in rows
                        if r.startswith(path + ".") and r[len(path) + 1:].isdigit()})
        items = [_group(field.fields, f"{path}.{n}.", values, rows) for n in found[:MAX_ROWS]]
        return items or None
    if field.kind is Kind.CHECK:
        return True if path in values else (False if field.default == "True" else None)
    text = values.get(path, "").strip()
    if not text:
        return None
    return _typed_text(field, text)


def _typed_text(field: Field, text: str) -> Any:
    """A typed text as the model's type, or as typed when it is not one (the check says why)."""
    if field.kind is Kind.NUMBER:
        return _number(text)
    if field.kind is Kind.EITHER:
        return {"true": True, "false": False}.get(text, text)
    if field.kind is Kind.LIST:
        items = [t.strip() for t in text.split(",") if t.strip()]
        return [_number(t) for t in items] if field.parse == "int" else items
    if field.kind is Kind.INLINE:
        try:
            return tomllib.loads(f"x = {{ {text} }}")["x"]
        except tomllib.TOMLDecodeError:
            return text
    if field.parse:
        read: dict[str, Any] = {"datetime": datetime.fromisoformat, "time": time.fromisoformat,
                                "date": date.fromisoformat}
        try:
            return read[field.parse](text)
        except ValueError:
            return text
    return text


def _number(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text


# --- scenario data → what the form shows -----------------------------------------------------


def shown(value: Any) -> str:
    """A value as the form shows it (what the player would type)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items())
    return str(value)


def _key(key: Any) -> str:
    return str(key) if re.fullmatch(r"[A-Za-z0-9_-]+", str(key)) else json.dumps(str(key))


def _inline(value: Any) -> str:
    """A value as TOML writes it inline (``nan`` stays ``nan``: the check refuses it)."""
    if isinstance(value, Mapping):
        return "{ " + shown(value) + " }" if value else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007F")
    if isinstance(value, bool):
        return "true" if value else "false"
    return shown(value)


def at(data: Any, path: str) -> Any:
    """The value at a dotted path (``formations.0.name``), ``None`` when it is not there."""
    here = data
    for part in path.split(".") if path else ():
        if isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        elif isinstance(here, Mapping) and part in here:
            here = here[part]
        else:
            return None
    return here


def problem_path(field: str) -> str:
    """A problem's field (``formations[0].companies[1].steps``) as a form path."""
    return re.sub(r"\[(\d+)\]", r".\1", field)


# --- editing: add a row, add another like this one, remove one -------------------------------


def starter(fields: tuple[Field, ...]) -> dict[str, Any]:
    """A new group or row: its required groups, and as many rows as each list must have
    (one for a required list)."""
    out: dict[str, Any] = {}
    for field in fields:
        if field.kind is Kind.GROUP and field.required:
            out[field.name] = starter(field.fields)
        elif field.kind is Kind.ROWS and (field.required or field.min_rows):
            out[field.name] = [starter(field.fields)
                               for _ in range(max(1, field.min_rows))]
    return out


def field_at(fields: tuple[Field, ...], path: str) -> Field | None:
    """The form field a path names (row numbers skipped)."""
    found: Field | None = None
    for part in path.split("."):
        if part.isdigit():
            continue
        found = next((f for f in fields if f.name == part), None)
        if found is None:
            return None
        fields = found.fields
    return found


def edit(fields: tuple[Field, ...], data: dict[str, Any], action: str) -> dict[str, Any]:
    """``data`` after an edit button: ``add:PATH`` (a new row at the end of a list),
    ``copy:PATH.N`` (another like row N, just after it, its id made unique), ``remove:PATH.N``.
    An action naming no list is ignored (the page is shown again as it was)."""
    verb, _, path = action.partition(":")
    data = copy.deepcopy(data)
    head, _, last = path.rpartition(".")
    if verb == "add":
        field = field_at(fields, path)
        rows = _rows(data, path)
        if field is not None and field.kind is Kind.ROWS and rows is not None \
                and len(rows) < MAX_ROWS:
            rows.append(starter(field.fields))
    elif verb in ("copy", "remove") and last.isdigit():
        rows = _rows(data, head)
        n = int(last)
        if rows is not None and n < len(rows):
            if verb == "remove":
                del rows[n]
            elif len(rows) < MAX_ROWS:
                rows.insert(n + 1, _like(rows[n], rows))
    return data


def _rows(data: dict[str, Any], path: str) -> list[Any] | None:
    """The list at ``path``, made when it is missing under an existing group."""
    head, _, name = path.rpartition(".")
    parent = at(data, head) if head else data
    if not isinstance(parent, dict) or not name or name.isdigit():
        return None
    rows = parent.setdefault(name, [])
    return rows if isinstance(rows, list) else None


def _like(row: Any, rows: list[Any]) -> Any:
    """A copy of a row whose ``id`` (if any) is not yet used in its list: ``2/609-a`` gives
    ``2/609-a-2``, ``u3`` gives ``u4``."""
    new = copy.deepcopy(row)
    if isinstance(new, dict) and isinstance(new.get("id"), str) and new["id"]:
        taken = {r.get("id") for r in rows if isinstance(r, dict)}
        stem, number = _split_number(new["id"])
        while new["id"] in taken:
            number += 1
            new["id"] = f"{stem}{number}"
    return new


def _split_number(text: str) -> tuple[str, int]:
    match = re.fullmatch(r"(.*?)(\d+)", text)
    if match and match.group(1):
        return match.group(1), int(match.group(2))
    return text + "-", 1
