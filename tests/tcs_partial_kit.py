"""A two-side TCS campaign for the partial-log tests, and the reference partial fold.

The scenario is made up for the tests (not from the seed): Example #1's ErP 112th (two companies
and its MG) against a Soviet rifle battalion with a tank company and a dead FO, so both sides
have Dead Piles to recover, morale to roll and a vehicle sheet to write.

:func:`partial_fold` is the oracle's other side, written here and not taken from the code under
test: it folds a log the way a seat's database holds it (whole events read and applied, redacted
ones through ``apply_redacted``; ``undone`` targets skipped as ``core.campaign.fold`` does).
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rallypoint.core.blinds import with_blind
from rallypoint.core.campaign import Campaign, created_from_scenario, start
from rallypoint.core.events import EventRecord, NewEvent
from rallypoint.core.ruleset import Command
from rallypoint.core.visibility import (
    Viewer,
    declaration_of,
    is_redacted,
    redact_state,
)
from rallypoint.dice import ScriptedRoller
from rallypoint.dice.audit import logical_position
from rallypoint.dice.play import with_proof
from rallypoint.dice.v1 import DiceMode, ProvenRoller
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.ruleset import RULESET
from rallypoint.rulesets.tcs.state import TcsState

SIDES = ("finland", "soviet")
TCS = RULESET
DECLARATION = declaration_of("tcs")

SCENARIO_TOML = """\
ruleset = "tcs"

[scenario]
title = "Tolvajarvi, two sides (partial-log tests)"
game = "A Frozen Hell"
source = "tests: made up around Example #1's ErP 112th (not from the seed)"
fo_recovery_number = 12

[turn_track]
start = "1939-12-13T15:00:00"
turn_minutes = 20
night_turn_minutes = 60
night_begins = "16:00:00"
night_ends = "08:00:00"

[[sides]]
id = "finland"
name = "Finland"
nationality = "finnish"

[[sides]]
id = "soviet"
name = "Soviet Union"
nationality = "soviet"
fo_pile = true

[[formations]]
id = "ErP112"
name = "ErP 112th"
side = "finland"
command_prep = 2
morale = 4

[[formations.companies]]
id = "1/ErP112"

[[formations.companies.counters]]
id = "1/ErP112-1"
type = "inf"
steps = 5
morale = 1
lost = 2
hex = "23.15"

[[formations.companies.counters]]
id = "1/ErP112-d"
type = "inf"
steps = 5
morale = 1
count = 2
pile = "dead"

[[formations.companies]]
id = "2/ErP112"

[[formations.companies.counters]]
id = "2/ErP112-1"
type = "inf"
steps = 5
morale = 1
lost = 3
hex = "17.21"

[[formations.companies.counters]]
id = "2/ErP112-d"
type = "inf"
steps = 5
morale = 1
pile = "dead"

[[formations.companies]]
id = "MG/ErP112"
kind = "battalion_troops"

[[formations.companies.counters]]
id = "MG/ErP112-1"
type = "hwy"
steps = 2
morale = 1
hex = "8.21"

[[formations]]
id = "609RR"
name = "609th Rifle Regiment, 1st Bn"
side = "soviet"
command_prep = 3
morale = 2

[[formations.companies]]
id = "1/609"

[[formations.companies.counters]]
id = "1/609-1"
type = "inf"
steps = 4
morale = 4
lost = 1
hex = "30.10"

[[formations.companies.counters]]
id = "1/609-d"
type = "inf"
steps = 4
morale = 4
count = 2
pile = "dead"

[[formations.companies]]
id = "T/609"

[[formations.companies.counters]]
id = "T/609-1"
type = "tank"
kind = "tank"
target = "V"
steps = 1
hex = "32.12"

[[formations.companies.counters]]
id = "T/609-d"
type = "tank"
kind = "tank"
target = "V"
steps = 1
count = 2
pile = "dead"

[[formations.companies]]
id = "FO/609"
kind = "independent_platoon"

[[formations.companies.counters]]
id = "FO/609-1"
type = "inf"
kind = "fo"
steps = 1
pile = "fo"
"""


@functools.cache
def scenario() -> Mapping[str, Any]:
    """The validated, JSON-ready scenario (stored in ``created``)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "two_sides.toml"
        path.write_text(SCENARIO_TOML, encoding="utf-8")
        return TCS.load_scenario(path)


def fresh() -> Campaign:
    """A new in-memory campaign of the scenario."""
    return start(created_from_scenario(TCS, dict(scenario()), "partial", seed="partial-seed"))


def owner_of(c: Campaign, command: Command) -> str | None:
    """The side a command acts for, as the declaration says (``None``: anyone's)."""
    data = command.model_dump(mode="json", exclude={"expected_version"})
    return DECLARATION.command_owner(scenario(), TCS.state_json(tcs_state(c)), data)


def record(c: Campaign, command: Command, faces: Sequence[int], *,
           state: TcsState | None = None, blind: str = "b1" * 16) -> Campaign:
    """Decide ``command`` as a seated front end would and record it: pair-mode style dice proof
    (scripted faces; mode, position, round, seat, command, tape and links filled in) and a
    blind on events that hide anything.

    ``state``: decide on this state instead of the campaign's (a seat's own database, which
    holds only part of what the shared chain ``c`` folds to).
    """
    c.check_version(command)
    seat = owner_of(c, command) or SIDES[0]
    roller = ProvenRoller(ScriptedRoller(faces), DiceMode.PAIR, logical_position(c.events),
                          command.model_dump(mode="json"), round=c.version,
                          links={s: f"{n:02x}" * 32 for n, s in enumerate(SIDES)}, seat=seat)
    decided = TCS.decide(tcs_state(c) if state is None else state, command, roller)
    event = with_proof(NewEvent.of(decided), roller)
    return c.record(with_blind(c.events, event, blind))


def partial_fold(records: Sequence[EventRecord],
                 apply_redacted: Callable[[TcsState, str, Mapping[str, Any]], TcsState]
                 | None = None) -> TcsState:
    """The state a seat's database folds from a log it holds partly redacted."""
    fold_redacted = apply_redacted or TCS.apply_redacted
    created = records[0].payload
    state: TcsState = TCS.initial_state(created["scenario"], created["rules_data"])
    undone = {int(r.payload["target"]) for r in records if r.type == "undone"}
    for r in records[1:]:
        if r.type == "undone" or r.seq in undone:
            continue
        if is_redacted(r):
            state = fold_redacted(state, r.type, r.payload)
        else:
            state = TCS.apply(state, TCS.read_event(r.type, r.payload))
    return state


def seen(state: TcsState, side: str) -> dict[str, Any]:
    """What ``side`` may see of a state: ``redact_state(state_json(state), side)``."""
    return redact_state(TCS.state_json(state), scenario(), Viewer.of_side(side), DECLARATION)
