"""What crosses between the rules and the front ends is JSON, checked where it is made (issue 21).

The boundary's signatures name JSON (``JsonObject``) instead of ``Any``; these tests hold the
runtime side of that promise: a value that is not JSON is refused where it is built, and the
typed readers of a decision's choices read back exactly what the JSON says.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from rallypoint.core.json_types import JsonObject
from rallypoint.core.ruleset import Decision
from rallypoint.rulesets.platoon.choices import CommanderChoices, TankChoices
from rallypoint.rulesets.tcs.choices import DistributeChoices


def test_a_decision_whose_choices_are_not_json_is_refused() -> None:
    # A Fraction is what a rule computing odds would naturally hand over; JSON has no such value.
    with pytest.raises(ValidationError, match=r"options\.odds"):
        # Built from data (what a careless rule would pass on), not typed keywords: mypy would
        # catch the keyword form before it ran.
        Decision.model_validate({"key": "k", "kind": "rally", "subject": "u", "prompt": "p",
                                 "options": {"odds": Fraction(1, 3)}})


def test_a_decision_keeps_json_choices_as_given() -> None:
    options: JsonObject = {
        "candidates": [{"leader": "L1", "rally": "morale", "pass": "1/3"}], "n": 2}
    assert Decision(key="k", kind="rally", subject="u", prompt="p",
                    options=options).options == options


def test_typed_choices_read_back_what_the_json_says() -> None:
    json = {"own": ["2G", "2L"], "other": ["1G"], "wait": True}
    assert CommanderChoices.model_validate(json) == CommanderChoices(
        own=("2G", "2L"), other=("1G",), wait=True)
    assert CommanderChoices.model_validate(json).to_json() == json
    assert TankChoices(crews=("1", "3")).to_json() == {"crews": ["1", "3"]}


def test_choices_of_another_shape_are_refused_not_guessed() -> None:
    with pytest.raises(ValidationError, match="crews"):
        TankChoices.model_validate({"crew": ["1"]})
    with pytest.raises(ValidationError, match="dead_pile"):
        DistributeChoices.model_validate({
            "company": "c", "steps": 1, "heal": {}, "resurrect": {},
            "max_resurrections": 0, "very_dead_per_resurrection": 1,
            "single_dead_counter": False, "center": None, "redistribution": True})
