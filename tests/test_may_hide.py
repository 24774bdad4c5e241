"""``may_hide`` and ``event_secrets`` agree, for every ruleset (issue 18).

An import refuses an event that arrives redacted though its type never hides anything (a
sender marking a public loss redacted would dodge its hash check): that needs the declaration's
``may_hide`` to hold for every type its ``event_secrets`` can hide something of. Once a
hand-kept list beside ``event_secrets``, it drifted (``fired`` was missing); TCS now derives it
from the one table ``event_secrets`` dispatches on. The oracle here is ``event_secrets`` itself,
run over real logs: each ruleset's conformance playthrough of every example scenario, and for
TCS a game with every kind of event its sheets make, ``fired`` and owed ``accrued`` included.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.blinds import with_blind
from rallypoint.core.campaign import Campaign, created_event, start
from rallypoint.core.events import EventRecord, NewEvent
from rallypoint.core.registry import registered
from rallypoint.core.visibility import declaration_of, event_secrets
from rallypoint.dice import SeededRoller
from rallypoint.rulesets.tcs.commands import AdvanceTurn, MarkFired, WriteSheet
from rallypoint.rulesets.tcs.events import Accrued, OwedAccrual
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from tcs_partial_kit import fresh, record

CASES = [(name, path) for name, ruleset in registered().items()
         for path in ruleset.example_scenarios()]


def undeclared(log: Sequence[EventRecord]) -> set[str]:
    """The types of ``log`` that hide something though ``may_hide`` says they never do."""
    declared = declaration_of(str(log[0].payload.get("ruleset", "")))
    return {r.type for r, hides in zip(log, event_secrets(log), strict=True)
            if hides.secret and r.type not in ("created", "undone")
            and not declared.may_hide(r.type)}


@pytest.mark.parametrize(("name", "scenario"), CASES, ids=[f"{n}:{p.stem}" for n, p in CASES])
def test_every_playthrough_event_that_hides_something_may_hide(name: str,
                                                               scenario: Path) -> None:
    ruleset = registered()[name]
    c = start(created_event(ruleset, scenario, "hides", seed="hides"))
    while (command := ruleset.conformance_commands(c.state, c.version)) is not None:
        c = c.record(c.decide(command, SeededRoller(c.seed, f"v{c.version}")))
    assert c.version > 3
    assert undeclared(c.events) == set()


def _run(c: Campaign, command: Any) -> Campaign:
    return record(c, type(command).model_validate(
        {**command.model_dump(), "expected_version": c.version}), ())


def test_every_tcs_sheet_event_that_hides_something_may_hide() -> None:
    c = fresh()
    c = _run(c, WriteSheet(expected_version=0, sheet="F", members=("ErP112",), size=0,
                           attest=True, centers={"1/ErP112": "23.15", "2/ErP112": "17.21",
                                                 "MG/ErP112": "8.21"}))
    c = _run(c, AdvanceTurn(expected_version=0, skip_fo=True))
    c = _run(c, MarkFired(expected_version=0, sheets=("F",)))
    owed = with_blind(c.events, NewEvent.of(Accrued(turn=tcs_state(c).turn, accruals=(
        OwedAccrual(sheet="F", added=1, reason="no orders", total=4, turn=tcs_state(c).turn),))),
        "b3" * 16)
    log = [*c.events, EventRecord.seal(c.campaign_id, c.version + 1, owed, c.events[-1].hash,
                                       recorded_at=c.events[-1].recorded_at)]
    hiding = {r.type for r, h in zip(log, event_secrets(log), strict=True) if h.secret}
    assert hiding >= {"sheet_written", "turn_advanced", "fired", "accrued"}
    assert undeclared(log) == set()
