"""Pure folding of squares events into state, the initial state, and the JSON view."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rallypoint.core.json_types import JsonObject
from rallypoint.rulesets.squares.data import load_data
from rallypoint.rulesets.squares.events import (
    Activated,
    FiredUpon,
    Rallied,
    SightSet,
    SquaresEvent,
    TurnAdvanced,
)
from rallypoint.rulesets.squares.scenario import Scenario
from rallypoint.rulesets.squares.state import (
    Activation,
    Board,
    LeaderState,
    SquaresState,
    UnitState,
)


def initial_state(scenario: Mapping[str, Any], rules_data: Mapping[str, Any]) -> SquaresState:
    """The state at the start of a battle, from the stored scenario and data."""
    spec = Scenario.model_validate(scenario)
    units = {u.id: UnitState(u.id, u.start_sp, u.square, u.disordered) for u in spec.units}
    leaders = {ld.id: LeaderState(ld.id, ld.square) for ld in spec.leaders}
    return SquaresState(board=Board(spec), rules=load_data(rules_data), turn=1, units=units,
                        leaders=leaders)


def _with_updates(state: SquaresState, event: SquaresEvent) -> SquaresState:
    if not event.units and not event.leaders:
        return state
    units = dict(state.units)
    for ident, u in event.units.items():
        units[ident] = UnitState(ident, u.sp, u.square, u.disordered, u.status)
    leaders = dict(state.leaders)
    for ident, ld in event.leaders.items():
        leaders[ident] = LeaderState(ident, ld.square, ld.attached)
    return replace(state, units=units, leaders=leaders)


def apply(state: SquaresState, event: SquaresEvent) -> SquaresState:
    """Fold one event into a new state; the input state is never changed, no rule is consulted."""
    state = _with_updates(state, event)
    if isinstance(event, FiredUpon):
        unit = event.unit
        marks = {**state.under_fire, unit: (*state.under_fire.get(unit, ()), event.fire)}
        return replace(state, under_fire=marks)
    if isinstance(event, Activated):
        return replace(state, activated=state.activated | {event.who},
                       activation=Activation(event.who, event.recovered))
    if isinstance(event, Rallied):
        return replace(state, activated=state.activated | {event.leader},
                       activation=Activation(event.leader))
    if isinstance(event, TurnAdvanced):
        return replace(state, turn=event.turn, under_fire={}, activated=frozenset(),
                       activation=None)
    if isinstance(event, SightSet):
        sight = {k: v for k, v in state.sight.items() if k != event.key}
        if event.ruling != "auto":
            sight[event.key] = event.ruling == "clear"
        return replace(state, sight=sight)
    return state


def state_json(state: SquaresState) -> JsonObject:
    """JSON view: turn, grid and terrain, units, leaders, fire marks, activations, rulings."""
    board = state.board
    grid = board.scenario.grid
    return {
        "ruleset": "squares",
        "title": board.scenario.scenario.title,
        "turn": state.turn,
        "grid": {"columns": grid.columns, "rows": grid.rows},
        "terrain": {str(sq): {"kind": t.kind, "side": t.side}
                    for sq, t in sorted(board.terrain.items())},
        "units": {
            u.id: {"name": board.name(u.id), "side": board.side_of(u.id),
                   "brigade": board.units[u.id].brigade, "stamina": state.stamina(u.id),
                   "sp": u.sp, "square": u.square, "disordered": u.disordered,
                   "shaken": state.shaken(u.id), "status": u.status.value,
                   "attached": list(state.attached_to(u.id))}
            for u in state.units.values()
        },
        "leaders": {
            ld.id: {"name": board.name(ld.id), "role": board.leaders[ld.id].role.value,
                    "side": board.side_of(ld.id), "brigade": board.leaders[ld.id].brigade,
                    "square": ld.square, "attached": ld.attached}
            for ld in state.leaders.values()
        },
        "under_fire": {k: list(v) for k, v in state.under_fire.items()},
        "activated": list(sorted(state.activated)),  # list(): sorted() is typed list[str], not JSON
        "activation": None if state.activation is None else {
            "who": state.activation.who, "recovered": state.activation.recovered},
        "sight": dict(sorted(state.sight.items())),
    }
