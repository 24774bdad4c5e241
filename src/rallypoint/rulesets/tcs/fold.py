"""Pure folding of TCS events into state, the initial state, and the JSON/log views."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from rallypoint.dice import Roll
from rallypoint.rulesets.tcs.data import Column, RulesData, load_data
from rallypoint.rulesets.tcs.scenario import Pile, Scenario
from rallypoint.rulesets.tcs.state import (
    CounterState,
    Oob,
    Recovery,
    SheetState,
    SheetStatus,
    TcsState,
)


def initial_state(scenario: Mapping[str, Any], rules_data: Mapping[str, Any]) -> TcsState:
    """The state at the start of a campaign, from the stored scenario and data."""
    spec = Scenario.model_validate(scenario)
    oob = Oob(spec)
    counters: dict[str, CounterState] = {}
    for counter_id, entry in oob.counter_specs.items():
        on_map = entry.pile is Pile.MAP
        counters[counter_id] = CounterState(
            counter_id, entry.steps - entry.lost if on_map else 0, entry.pile,
            entry.hex if on_map else None)
    morale = {f.id: f.morale for f in spec.formations if f.morale is not None}
    start = spec.turn_track.start
    return TcsState(oob=oob, rules=load_data(rules_data), turn=1, clock=start,
                    night=spec.turn_track.is_night(start), counters=counters, morale=morale)


def _with_counters(state: TcsState, payload: Mapping[str, Any]) -> TcsState:
    updates = payload.get("counters") or {}
    if not updates:
        return state
    counters = dict(state.counters)
    for ident, c in updates.items():
        counters[ident] = CounterState(ident, int(c["steps"]), Pile(c["pile"]), c["hex"])
    return replace(state, counters=counters)


def _leave(state: TcsState, left: Mapping[str, Any]) -> TcsState:
    sheet = state.sheets[left["sheet"]]
    remaining = tuple(c for c in sheet.companies if c != left["company"])
    status = SheetStatus.CANCELLED if not remaining else sheet.status
    new = replace(sheet, companies=remaining, left=(*sheet.left, left["company"]), status=status)
    return replace(state, sheets={**state.sheets, sheet.id: new})


def _morale(state: TcsState, results: list[Mapping[str, Any]]) -> TcsState:
    if not results:
        return state
    morale = dict(state.morale)
    for r in results:
        morale[r["formation"]] = int(r["after"])
    return replace(state, morale=morale)


def apply(state: TcsState, event_type: str, payload: Mapping[str, Any]) -> TcsState:
    """Fold one event into a new state; the input state is never changed."""
    state = _with_counters(state, payload)
    if event_type == "loss" and payload.get("exception_count") is not None:
        counts = {**state.exception_counts, payload["cause"]: int(payload["exception_count"])}
        return replace(state, exception_counts=counts)
    if event_type == "moved" and payload.get("left_center"):
        return _leave(state, payload["left_center"])
    if event_type == "left_center":
        return _leave(state, payload)
    if event_type == "sheet_written":
        sheet = SheetState(
            id=payload["sheet"], members=tuple(payload["members"]),
            companies=tuple(payload["companies"]), centers=dict(payload["centers"]),
            other_sheet=tuple(payload["other_sheet"]), size=int(payload["size"]),
            row=int(payload["row"]), vehicle=bool(payload["vehicle"]),
            written_turn=int(payload["turn"]))
        return replace(state, sheets={**state.sheets, sheet.id: sheet})
    if event_type == "turn_advanced":
        sheets = dict(state.sheets)
        for a in payload["accruals"]:
            sheets[a["sheet"]] = replace(sheets[a["sheet"]], weighted_turns=int(a["total"]))
        return replace(state, turn=int(payload["turn"]),
                       clock=datetime.fromisoformat(payload["clock"]),
                       night=bool(payload["night"]), sheets=sheets)
    if event_type == "implementation_checked":
        return _implementation(state, payload)
    if event_type == "distributed":
        recoveries = list(state.recoveries)
        for n, r in enumerate(recoveries):
            if r.company == payload["company"] and not r.resolved:
                recoveries[n] = replace(r, resolved=True)
                break
        return _morale(replace(state, recoveries=tuple(recoveries)), payload["morale"])
    if event_type == "morale_set":
        return replace(state, morale={**state.morale, payload["formation"]: int(payload["value"])})
    if event_type == "fo_rolled":
        return replace(state, fo_rolled_turn=int(payload["turn"]))
    return state


def _implementation(state: TcsState, payload: Mapping[str, Any]) -> TcsState:
    sheet = state.sheets[payload["sheet"]]
    if not payload["implemented"]:
        sheet = replace(sheet, last_check_turn=int(payload["turn"]))
        return replace(state, sheets={**state.sheets, sheet.id: sheet})
    sheet = replace(sheet, last_check_turn=int(payload["turn"]), status=SheetStatus.IMPLEMENTED)
    new = tuple(
        Recovery(sheet=sheet.id, company=r["company"], column=Column(r["column"]),
                 steps=int(r["steps"]),
                 roll=Roll.model_validate(r["roll"]) if r["roll"] else None,
                 resolved=bool(r["moot"]) or (int(r["steps"]) == 0
                                              and not r.get("pooling", False)))
        for r in payload["recoveries"])
    state = replace(state, sheets={**state.sheets, sheet.id: sheet},
                    recoveries=(*state.recoveries, *new))
    return _morale(state, payload["morale"])


def state_json(state: TcsState) -> dict[str, Any]:
    """JSON view: turn, clock, piles by company, morale, sheets, recoveries."""
    oob = state.oob
    companies = {}
    for company, ids in oob.counters_of.items():
        companies[company] = {
            "name": oob.name(company),
            "formation": oob.formation_of[company],
            "counters": {i: {"steps": state.counters[i].steps, "full": state.full(i),
                             "pile": state.counters[i].pile.value, "hex": state.counters[i].hex}
                         for i in ids},
            "piles": {p.value: len(state.in_pile(company, p)) for p in Pile},
        }
    return {
        "ruleset": "tcs",
        "title": oob.scenario.scenario.title,
        "turn": state.turn,
        "clock": state.clock.isoformat(timespec="minutes"),
        "night": state.night,
        "morale": dict(state.morale),
        "companies": companies,
        "sheets": {
            s.id: {"status": s.status.value, "companies": list(s.companies),
                   "centers": s.centers, "weighted_turns": s.weighted_turns, "row": s.row,
                   "size": s.size, "left": list(s.left), "other_sheet": list(s.other_sheet)}
            for s in state.sheets.values()
        },
        "recoveries": [
            {"sheet": r.sheet, "company": r.company, "column": r.column.value,
             "steps": r.steps, "resolved": r.resolved} for r in state.recoveries
        ],
        "exception_counts": dict(state.exception_counts),
    }


def rules_of(state: TcsState) -> RulesData:
    """The rules data a state plays by."""
    return state.rules
