"""The squares campaign page: the grid (sides marked by letter and border, not colour alone),
and for a chosen unit who may rally it, with every modifier named and the exact odds."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rallypoint.core.errors import RallypointError
from rallypoint.core.visibility import EVERYTHING, Viewer
from rallypoint.rulesets.squares.data import RallyKind
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.rally import RallyPlan, opportunities, plan_rally
from rallypoint.rulesets.squares.state import SquaresState
from rallypoint.session import Campaign
from rallypoint.session.ownership import offered
from rallypoint.web.kit import Action, View

TEMPLATE = "squares/campaign.html"
QUERY = ("unit",)
PARTS = {"unit": "squares/unit.html"}
"""Parts of the page served alone (``/c/ID/part/NAME``)."""
"""Query parameters the page takes: the chosen unit."""


COMMANDS = {
    "turn": "Start the next turn (under Activate) first.",
    "activate": "Activate the leader first (under Activate).",
}
"""What does each command kind on this page, for a refusal's ``instead`` (see ``web.words``)."""


DUE_ACTIONS = {
    "rally": Action("Who may rally it", "?unit={subject}#unit-panel"),
    "activate": Action("Activate", "#activate"),
    "turn": Action("Start the next turn"),
}
"""How this page does each kind of command the rules say is due (``web.due``)."""


@dataclass(frozen=True)
class RallyChoice:
    """A legal rally of the chosen unit, ready for the page."""

    leader: str
    leader_name: str
    kind: str
    modifiers: list[tuple[str, int]]
    total: int
    odds: dict[str, Fraction]


@dataclass(frozen=True)
class Refused:
    """A rally of the chosen unit that its leader may not make now, and why."""

    leader: str
    kind: str
    reason: str


def _choice(state: SquaresState, plan: RallyPlan) -> RallyChoice:
    return RallyChoice(plan.leader, state.board.name(plan.leader), plan.kind.value,
                       [(m.name, m.value) for m in plan.node.modifiers],
                       plan.node.modifier_total,
                       {r.value: p for r, p in plan.odds(state).items()})


@dataclass(frozen=True)
class UnitPanel:
    """The page's unit part: who may rally the chosen unit now, and why the others may not."""

    id: str
    choices: list[RallyChoice]
    refused: list[Refused]


def unit_panel(state: SquaresState, unit_id: str) -> UnitPanel:
    """Who may rally ``unit_id`` now (odds, modifiers) and why the others may not."""
    board = state.board
    choices = [_choice(state, p) for p in opportunities(state) if p.unit == unit_id]
    allowed = {(c.leader, c.kind) for c in choices}
    refused: list[Refused] = []
    leaders = [board.brigadier_of(unit_id), board.commander_of(board.side_of(unit_id))]
    for leader in dict.fromkeys(lead for lead in leaders if lead is not None):
        for kind in RallyKind:
            if (leader, kind.value) in allowed:
                continue
            try:
                plan_rally(state, leader, unit_id, kind)
            except RallypointError as exc:
                refused.append(Refused(leader, kind.value, exc.what))
    return UnitPanel(unit_id, choices, refused)


def lab_rows(campaign: Campaign) -> list[dict[str, Any]]:
    """Every rally allowed now, each modifier named, with its exact odds (the lab page)."""
    state = squares_state(campaign)
    return [{"leader": state.board.name(p.leader), "unit": state.board.name(p.unit),
             "kind": p.kind.value, "modifiers": [(m.name, m.value) for m in p.node.modifiers],
             "total": p.node.modifier_total,
             "odds": {r.value: f for r, f in p.odds(state).items()}}
            for p in opportunities(state)]


def _cells(state: dict[str, Any]) -> dict[str, dict[str, list[tuple[str, dict[str, Any]]]]]:
    """Square → its units and leaders (in play)."""
    cells: dict[str, dict[str, list[tuple[str, dict[str, Any]]]]] = {}
    for uid, u in state["units"].items():
        if u["status"] == "in_play":
            cells.setdefault(u["square"], {"units": [], "leaders": []})["units"].append((uid, u))
    for lid, ldr in state["leaders"].items():
        if ldr["square"]:
            cells.setdefault(ldr["square"], {"units": [], "leaders": []})["leaders"].append(
                (lid, ldr))
    return cells


def context(campaign: Campaign, unit: str | None = None, viewer: Viewer = EVERYTHING
            ) -> dict[str, Any]:
    """Everything the squares page template shows (``unit``: the chosen unit, if any)."""
    state = squares_state(campaign)
    view = campaign.ruleset.state_json(state)
    grid = state.board.scenario.grid
    sides = {s: i for i, s in enumerate(state.board.side_marks)}
    chosen = unit if unit in state.units and state.units[unit].in_play else None
    in_play = [uid for uid, u in state.units.items() if u.in_play]
    return {**_forms(campaign, viewer, view, in_play),
        "s": view,
        "columns": [chr(ord("A") + i) for i in range(grid.columns)],
        "rows": list(range(grid.rows, 0, -1)),
        "cells": _cells(view),
        "marks": state.board.side_marks,
        "side_index": sides,
        "chosen": unit_panel(state, chosen) if chosen else None,
        "in_play": in_play,
        "out": [uid for uid, u in state.units.items() if not u.in_play],
        "pending": campaign.ruleset.pending(state),
    }


def _forms(campaign: Campaign, viewer: Viewer, view: dict[str, Any], in_play: list[str]
           ) -> dict[str, Any]:
    """What each form offers ``viewer``: only the units and leaders their seat may command
    (the ruleset's ownership declaration, :func:`rallypoint.session.ownership.offered`)."""
    def own(kind: str, field: str, values: list[str]) -> list[str]:
        return offered(campaign, viewer, kind, field, values, state=view)

    everyone = in_play + list(view["leaders"])
    return {"activate_who": own("activate", "who", everyone),
            "move_who": own("move", "who", everyone),
            "fire_units": own("fire", "unit", in_play),
            "lose_units": own("lose", "unit", in_play),
            "disorder_units": own("disorder", "unit", in_play),
            "rally_leaders": frozenset(own("rally", "leader", list(view["leaders"])))}


LAB_TEMPLATE = "squares/lab_panel.html"
"""The squares panel of the lab page: every rally allowed now, with its exact odds."""


def lab_context(campaign: Campaign, **_: object) -> dict[str, object]:
    """What the squares lab panel shows: :func:`lab_rows`."""
    return {"rally_rows": lab_rows(campaign)}


VIEW = View(template=TEMPLATE, context=context, query=QUERY, parts=PARTS, commands=COMMANDS,
            due_actions=DUE_ACTIONS, lab_template=LAB_TEMPLATE, lab_context=lab_context)
"""The squares page (its plugin's ``web`` part)."""
