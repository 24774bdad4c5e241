"""A TCS state keeps only the night runs an owed accrual may still read, so a long campaign's
state (and its snapshot, read by every command) stays the same size, and owed accruals read
every missed turn's night flag as it was played.

Oracle: the ``night`` of each ``turn_advanced`` event, and the same events folded with every run
kept (``_runs_still_read`` replaced by the identity).
"""

from __future__ import annotations

import pytest

from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs import fold
from rallypoint.rulesets.tcs.commands import Accrue, AdvanceTurn, WriteSheet
from rallypoint.rulesets.tcs.events import TcsEvent, TurnAdvanced
from rallypoint.rulesets.tcs.ruleset import RULESET
from rallypoint.rulesets.tcs.state import TcsState

TURNS = 160  # several game days: the night flag changes every few dozen turns


def _start() -> tuple[TcsState, list[TcsEvent]]:
    ruleset = RULESET
    scenario = ruleset.load_scenario(ruleset.example_scenarios()[0])
    state: TcsState = ruleset.initial_state(scenario, ruleset.rules_data(scenario))
    command = ruleset.conformance_commands(state, 1)  # a pending sheet
    assert isinstance(command, WriteSheet)
    event = ruleset.decide(state, command, ScriptedRoller([]))
    return ruleset.apply(state, event), [event]


def _turns(state: TcsState, events: list[TcsEvent], count: int,
           lose_accruals: bool) -> TcsState:
    """``count`` turns; ``lose_accruals``: as the other database's turns arrive by mail (decided
    there, where the sheet is unknown: this database's sheet did not accrue on them)."""
    ruleset = RULESET
    there = state
    for _ in range(count):
        event = ruleset.decide(there, AdvanceTurn(expected_version=len(events) + 1),
                               ScriptedRoller([]))
        there = ruleset.apply(there, event)
        if lose_accruals:
            assert isinstance(event, TurnAdvanced) and event.accruals
            event = event.model_copy(update={"accruals": ()})
        events.append(event)
        state = ruleset.apply(state, event)
    return state


def _nights(events: list[TcsEvent]) -> dict[int, bool]:
    return {e.turn: e.night for e in events if isinstance(e, TurnAdvanced)}


def test_a_whole_log_keeps_one_or_two_runs_and_every_flag_it_reads() -> None:
    state, events = _start()
    state = _turns(state, events, TURNS, lose_accruals=False)
    nights = _nights(events)
    assert len(set(nights.values())) == 2  # the game crossed nights and days
    changes = sum(nights[t] != nights[t - 1] for t in range(3, TURNS + 2))
    assert changes >= 4
    assert len(state.night_runs) <= 2
    assert state.night_of(state.turn) is nights[state.turn]


def test_owed_accruals_read_every_missed_turns_flag_as_the_full_runs_do(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = RULESET
    state, events = _start()
    state = _turns(state, events, 50, lose_accruals=False)  # accrued through turn 51
    state = _turns(state, events, TURNS, lose_accruals=True)  # then owes 160 turns
    nights = _nights(events)
    owed = range(51 + 1, 51 + TURNS + 1)
    assert state.sheets["conformance"].accrued_turn == 51 and state.turn == 51 + TURNS
    assert {t: state.night_of(t) for t in owed} == {t: nights[t] for t in owed}
    settled = ruleset.decide(state, Accrue(expected_version=len(events) + 1), ScriptedRoller([]))
    # Once settled, the old runs go at the next turn.
    after = _turns(ruleset.apply(state, settled), [*events, settled], 1, lose_accruals=False)
    assert after.night_runs == ((201, False),) and after.night_of(after.turn) is False

    monkeypatch.setattr(fold, "_runs_still_read", lambda runs, sheets, turn: runs)
    kept = _start()[0]
    for event in events[1:]:
        kept = ruleset.apply(kept, event)
    assert len(kept.night_runs) == 11 and len(state.night_runs) == 9
    assert ruleset.decide(kept, Accrue(expected_version=len(events) + 1),
                          ScriptedRoller([])) == settled
