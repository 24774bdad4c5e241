"""A ruleset's front part takes its campaign's state through ``state_of``, checked against its
own state type, never trusted (issue 21): another ruleset's campaign is refused, naming both."""

from __future__ import annotations

import pytest

from rallypoint.core.registry import get_ruleset
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.state import SquaresState
from rallypoint.rulesets.tcs.state import TcsState
from rallypoint.session import Campaign, created_event, start, state_of


def _started(ruleset: str) -> Campaign:
    rules = get_ruleset(ruleset)
    return start(created_event(rules, rules.example_scenarios()[0], "mine", seed="s1"))


def test_the_state_comes_back_as_itself_typed() -> None:
    squares = _started("squares")
    assert state_of(squares, SquaresState) is squares.state
    assert squares_state(squares) is squares.state


def test_another_rulesets_campaign_is_refused() -> None:
    tcs = _started("tcs")
    with pytest.raises(TypeError) as refused:
        squares_state(tcs)
    assert str(refused.value) == ("campaign 'mine' plays tcs: its state is a TcsState, not a "
                                  "SquaresState")
    with pytest.raises(TypeError) as refused:
        state_of(_started("squares"), TcsState)
    assert str(refused.value) == ("campaign 'mine' plays squares: its state is a SquaresState, "
                                  "not a TcsState")
