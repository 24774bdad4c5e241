"""A page of a campaign's stored log: a long log read a page at a time, never held whole (a
streamed reveal reads this database's log beside the other seat's file; the server dice
secret's reveal reads only ``created``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import EventRecord
from rallypoint.store.stored import payload_of

if TYPE_CHECKING:
    from rallypoint.store.base import StoreBase


def events_between(store: StoreBase, campaign_id: str, first: int, stop: int,
                   ) -> list[EventRecord]:
    """The campaign's events with seqs in ``[first, stop)``, ordered: a page of a long log,
    read without holding the rest (a streamed reveal).

    Raises:
        IntegrityError: A stored payload is not a JSON object (as :meth:`events`).
    """
    with store._read() as conn:
        rows = conn.execute(store._sql(
            "SELECT campaign_id, seq, type, payload, recorded_at, prev_hash, hash FROM events "
            "WHERE campaign_id = ? AND seq >= ? AND seq < ? ORDER BY seq"),
            (campaign_id, first, stop)).fetchall()
    records = []
    for campaign, seq, type_, payload_text, recorded_at, prev_hash, hash_ in rows:
        payload = payload_of(payload_text)
        if payload is None:
            raise IntegrityError(
                f"event {seq} of campaign {campaign_id!r}: payload is not a JSON object "
                "(edited?)", where=store.path,
                fix="run verify and restore the campaign from an export")
        records.append(EventRecord(campaign_id=campaign, seq=seq, type=type_,
                                   payload=payload, recorded_at=recorded_at,
                                   prev_hash=prev_hash, hash=hash_))
    return records
