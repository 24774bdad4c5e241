"""The ruleset the registry hands out is erased to ``Ruleset[object, EventModel]`` and checked at
its edge (core/erased.py): a state or event of another ruleset is refused at the call, before any
rule reads it, and what comes back is the ruleset's own value, unchanged."""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable
from typing import Any

import pytest

import toy_kit
from rallypoint.core.erased import Checked, ErasedRuleset, chance_nodes, erase, rules_of
from rallypoint.core.events import EventModel
from rallypoint.core.registry import get_ruleset, registered
from rallypoint.core.ruleset import Decision, Ruleset
from rallypoint.dice import ScriptedRoller, SeededRoller
from rallypoint.rulesets.squares.ruleset import RULESET as SQUARES
from rallypoint.rulesets.squares.state import SquaresState
from rallypoint.rulesets.tcs.ruleset import RULESET as TCS
from rallypoint.rulesets.tcs.state import TcsState


def _start(ruleset: Ruleset[Any, Any]) -> object:
    scenario = ruleset.load_scenario(ruleset.example_scenarios()[0])
    return ruleset.initial_state(scenario, ruleset.rules_data(scenario))


def _first_event(ruleset: Ruleset[Any, Any], state: object) -> EventModel:
    command = ruleset.conformance_commands(state, 1)
    assert command is not None
    event: EventModel = ruleset.decide(state, command, SeededRoller("erased", "test"))
    return event


def test_the_registry_hands_out_each_ruleset_checked_and_once() -> None:
    tcs = get_ruleset("tcs")
    assert isinstance(tcs, Checked) and rules_of(tcs) is TCS
    assert tcs is get_ruleset("tcs") is registered()["tcs"] is erase(TCS) is erase(tcs)
    # A lab worker gets a wrapper of its own copy of the rules, still checked.
    copied = pickle.loads(pickle.dumps(tcs))
    assert isinstance(copied, Checked) and isinstance(rules_of(copied), type(TCS))
    with pytest.raises(TypeError, match="handed a SquaresState"):
        copied.pending(_start(SQUARES))
    assert (tcs.state_type, tcs.event_types) == (TcsState, TCS.event_types)
    assert isinstance(tcs, Ruleset)


def test_its_values_are_the_rulesets_own() -> None:
    tcs = get_ruleset("tcs")
    state = _start(TCS)
    assert isinstance(state, TcsState)
    assert tcs.initial_state is not TCS.initial_state
    command = TCS.conformance_commands(state, 1)
    assert command is not None and tcs.conformance_commands(state, 1) == command
    event = tcs.decide(state, command, ScriptedRoller([]))
    assert event == TCS.decide(state, command, ScriptedRoller([]))
    assert tcs.apply(state, event) == TCS.apply(state, event)
    assert tcs.state_json(state) == TCS.state_json(state)
    assert tcs.pending(state) == TCS.pending(state)
    assert (tcs.describe(event), list(tcs.rolls(event))) == (TCS.describe(event),
                                                              list(TCS.rolls(event)))


def test_a_state_of_another_ruleset_is_refused_at_every_call() -> None:
    tcs = get_ruleset("tcs")
    squares_state = _start(SQUARES)
    assert isinstance(squares_state, SquaresState)
    command = tcs.conformance_commands(_start(TCS), 1)
    assert command is not None
    calls: dict[str, Callable[[], object]] = {
        "decide": lambda: tcs.decide(squares_state, command, ScriptedRoller([])),
        "pending": lambda: tcs.pending(squares_state),
        "state_json": lambda: tcs.state_json(squares_state),
        "conformance_commands": lambda: tcs.conformance_commands(squares_state, 1),
    }
    for name, call in calls.items():
        with pytest.raises(TypeError, match="handed a SquaresState as their state") as refused:
            call()
        assert str(refused.value).startswith("the tcs rules"), name


def test_chance_nodes_refuses_a_state_of_another_ruleset() -> None:
    with toy_kit.installed():
        toy = get_ruleset("toy")
        assert chance_nodes(toy, _start(toy))  # its own state: the forays open at the start
        with pytest.raises(TypeError, match="the toy rules were handed a SquaresState"):
            chance_nodes(toy, _start(SQUARES))
    assert chance_nodes(get_ruleset("squares"), _start(SQUARES)) == ()  # declares none


def test_an_event_of_another_ruleset_is_refused() -> None:
    tcs = get_ruleset("tcs")
    squares_event = _first_event(SQUARES, _start(SQUARES))
    calls: list[Callable[[], object]] = [
        lambda: tcs.apply(_start(TCS), squares_event),
        lambda: tcs.describe(squares_event), lambda: tcs.rolls(squares_event)]
    for call in calls:
        with pytest.raises(TypeError, match=rf"handed a {type(squares_event).__name__} event"):
            call()


def test_a_policy_checks_the_state_it_is_handed() -> None:
    squares = get_ruleset("squares")
    policy = squares.policies()[0]
    assert policy.name == SQUARES.policies()[0].name
    decision = Decision(key="k", kind="rally", subject="x", prompt="p")
    with pytest.raises(TypeError, match="the squares rules were handed a TcsState"):
        policy.decide(_start(TCS), decision, 1)


def test_the_wrapper_has_every_member_of_the_protocol() -> None:
    # A member added to Ruleset and forgotten here would reach no erased ruleset.
    members = {name for name, _ in inspect.getmembers(Ruleset)
               if not name.startswith("_")} | set(Ruleset.__annotations__)
    missing = {m for m in members if not hasattr(Checked, m) and m not in ("name", "title")}
    assert missing == set()
    erased: ErasedRuleset = get_ruleset("squares")
    assert (erased.name, erased.title) == (SQUARES.name, SQUARES.title)
