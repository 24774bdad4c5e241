"""The fold's cheap copy (``fold._evolve``) is exactly ``dataclasses.replace`` for the classes it
copies, and a whole game folds to the same state as with ``replace``."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import FrozenInstanceError, replace
from typing import Any

import pytest

from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs import fold
from rallypoint.rulesets.tcs.commands import AdvanceTurn, WriteSheet
from rallypoint.rulesets.tcs.ruleset import RULESET
from rallypoint.rulesets.tcs.state import SheetState, SheetStatus, TcsState


def _state() -> TcsState:
    ruleset = RULESET
    scenario = ruleset.load_scenario(ruleset.example_scenarios()[0])
    state: TcsState = ruleset.initial_state(scenario, ruleset.rules_data(scenario))
    return state


def _sheet() -> SheetState:
    return SheetState("s1", ("a",), ("a/1",), {"a/1": "10.10"}, (), 2, 3, False, 1,
                      weighted_turns=4, status=SheetStatus.PENDING, left=("x",))


@pytest.mark.parametrize("cls", [TcsState, SheetState])
def test_the_copied_classes_stay_plain_frozen_dataclasses(cls: type[Any]) -> None:
    # What makes _evolve exact: replace() would run nothing more than assigning the fields.
    params = cls.__dataclass_params__
    assert params.frozen and not hasattr(cls, "__slots__")
    assert not hasattr(cls, "__post_init__")
    assert not [f for f in dataclasses.fields(cls) if not f.init]
    assert not [n for n, v in inspect.getmembers(cls) if isinstance(v, property)
                or type(v).__name__ == "cached_property"]


def test_evolve_equals_replace_field_by_field() -> None:
    state, sheet = _state(), _sheet()
    others = (replace(state, turn=7, night=True, fo_rolled_turn=3, attacked={"a": 1}),
              SheetState("s2", ("b",), ("b/1",), {}, ("s1",), 0, 1, True, 5))
    for f in dataclasses.fields(state):
        changed = fold._evolve(state, **{f.name: getattr(others[0], f.name)})
        expected = replace(state, **{f.name: getattr(others[0], f.name)})
        assert changed == expected and repr(changed) == repr(expected)
        assert type(changed) is TcsState
    for f in dataclasses.fields(sheet):
        changed_sheet = fold._evolve(sheet, **{f.name: getattr(others[1], f.name)})
        assert changed_sheet == replace(sheet, **{f.name: getattr(others[1], f.name)})
        assert repr(changed_sheet) == repr(replace(sheet, **{f.name: getattr(others[1], f.name)}))
    new = fold._evolve(sheet, weighted_turns=9, status=SheetStatus.IMPLEMENTED)
    assert new == replace(sheet, weighted_turns=9, status=SheetStatus.IMPLEMENTED)
    assert (sheet.weighted_turns, sheet.status) == (4, SheetStatus.PENDING)  # original untouched


def test_evolve_stays_frozen_and_refuses_unknown_fields() -> None:
    new = fold._evolve(_sheet(), weighted_turns=1)
    with pytest.raises(FrozenInstanceError):
        new.weighted_turns = 2  # type: ignore[misc]
    with pytest.raises(TypeError, match="weighted_turn"):
        fold._evolve(_sheet(), weighted_turn=1)


def test_a_turn_fold_matches_the_replace_fold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Oracle: the same events folded with ``dataclasses.replace`` in place of ``_evolve``."""
    ruleset = RULESET
    state = _state()
    events = []
    version = 1
    command = ruleset.conformance_commands(state, version)  # a sheet: turns then accrue on it
    assert isinstance(command, WriteSheet)
    for _ in range(6):
        assert command is not None
        event = ruleset.decide(state, command, ScriptedRoller([]))
        events.append(event)
        state = ruleset.apply(state, event)
        version += 1
        command = AdvanceTurn(expected_version=version)
    assert state.turn == 6 and state.sheets["conformance"].weighted_turns > 0
    monkeypatch.setattr(fold, "_evolve", replace)
    oracle = _state()
    for event in events:
        oracle = ruleset.apply(oracle, event)
    assert oracle == state and repr(oracle) == repr(state)
