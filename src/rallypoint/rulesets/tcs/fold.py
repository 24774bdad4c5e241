"""Pure folding of TCS events into state, the initial state, and the JSON/log views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from rallypoint.core.errors import IntegrityError
from rallypoint.core.json_types import JsonObject
from rallypoint.rulesets.tcs.data import RulesData, load_data
from rallypoint.rulesets.tcs.events import (
    Accrual,
    Accrued,
    Attacked,
    CounterAfter,
    Distributed,
    Fired,
    ImplementationChecked,
    LeaveOutcome,
    LeftCenter,
    Loss,
    MoraleRoll,
    MoraleSet,
    Moved,
    Reassigned,
    SheetWritten,
    TcsEvent,
    TurnAdvanced,
)
from rallypoint.rulesets.tcs.scenario import Pile, Scenario
from rallypoint.rulesets.tcs.state import (
    CounterState,
    Oob,
    Recovery,
    SheetState,
    SheetStatus,
    TcsState,
)

_Frozen = TypeVar("_Frozen", TcsState, SheetState)


def _evolve(value: _Frozen, **changes: Any) -> _Frozen:
    """``dataclasses.replace(value, **changes)`` without its walk over the fields and ``__init__``.

    Why: a whole-log replay spends most of its time replacing the state and the sheets once per
    turn. Exact for these two classes because they are plain frozen dataclasses (no
    ``__post_init__``, no ``InitVar``, no slots, no cached properties — ``tests/test_tcs_fold.py``
    checks that and compares with ``replace``); the copy stays frozen, and an unknown field is
    refused as ``replace`` refuses it.
    """
    fields = value.__dict__
    if not changes.keys() <= fields.keys():
        unknown = sorted(changes.keys() - fields.keys())
        raise TypeError(f"{type(value).__name__} has no field(s) {unknown}")
    new = object.__new__(type(value))
    object.__setattr__(new, "__dict__", {**fields, **changes})
    return new


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
    night = spec.turn_track.is_night(start)
    return TcsState(oob=oob, rules=load_data(rules_data), turn=1, clock=start, night=night,
                    counters=counters, morale=morale, night_runs=((1, night),))


def with_counters(state: TcsState, changed: Mapping[str, CounterAfter]) -> TcsState:
    """The state with each counter of ``changed`` in its new condition (the table, public)."""
    if not changed:
        return state
    counters = dict(state.counters)
    for ident, c in changed.items():
        counters[ident] = CounterState(ident, c.steps, c.pile, c.hex)
    return replace(state, counters=counters)


def _leave(state: TcsState, left: LeaveOutcome | LeftCenter) -> TcsState:
    sheet = state.sheets[left.sheet]
    leaving = left.companies or (left.company,)
    remaining = tuple(c for c in sheet.companies if c not in leaving)
    status = SheetStatus.CANCELLED if not remaining else sheet.status
    new = replace(sheet, companies=remaining, left=(*sheet.left, *leaving), status=status)
    return replace(state, sheets={**state.sheets, sheet.id: new})


def with_morale(state: TcsState, results: tuple[MoraleRoll, ...]) -> TcsState:
    """The state with each battalion morale recovery roll's result (public, like the table)."""
    if not results:
        return state
    morale = dict(state.morale)
    for r in results:
        morale[r.formation] = r.after
    return replace(state, morale=morale)


