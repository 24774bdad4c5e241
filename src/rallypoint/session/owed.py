"""What a seat's database owes before that seat's next own event, in a partial log.

In play by e-mail with hidden parts, each database holds its own seat's events whole and the other
seat's redacted (docs/two-player.md). The other seat's rules could not decide what depends on this
seat's secrets (TCS: a turn it advanced accrued only its own Op Sheets), so this seat's ruleset
says what is owed (``owed``, :class:`rallypoint.core.ruleset.PartialKnowledge`) and it is appended
before this seat's next command, in the same transaction: the command is then decided after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from secrets import token_hex
from typing import TYPE_CHECKING, Final

from rallypoint.core.blinds import with_blind
from rallypoint.core.campaign import Campaign
from rallypoint.core.erased import rules_of
from rallypoint.core.events import NewEvent
from rallypoint.dice import ScriptedRoller

if TYPE_CHECKING:
    from rallypoint.store import EventStore

MAX_OWED: Final = 8
"""A ruleset's ``owed`` settles in one command (TCS: one ``accrued``); this is a bound on a
ruleset that keeps owing, not a count anyone should reach."""


def owed_events(campaign: Campaign, seat: str | None = None) -> list[Campaign]:
    """The campaign after each owed event in turn, in memory (nothing stored); each records
    its command, decided by ``seat``'s database."""
    owed = getattr(rules_of(campaign.ruleset), "owed", None)
    found: list[Campaign] = []
    while owed is not None and len(found) < MAX_OWED:
        command = owed(campaign.state, campaign.version)
        if command is None:
            break
        # An owed command rolls no dice: an empty script refuses any die it would roll.
        decided = campaign.decide(command, ScriptedRoller(()))
        event = with_blind(campaign.events,
                           decided.made_by(command.model_dump(mode="json"), seat),
                           token_hex(16))
        campaign = campaign.record(event)
        found.append(campaign)
    return found


def store_owed(store: EventStore, campaign: Campaign, owed: Sequence[Campaign]) -> Campaign:
    """Append the owed events ``owed`` (from :func:`owed_events` on ``campaign``) to the store;
    return the stored campaign after them (``campaign`` itself when nothing is owed).

    Raises:
        StaleVersionError: Another writer landed since ``campaign`` was read.
    """
    for after in owed:
        sealed = after.events[-1]
        record = store.append(campaign.campaign_id, campaign.version + 1,
                              NewEvent(type=sealed.type, payload=sealed.payload))
        campaign = campaign.with_event(record, after.typed[-1])
    return campaign
