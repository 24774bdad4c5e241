"""Building small squares battles in memory for the squares tests.

The default battle: sides ``blue`` and ``red`` on an 8x8 grid; blue brigades ``b1`` (brigadier
``brig``) and ``b2`` (brigadier ``brig2``), blue army commander ``cmdr``; red brigade ``r1``
(brigadier ``rbrig``), red army commander ``rcmdr``. Leaders wait in the corners (blue A1, red H8)
unless a test puts them elsewhere. Units are given per test.
"""

from __future__ import annotations

from typing import Any

from rallypoint.core.campaign import Campaign, start
from rallypoint.core.events import CREATED, NewEvent, canonical_json
from rallypoint.rulesets.squares import RULESET
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.scenario import parse_scenario

BRIGADES = {"b1": "blue", "b2": "blue", "r1": "red"}
LEADERS: dict[str, dict[str, Any]] = {
    "brig": {"role": "brigadier", "brigade": "b1", "square": "A1"},
    "brig2": {"role": "brigadier", "brigade": "b2", "square": "A1"},
    "cmdr": {"role": "army_commander", "side": "blue", "square": "A1"},
    "rbrig": {"role": "brigadier", "brigade": "r1", "square": "H8"},
    "rcmdr": {"role": "army_commander", "side": "red", "square": "H8"},
}


def unit(ident: str, square: str, brigade: str = "b1", stamina: int = 6, sp: int | None = None,
         disordered: bool = False) -> dict[str, Any]:
    """A unit entry for :func:`scenario`."""
    entry: dict[str, Any] = {"id": ident, "name": ident.upper(), "brigade": brigade,
                             "stamina": stamina, "square": square, "disordered": disordered}
    if sp is not None:
        entry["sp"] = sp
    return entry


def scenario(units: list[dict[str, Any]], leaders: dict[str, str] | None = None,
             terrain: list[dict[str, Any]] | None = None,
             parameters: dict[str, Any] | None = None, columns: int = 8, rows: int = 8,
             terrain_kinds: dict[str, Any] | None = None) -> dict[str, Any]:
    """A validated, JSON-ready scenario; ``leaders`` maps leader id → square (others: corners)."""
    squares = {k: v["square"] for k, v in LEADERS.items()} | (leaders or {})
    data = {
        "ruleset": "squares",
        "scenario": {"title": "test battle"},
        "grid": {"columns": columns, "rows": rows},
        "parameters": parameters or {},
        "terrain_kinds": terrain_kinds or {},
        "terrain": terrain or [],
        "sides": [{"id": "blue"}, {"id": "red"}],
        "brigades": [{"id": b, "side": s} for b, s in BRIGADES.items()],
        "units": units,
        "leaders": [{"id": k, **v, "square": squares[k]} for k, v in LEADERS.items()],
    }
    return parse_scenario(data).model_dump(mode="json")


def battle(units: list[dict[str, Any]], **kwargs: Any) -> Campaign:
    """A fresh in-memory squares campaign (the same path as ``rallypoint new``, minus the file)."""
    spec = scenario(units, **kwargs)
    created = NewEvent(type=CREATED, payload={
        "ruleset": RULESET.name, "name": "test", "scenario": spec,
        "rules_data": RULESET.rules_data(spec), "seed": "test-seed"})
    return start(created)


def snapshot(c: Campaign) -> str:
    """The state as canonical JSON (for 'nothing changed' checks)."""
    return canonical_json(c.ruleset.state_json(c.state))


def mods(c: Campaign, leader: str, unit_id: str, kind: str,
         enemy_visible: bool | None = None) -> dict[str, int]:
    """The rally test's modifiers by name (without the detail in brackets) → value."""
    from rallypoint.rulesets.squares.data import RallyKind
    from rallypoint.rulesets.squares.rally import plan_rally

    plan = plan_rally(squares_state(c), leader, unit_id, RallyKind(kind), enemy_visible)
    return {m.name.split(" (")[0]: m.value for m in plan.node.modifiers}
