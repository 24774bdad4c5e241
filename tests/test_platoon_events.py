"""Platoon events store outcomes: replay runs no rule code, so a rule fix never rewrites history.

The oracle for v1 is the golden log (tests/golden/logs/platoon.json, written before outcomes were
stored) and its committed state; for v2 it is the state the live rules produced while playing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import TypeAdapter

from rallypoint.core.campaign import Campaign, created_event, start
from rallypoint.core.errors import IntegrityError
from rallypoint.dice import Roll, SeededRoller
from rallypoint.rulesets.platoon import RULESET, battle, days, people, section9, year
from rallypoint.rulesets.platoon import dice as platoon_dice
from rallypoint.rulesets.platoon import ruleset as platoon_ruleset
from rallypoint.rulesets.platoon.events import READER, Outcome, Rest
from rallypoint.rulesets.platoon.front.campaign import platoon_state
from rallypoint.rulesets.platoon.model import PlatoonState
from rallypoint.store.exchange import read_export

LOGS = Path(__file__).parent / "golden" / "logs"
V1 = Path(platoon_ruleset.__file__).parent / "v1"

RULE_MODULES: tuple[ModuleType, ...] = (days, people, battle, year, section9, platoon_dice)
"""Every live module holding platoon rule code (the ruleset module's ``transition`` too)."""

# SHA-256 of each pinned v1 module: these files define what every v1 platoon event means and
# must never change. A deliberate change needs a new schema version instead.
V1_DIGESTS = {
    "__init__.py": "a42d7722dfc3c03c72c1b4c4bde15932cc5716f0831418ad1b240ab5f5f4cd69",
    "battle.py": "0bf84bfd4bd5dbe67ecf83b1ff6e7964f7dfe00f543cbeaf8002e5b16031f186",
    "commands.py": "e24cfbaef0d8e61cffcb5c84f9da78c2a234485388fac7203e799ec89ff2695b",
    "days.py": "022b866623412c402dd3ef055b029f8f5ffb2649e616a9ad5058588df072dded",
    "dice.py": "9e042d01d7fc76f0d2af8cc800537b5e735e3d9dda1365f4ce95f640dff478be",
    "people.py": "6e4c33f98eb56c2f7d0d2df7256eba6c66c10e9a20d2c65ae15e552bd022f843",
    "replay.py": "d496277a8d248b177de339373d6dd2986bd5dbb750a259e637572224c27f0861",
    "section9.py": "f2b7c194063a0953affb28cffa86330959c09655973d4a04ec6cfb6bd15d2a0f",
    "year.py": "93bc31aeb82d3d14e25f884dd8eae6b71beac43d8c113b7a8ec5fbdeee8d6918",
}


class RuleRan(AssertionError):
    """Raised by a live rule function that a replay must not call."""


def _forbid_rules(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every live platoon rule function raise; return the names patched."""
    patched = []

    def raiser(name: str) -> Any:
        def ran(*args: Any, **kwargs: Any) -> Any:
            raise RuleRan(f"replay ran the rule {name}")
        return ran

    rule_homes = {m.__name__ for m in RULE_MODULES}
    for module in (*RULE_MODULES, platoon_ruleset):
        for name, value in vars(module).items():
            # A rule function wherever it is reachable (its own module, or imported by the
            # ruleset), plus the ruleset's ``transition``; data loading and views are not rules.
            if inspect.isfunction(value) and (value.__module__ in rule_homes
                                              or value is platoon_ruleset.transition):
                monkeypatch.setattr(module, name, raiser(f"{module.__name__}.{name}"))
                patched.append(f"{module.__name__}.{name}")
    monkeypatch.setattr(section9, "DEFAULT_HOOKS", None)
    monkeypatch.setattr(RULESET, "hooks", None)
    return patched


def _played(days_: int) -> Campaign:
    """A campaign played with the live rules (v2 events): battles, rests, decisions."""
    scenario = RULESET.example_scenarios()[0]  # Italy, the seed's own setting
    c = start(created_event(RULESET, scenario, "v2", seed="outcomes"))
    policy = RULESET.policies()[0]
    while platoon_state(c).day <= days_:
        roller = SeededRoller("outcomes", f"v{c.version}")
        pending = RULESET.pending(platoon_state(c))
        if pending:
            c = c.execute(policy.decide(platoon_state(c), pending[0], c.version), roller)
            continue
        state = platoon_state(c)
        kind = "standin" if state.action_today and not state.withdrawn() else "rest"
        c = c.execute(RULESET.parse_command({"kind": kind, "intensity": 3,
                                             "expected_version": c.version}
                                            if kind == "standin" else
                                            {"kind": kind, "expected_version": c.version}),
                      roller)
    return c


def test_the_monkeypatch_reaches_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The patch is real: with it, deciding any command fails (so the replays below prove it)."""
    scenario = RULESET.example_scenarios()[0]  # Italy, the seed's own setting
    c = start(created_event(RULESET, scenario, "x", seed="x"))
    patched = _forbid_rules(monkeypatch)
    assert {"rallypoint.rulesets.platoon.ruleset.transition",
            "rallypoint.rulesets.platoon.battle.check_report",
            "rallypoint.rulesets.platoon.days.fight", "rallypoint.rulesets.platoon.days.rest",
            "rallypoint.rulesets.platoon.year.year_end"} <= set(patched)
    with pytest.raises(RuleRan):
        c.execute(RULESET.parse_command({"kind": "rest", "expected_version": c.version}),
                  SeededRoller("x", "x"))


def test_golden_v1_log_loads_without_any_live_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = json.loads((LOGS / "platoon.state.json").read_text("utf-8"))["state"]
    records = read_export(LOGS / "platoon.json").events
    _forbid_rules(monkeypatch)
    c = Campaign.from_events(records)
    assert json.loads(json.dumps(RULESET.state_json(platoon_state(c)))) == expected


def test_v2_log_replays_to_the_played_state_without_any_rule(
        monkeypatch: pytest.MonkeyPatch) -> None:
    played = _played(12)
    assert {type(e).__name__ for e in played.typed[1:]} >= {"StandIn", "Rest"}
    assert all(e.payload.get("v") == 3 for e in played.events[1:])
    _forbid_rules(monkeypatch)
    replayed = Campaign.from_events(played.events)
    assert replayed.state == played.state
    assert list(platoon_state(replayed).men) == list(platoon_state(played).men)


def _as_v2(payload: dict[str, Any]) -> dict[str, Any]:
    """A v3 payload as the code of 2026-12-01..04 wrote it: no light-wound count, no own crew."""
    outcome = payload.get("outcome")
    if not isinstance(outcome, dict):
        return payload
    men = [{k: v for k, v in m.items() if k != "light_wounds"} for m in outcome["men"]]
    tanks = [{k: v for k, v in t.items() if k != "own_crew"} for t in outcome["tanks"]]
    return {**payload, "v": 2, "outcome": {**outcome, "men": men, "tanks": tanks}}


def test_v2_payloads_upcast_to_what_they_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    played = _played(12)
    old = [e.model_copy(update={"payload": _as_v2(dict(e.payload))}) for e in played.events]
    assert all(e.payload.get("v") == 2 for e in old[1:])
    _forbid_rules(monkeypatch)
    replayed = Campaign.from_events(old)
    assert RULESET.state_json(platoon_state(replayed)) == RULESET.state_json(platoon_state(played))
    # The new fields read as unrecorded: no tank an event wrote knows its own crew.
    written = {t["id"] for e in old[1:] for t in e.payload["outcome"]["tanks"]}
    assert written and all(platoon_state(replayed).tanks[t].own_crew is None for t in written)
    assert all(m.light_wounds == 0 for m in platoon_state(replayed).men.values())


def test_v1_payloads_upcast_without_an_outcome() -> None:
    records = read_export(LOGS / "platoon.json").events
    rest = next(r for r in records if r.type == "rest")
    assert "v" not in rest.payload
    event = READER.read(rest.type, rest.payload)
    assert isinstance(event, Rest) and event.v == 3 and event.outcome is None
    stored = TypeAdapter(list[Roll]).validate_python(rest.payload.get("rolls"))
    assert event.rolls and event.rolls[0].faces == stored[0].faces


def test_a_newer_schema_version_is_refused_with_a_fix() -> None:
    with pytest.raises(IntegrityError, match="schema version 99") as info:
        READER.read("rest", {"v": 99, "command": {"kind": "rest"}})
    assert "Upgrade rallypoint" in str(info.value)


def test_outcome_records_every_changing_field_of_the_state() -> None:
    """A field added to PlatoonState must be recorded by the outcome (or be fixed at start)."""
    fixed = {"rules", "name"}  # set at creation, never changed by an event
    records = {"men", "crews", "tanks", "requests", "deferred"}
    scalars = set(Outcome.model_fields) - records
    assert {f.name for f in dataclasses.fields(PlatoonState)} == fixed | records | scalars


def test_pinned_v1_rules_are_unchanged() -> None:
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
               for p in sorted(V1.glob("*.py"))}
    assert digests == V1_DIGESTS
