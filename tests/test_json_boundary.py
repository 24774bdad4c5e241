"""What crosses between the rules and the front ends is JSON, checked where it is made (issue 21).

The boundary's signatures name JSON (``JsonObject``) instead of ``Any``; these tests hold the
runtime side of that promise: a value that is not JSON is refused where it is built, and the
typed readers of a decision's choices read back exactly what the JSON says.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from pydantic import ValidationError

from rallypoint.core.campaign import created_event, start
from rallypoint.core.json_types import JsonObject
from rallypoint.core.registry import get_ruleset
from rallypoint.core.ruleset import Decision
from rallypoint.rulesets.platoon.choices import CommanderChoices, TankChoices
from rallypoint.rulesets.tcs.choices import DistributeChoices
from rallypoint.session.results import CampaignView, campaign_view, log_entries


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


def test_a_campaign_view_is_exactly_the_json_its_type_names() -> None:
    ruleset = get_ruleset("squares")
    (path,) = [p for p in ruleset.example_scenarios() if p.stem == "farm_below_the_ridge"]
    c = start(created_event(ruleset, path, "view", seed="s"))
    view = campaign_view(c)
    # Every key the type promises and no other: front ends read these fields by name.
    assert set(view) == CampaignView.__required_keys__ == {
        "campaign", "name", "version", "state", "pending"}
    assert (view["name"], view["version"], view["state"]["turn"]) == ("view", 1, 1)
    assert json.loads(json.dumps(view)) == view


def test_a_log_entry_and_an_executed_command_give_plain_json() -> None:
    ruleset = get_ruleset("squares")
    (path,) = [p for p in ruleset.example_scenarios() if p.stem == "farm_below_the_ridge"]
    c = start(created_event(ruleset, path, "log", seed="s"))
    (entry,) = log_entries(c)
    assert entry.to_json() == {"seq": 1, "type": "created", "recorded_at": entry.recorded_at,
                               "undone": False, "summary": entry.summary, "rolls": []}
    assert json.loads(json.dumps(entry.to_json())) == entry.to_json()


def test_a_page_context_listing_something_else_as_pending_is_refused_not_shown() -> None:
    from rallypoint.web.due import listed

    decision = Decision(key="k", kind="rally", subject="u", prompt="p")
    assert listed({"pending": (decision,)}, "pending", Decision) == [decision]
    assert listed({}, "pending", Decision) is None
    # A view handing the page its decisions as JSON would otherwise fail deep in a template.
    with pytest.raises(TypeError, match="'pending' must list Decision"):
        listed({"pending": [decision.model_dump()]}, "pending", Decision)
