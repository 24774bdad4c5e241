"""One generic conformance test, run against every registered ruleset (OpenSpiel-style).

It knows no ruleset: it drives each one through its own scripted playthrough and checks what every
ruleset must guarantee — pure decide/apply, JSON-safe events and commands, stale commands refused,
replay rebuilding identical state, undo restoring the previous state.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toy_kit
from rallypoint.core.campaign import Campaign, created_event, start
from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.errors import StaleVersionError
from rallypoint.core.events import canonical_json
from rallypoint.core.registry import registered
from rallypoint.dice import SeededRoller

with toy_kit.installed():  # a fourth ruleset, installed as a third party's would be
    CASES = [
        (name, path)
        for name, ruleset in registered().items()
        for path in ruleset.example_scenarios()
    ]


def _plain_json(value: object) -> bool:
    """``value`` is exactly what JSON can carry: it survives a round trip unchanged (a tuple,
    a Fraction, an enum or a non-string key would not), which is what ``JsonObject`` in the
    rules' signatures promises the front ends."""
    return bool(json.loads(json.dumps(value)) == value)


def _snapshot(c: Campaign) -> str:
    return canonical_json(c.ruleset.state_json(c.state))


@pytest.mark.parametrize(("name", "scenario"), CASES, ids=[f"{n}:{p.stem}" for n, p in CASES])
def test_ruleset_conformance(name: str, scenario: Path) -> None:
    with toy_kit.installed():
        conforms(registered()[name], scenario)


def conforms(ruleset: ErasedRuleset, scenario: Path) -> None:
    """Drive ``ruleset`` through its scripted playthrough, checking what every ruleset owes."""
    assert ruleset.policies(), "every ruleset offers at least one named policy"
    loaded = ruleset.load_scenario(scenario)
    assert _plain_json(loaded), "a scenario's stored form is JSON"
    assert _plain_json(ruleset.rules_data(loaded)), "rules data is JSON"
    c = start(created_event(ruleset, scenario, "conformance", seed="conformance"))
    history = [_snapshot(c)]
    steps = 0
    while (command := ruleset.conformance_commands(c.state, c.version)) is not None:
        steps += 1
        assert steps < 500, "the conformance playthrough must end"
        before = _snapshot(c)
        assert all(_plain_json(d.options) for d in ruleset.pending(c.state)), \
            "a decision's choices are JSON"
        assert ruleset.parse_command(command.model_dump(mode="json")) == command
        stale = command.model_copy(update={"expected_version": c.version - 1})
        with pytest.raises(StaleVersionError):
            c.decide(stale, SeededRoller("x", "y"))
        event = c.decide(command, SeededRoller(c.seed, f"v{c.version}"))
        assert _snapshot(c) == before, "decide must not change the state"
        assert json.loads(canonical_json(event.payload)) == event.payload
        after = c.record(event)
        assert _snapshot(c) == before, "apply must not mutate its input state"
        assert ruleset.describe(event.event).strip()
        # The stored payload reads back (current schema) into exactly the decided typed event.
        # Any honest version: a new ruleset starts at 1, and must still write it down.
        assert type(event.payload.get("v")) is int and event.payload["v"] >= 1, \
            "a stored payload carries its schema version"
        assert ruleset.read_event(event.type, event.payload) == event.event
        c = after
        history.append(_snapshot(c))
    assert steps >= 3, "the playthrough must exercise the ruleset"
    assert _plain_json(ruleset.state_json(c.state)), "a state's view is JSON"
    assert not ruleset.pending(c.state) or steps >= 3
    rebuilt = Campaign.from_events(c.events)
    assert _snapshot(rebuilt) == _snapshot(c), "replaying the log rebuilds identical state"
    undone = c.undo()
    assert _snapshot(undone) == history[-2], "undo restores the state before the last command"
    assert _snapshot(Campaign.from_events(undone.events)) == history[-2]