def apply(state: TcsState, event: TcsEvent) -> TcsState:
    """Fold one event into a new state; the input state is never changed, no rule is consulted."""
    state = with_counters(state, event.counters)
    if isinstance(event, Loss):
        if event.exception_count is None:
            return state
        counts = {**state.exception_counts, event.cause: event.exception_count}
        return replace(state, exception_counts=counts)
    if isinstance(event, Moved):
        return _leave(state, event.left_center) if event.left_center else state
    if isinstance(event, LeftCenter):
        return _leave(state, event)
    if isinstance(event, SheetWritten):
        if event.sheet in state.sheets:
            # The rules never write a name twice; a merged log of two databases that could not
            # see each other's names can (docs/two-player.md): refuse it, not overwrite a sheet.
            raise IntegrityError(f"Recovery Op Sheet {event.sheet!r} is written twice (two "
                                 "sides used one name: give each side a sheet_prefix)",
                                 fix="Give each side a sheet_prefix in the scenario")
        sheet = SheetState(
            id=event.sheet, members=event.members, companies=event.companies,
            centers=dict(event.centers), other_sheet=event.other_sheet, size=event.size,
            row=event.row, vehicle=event.vehicle, written_turn=event.turn,
            accrued_turn=event.turn)
        return replace(state, sheets={**state.sheets, sheet.id: sheet})
    if isinstance(event, TurnAdvanced):
        runs = state.night_runs if event.night == state.night else (
            *state.night_runs, (event.turn, event.night))
        sheets = _accrued(state, event.accruals, event.turn)
        return _evolve(state, turn=event.turn, clock=event.clock, night=event.night,
                       sheets=sheets, night_runs=_runs_still_read(runs, sheets, event.turn),
                       settled_turn=event.turn)
    if isinstance(event, Accrued):
        return _evolve(state, sheets=_accrued(state, event.accruals, event.turn),
                       settled_turn=max(state.settled_turn, event.turn))
    if isinstance(event, ImplementationChecked):
        return _implementation(state, event)
    if isinstance(event, Distributed):
        recoveries = list(state.recoveries)
        for n, r in enumerate(recoveries):
            if r.company == event.company and not r.resolved:
                recoveries[n] = replace(r, resolved=True)
                break
        return with_morale(replace(state, recoveries=tuple(recoveries)), event.morale)
    if isinstance(event, MoraleSet):
        return replace(state, morale={**state.morale, event.formation: event.value})
    if isinstance(event, Reassigned):
        sheet = state.sheets[event.sheet]
        other = (tuple(dict.fromkeys((*sheet.other_sheet, *event.companies))) if event.other_sheet
                 else tuple(c for c in sheet.other_sheet if c not in event.companies))
        return replace(state, sheets={**state.sheets,
                                      sheet.id: replace(sheet, other_sheet=other)})
    if isinstance(event, Attacked):
        return replace(state, attacked={**state.attacked,
                                        **dict.fromkeys(event.companies, event.turn)})
    if isinstance(event, Fired):
        marked = state.fired | {(sheet, event.turn) for sheet in event.sheets}
        sheets = dict(state.sheets)
        for a in event.corrections:
            sheets[a.sheet] = _evolve(sheets[a.sheet], weighted_turns=a.total, last_added=a.added)
        return _evolve(state, fired=marked, sheets=sheets)
    # FoRolled: the FOs' conditions are in ``counters``; remember the hour was rolled.
    return replace(state, fo_rolled_turn=event.turn)


def _runs_still_read(runs: tuple[tuple[int, bool], ...], sheets: Mapping[str, SheetState],
                     turn: int) -> tuple[tuple[int, bool], ...]:
    """The night runs an owed accrual may still read: from the run holding the oldest turn a
    pending sheet has not accrued for (or the current turn) on.

    Why: only owed accruals ask the night flag of a past turn (``TcsState.night_of``, from a
    pending sheet's ``accrued_turn + 1``: seed, "accumulates weighted turns at the same rate as
    any other Op Sheet" on every turn), and a sheet is written pending at its turn, so older
    runs are never read again; keeping them made every state snapshot, and so every command,
    grow with the campaign (a run every half game day). The runs dropped are counted once.
    """
    floor = min((s.accrued_turn + 1 for s in sheets.values()
                 if s.status is SheetStatus.PENDING), default=turn)
    first = 0
    while first + 1 < len(runs) and runs[first + 1][0] <= min(floor, turn):
        first += 1
    return runs[first:] if first else runs


def _accrued(state: TcsState, accruals: Sequence[Accrual], turn: int) -> dict[str, SheetState]:
    """The sheets after ``accruals``: each at its new total, accrued through ``turn``."""
    sheets = dict(state.sheets)
    for a in accruals:
        sheets[a.sheet] = _evolve(sheets[a.sheet], weighted_turns=a.total, accrued_turn=turn,
                                  last_added=a.added)
    return sheets


def _implementation(state: TcsState, event: ImplementationChecked) -> TcsState:
    sheet = replace(state.sheets[event.sheet], last_check_turn=event.turn)
    if not event.implemented:
        return replace(state, sheets={**state.sheets, sheet.id: sheet})
    sheet = replace(sheet, status=SheetStatus.IMPLEMENTED)
    new = tuple(
        Recovery(sheet=sheet.id, company=r.company, column=r.column, steps=r.steps,
                 roll=r.roll, resolved=not r.waits)
        for r in event.recoveries)
    state = replace(state, sheets={**state.sheets, sheet.id: sheet},
                    recoveries=(*state.recoveries, *new))
    return with_morale(state, event.morale)


def state_json(state: TcsState) -> JsonObject:
    """JSON view: turn, clock, piles by company, morale, sheets, recoveries."""
    oob = state.oob
    companies: JsonObject = {}
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
                   "centers": dict(s.centers), "weighted_turns": s.weighted_turns, "row": s.row,
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
