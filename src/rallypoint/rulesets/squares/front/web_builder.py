"""The squares part of the scenario builder: the board as a grid of buttons.

A click on a square (a submit button, so it works without JavaScript) places what the brush
holds there: a new unit (like the last one: its brigade and stamina), a new brigadier, a terrain
kind, or clears the square. The rows it adds are ordinary rows of the builder's form, checked by
the same scenario check as everything else; nothing here judges a placement.
"""

from __future__ import annotations

import re
from string import ascii_uppercase
from typing import Any

from rallypoint.rulesets.squares.data import default_data_raw
from rallypoint.web.kit import BuilderPart

TEMPLATE = "squares/build_grid.html"
BRUSHES = ("unit", "leader", "clear")
"""What a click may place besides a terrain kind (``terrain:KIND``)."""
SHOWN = 12
"""The grid shows at most this many columns and rows of an unset or absurd board size."""

_SQUARE = re.compile(r"^([A-Z])([1-9][0-9]?)$")


def _size(data: dict[str, Any]) -> tuple[int, int]:
    grid = data.get("grid") if isinstance(data.get("grid"), dict) else {}
    sizes = []
    for key, most in (("columns", len(ascii_uppercase)), ("rows", 99)):
        value = grid.get(key) if isinstance(grid, dict) else None
        sizes.append(value if isinstance(value, int) and 1 <= value <= most else 0)
    return sizes[0], sizes[1]


def _list(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.setdefault(key, [])
    if not isinstance(value, list):
        value = data[key] = []
    return [v for v in value if isinstance(v, dict)]


def kinds(data: dict[str, Any]) -> list[str]:
    """The terrain kinds a square may be given: the ruleset's and the scenario's own."""
    own = data.get("terrain_kinds")
    shipped = [k for k in default_data_raw()["terrain"]["kinds"] if k != "open"]
    return shipped + [k for k in (own if isinstance(own, dict) else {}) if k not in shipped]


def context(data: dict[str, Any]) -> dict[str, Any]:
    """The grid: each square's name, terrain and what stands on it (top row first)."""
    columns, rows = _size(data)
    terrain: dict[str, str] = {}
    for row in _list(data, "terrain"):
        for square in row.get("squares") or ():
            terrain[str(square)] = str(row.get("kind", ""))
    pieces: dict[str, list[str]] = {}
    for key, mark in (("units", ""), ("leaders", "★")):
        for row in _list(data, key):
            pieces.setdefault(str(row.get("square", "")).upper(), []).append(
                mark + str(row.get("id", "?")))
    grid = [[(f"{ascii_uppercase[c]}{r}", terrain.get(f"{ascii_uppercase[c]}{r}", ""),
              pieces.get(f"{ascii_uppercase[c]}{r}", [])) for c in range(columns)]
            for r in range(rows, 0, -1)]
    return {"grid": grid, "columns": [ascii_uppercase[c] for c in range(columns)],
            "brushes": [*BRUSHES[:2], *(f"terrain:{k}" for k in kinds(data)), BRUSHES[2]]}


def place(data: dict[str, Any], square: str, brush: str) -> dict[str, Any]:
    """``data`` with ``brush`` placed on ``square`` (an unknown square or brush: unchanged)."""
    square = square.strip().upper()
    match = _SQUARE.match(square)
    columns, rows = _size(data)
    if match is None or ascii_uppercase.index(match.group(1)) >= columns \
            or int(match.group(2)) > rows:
        return data
    if brush == "unit":
        _add_unit(data, square)
    elif brush == "leader":
        _add_leader(data, square)
    elif brush == "clear":
        _clear(data, square)
    elif brush.startswith("terrain:") and brush[8:] in kinds(data):
        _paint(data, square, brush[8:])
    return data


def _new_id(rows: list[dict[str, Any]], stem: str) -> str:
    taken = {str(r.get("id")) for r in rows}
    return next(f"{stem}{n}" for n in range(1, len(taken) + 2) if f"{stem}{n}" not in taken)


def _add_unit(data: dict[str, Any], square: str) -> None:
    units = _list(data, "units")
    like = units[-1] if units else {}
    brigades = _list(data, "brigades")
    unit = {"id": _new_id(units, "u"), "brigade": like.get("brigade")
            or (brigades[0].get("id") if brigades else None),
            "stamina": like.get("stamina"), "square": square}
    data["units"] = [*units, {k: v for k, v in unit.items() if v is not None}]


def _add_leader(data: dict[str, Any], square: str) -> None:
    leaders = _list(data, "leaders")
    led = {row.get("brigade") for row in leaders}
    brigades = [b.get("id") for b in _list(data, "brigades") if b.get("id")]
    brigade = next((b for b in brigades if b not in led), brigades[0] if brigades else None)
    leader = {"id": _new_id(leaders, "L"), "role": "brigadier", "brigade": brigade,
              "square": square}
    data["leaders"] = [*leaders, {k: v for k, v in leader.items() if v is not None}]


def _clear(data: dict[str, Any], square: str) -> None:
    for key in ("units", "leaders"):
        data[key] = [r for r in _list(data, key) if str(r.get("square", "")).upper() != square]
    _paint(data, square, None)


def _paint(data: dict[str, Any], square: str, kind: str | None) -> None:
    """A square has at most one kind: taken off every terrain row, then put on ``kind``'s
    (a new row when there is none; a row left with no squares goes)."""
    rows = []
    for row in _list(data, "terrain"):
        left = [s for s in row.get("squares") or () if str(s).upper() != square]
        if kind is not None and row.get("kind") == kind and not row.get("side"):
            left, kind = [*left, square], None
        if left:
            rows.append({**row, "squares": left})
    if kind is not None:
        rows.append({"kind": kind, "squares": [square]})
    data["terrain"] = rows


BUILDER = BuilderPart(template=TEMPLATE, context=context, place=place)
"""The squares additions to the builder (its plugin's ``builder`` part): the grid."""
