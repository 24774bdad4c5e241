"""A long TCS log for the streaming tests, as ``bench/commands.py`` ``big_tcs`` builds one: a
sheet, then turns, each decided by the rules with its command and stored in one transaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rallypoint.core.events import EventRecord, NewEvent
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs.commands import AdvanceTurn, WriteSheet
from rallypoint.session import Session
from rallypoint.store import EventStore

TCS = (Path(__file__).resolve().parents[1] / "src" / "rallypoint" / "rulesets" / "tcs"
       / "scenarios" / "example1_tolvajarvi.toml")


def long_tcs_log(db: Path, events: int, seed: str) -> list[EventRecord]:
    """A TCS campaign named ``long`` of ``events`` events in a new database at ``db``; its
    stored records."""
    session = Session(db)
    info = session.create(TCS, name="long", seed=seed)
    c = session.load("long")
    ruleset, state = c.ruleset, c.state
    command: Any = WriteSheet(
        expected_version=1, sheet="rest", members=("ErP112",), size=1, attest=True,
        centers={"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21",
                 "MG/ErP112": "8.21"})
    stored: list[NewEvent] = []
    while len(stored) < events - 1:
        event = ruleset.decide(state, command, ScriptedRoller(()))
        stored.append(NewEvent.of(event).made_by(command.model_dump(mode="json"), None))
        state = ruleset.apply(state, event)
        command = AdvanceTurn(expected_version=len(stored) + 1)
    with EventStore(db) as store:
        store.append_many(info.id, 2, stored)
        return store.events(info.id)
