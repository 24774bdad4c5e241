"""Undoing the latest effective event: an ``undone`` event appended, never a row removed."""

from __future__ import annotations

from rallypoint.core.events import Undone
from rallypoint.session import dice, snapshots
from rallypoint.session.commands import executed
from rallypoint.session.handle import Handle
from rallypoint.session.loading import loaded
from rallypoint.session.results import Executed


def undo(handle: Handle, ref: str, *, expected_version: int | None = None) -> Executed:
    """Cancel the latest effective event by appending an ``undone`` event
    (:meth:`Session.undo <rallypoint.session.Session.undo>`).

    The log is folded whole: the event to undo may lie before the latest snapshot. Two seats
    must both consent to undoing an event that rolled dice
    (:func:`rallypoint.session.dice.check_undo`).
    """
    with handle._store(write=True) as store:
        campaign = loaded(store, ref, whole=True)[0]
        event = campaign.undo_event(campaign.version if expected_version is None
                                    else expected_version)
        undone = event.event
        assert isinstance(undone, Undone)
        dice.check_undo(store, campaign, undone.target)  # two seats: consent
        record = store.append(campaign.campaign_id, campaign.version + 1, event)
        after = campaign.with_event(record, event.event)
        snapshots.save(store, after)
        return executed(after, record, False)
