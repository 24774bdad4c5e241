"""What the session API hands back: frozen values a front end can render or turn into JSON.

Every view is built here, in one place, from a folded :class:`~rallypoint.core.campaign.Campaign`,
so a later front end that shows different players different things can filter these values at
the edge without reaching into rules or state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from rallypoint.core.campaign import Campaign
from rallypoint.core.events import EventRecord
from rallypoint.core.json_types import JsonObject
from rallypoint.core.ruleset import Decision
from rallypoint.dice import Roll


@dataclass(frozen=True)
class Executed:
    """A command (or undo) that was decided and stored.

    Attributes:
        record: The stored event, with its seq and hash.
        campaign: The campaign right after the event.
        summary: What the event did, as the log says it (may span several lines).
        pending: Decisions waiting on the player afterwards.
        retried: Whether the command was made against an older version and, being still legal
            at the new one, was decided again there (a benign race).
    """

    record: EventRecord
    campaign: Campaign
    summary: str
    pending: tuple[Decision, ...]
    retried: bool = False

    def to_json(self) -> JsonObject:
        """``{"seq", "type", "payload"}``: what ``--json`` prints for a recorded command."""
        return {"seq": self.record.seq, "type": self.record.type, "payload": self.record.payload}


@dataclass(frozen=True)
class LogEntry:
    """One event of the log as a player reads it.

    Attributes:
        seq: Its place in the log (1 is the ``created`` event).
        type: Event type.
        recorded_at: When it was stored (ISO 8601 UTC).
        undone: Whether a later ``undone`` event cancelled it.
        summary: One line (plus roll lines) saying what it did.
        rolls: Every roll it stored, with purpose, modifiers and odds.
    """

    seq: int
    type: str
    recorded_at: str
    undone: bool
    summary: str
    rolls: tuple[Roll, ...]

    def to_json(self) -> JsonObject:
        """The JSON form ``rallypoint log --json`` prints."""
        return {"seq": self.seq, "type": self.type, "recorded_at": self.recorded_at,
                "undone": self.undone, "summary": self.summary,
                "rolls": [r.model_dump(mode="json") for r in self.rolls]}


def summary(campaign: Campaign, event: EventRecord) -> str:
    """What one event of ``campaign`` did, in the log's words (core events included)."""
    return campaign.describe(event.seq)


def log_entries(campaign: Campaign, *, since: int | None = None,
                last: int | None = None) -> list[LogEntry]:
    """The log of a fully loaded campaign, oldest first: all of it, or a page of it.

    Only the events shown are described, so a page of a long campaign costs what its events do.

    Args:
        campaign: The campaign, loaded whole.
        since: Start at this seq (events before it are left out).
        last: Only the newest this many (of those from ``since`` on).
    """
    events = campaign.events
    if since is not None:
        events = events[max(since, 1) - 1:]  # seqs are contiguous from 1
    if last is not None:
        events = events[len(events) - last:] if last < len(events) else events
    return [LogEntry(seq=e.seq, type=e.type, recorded_at=e.recorded_at,
                     undone=e.seq in campaign.undone, summary=campaign.describe(e.seq),
                     rolls=tuple(campaign.rolls(e.seq)))
            for e in events]


class CampaignView(TypedDict):
    """The JSON view of a campaign, as ``rallypoint show --json`` prints it.

    Attributes:
        campaign: The campaign's id.
        name: Its name.
        version: Its version (the number of stored events).
        state: The ruleset's view of the state (``Ruleset.state_json``).
        pending: The decisions waiting on the player, each as JSON.
    """

    campaign: str
    name: str
    version: int
    state: JsonObject
    pending: list[JsonObject]


def campaign_view(campaign: Campaign) -> CampaignView:
    """The JSON view of a campaign: id, name, version, the ruleset's state view, pending decisions.

    This is exactly what ``rallypoint show --json`` prints.
    """
    return {"campaign": campaign.campaign_id, "name": campaign.name, "version": campaign.version,
            "state": campaign.ruleset.state_json(campaign.state),
            "pending": [d.model_dump() for d in campaign.ruleset.pending(campaign.state)]}
