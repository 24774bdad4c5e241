"""Real campaign logs for store tests: a ruleset's own scripted playthrough, as stored events."""

from __future__ import annotations

from functools import cache

from rallypoint.core.campaign import Campaign, created_event, start
from rallypoint.core.events import NewEvent
from rallypoint.core.registry import get_ruleset
from rallypoint.dice import SeededRoller
from rallypoint.store import EventStore


@cache
def playthrough(ruleset_name: str = "squares", name: str = "Kursk") -> Campaign:
    """A campaign played through its ruleset's conformance commands, in memory."""
    ruleset = get_ruleset(ruleset_name)
    c = start(created_event(ruleset, ruleset.example_scenarios()[0], name, seed="kit"))
    while (command := ruleset.conformance_commands(c.state, c.version)) is not None:
        c = c.execute(command, SeededRoller(c.seed, f"v{c.version}"))
    return c


def events(ruleset_name: str = "squares", name: str = "Kursk") -> list[NewEvent]:
    """The playthrough's events, ``created`` first, ready to store again."""
    return [NewEvent(type=e.type, payload=e.payload)
            for e in playthrough(ruleset_name, name).events]


def store_played(store: EventStore, campaign_id: str, name: str = "Kursk", count: int = 3,
                 ruleset_name: str = "squares") -> list[NewEvent]:
    """Store the first ``count`` events of a playthrough; return all of them."""
    played = events(ruleset_name, name)
    assert count <= len(played), f"the playthrough has only {len(played)} events"
    store.create_campaign(campaign_id, name, ruleset_name, played[0])
    if count > 1:
        store.append_many(campaign_id, 2, played[1:count])
    return played
