"""A turn file kept as a new campaign (``import FILE --as NAME``), in the streamed import.

The whole check keeps a fork by sealing its log again under a new id once every check passed
(:func:`rallypoint.session.pbem_checks.store_fork`). The streamed import
(:mod:`rallypoint.session.turn_stream`) writes each row as it reads the file, so it seals each
event again as it goes: :class:`ForkRows` gives the new campaign's rows, and what the whole
check still asks of this database's own log of the file's campaign (its ``created``, which
names the seats; its position and last round, for the dice rounds checked after the pass) read
back a page at a time.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from rallypoint.core.events import GENESIS_HASH, EventRecord, text_hash
from rallypoint.dice.audit import Positions
from rallypoint.session import pair
from rallypoint.session import pbem_checks as checks
from rallypoint.session.row_log import RowLog, Rows
from rallypoint.store.pages import events_between

if TYPE_CHECKING:
    from rallypoint.core.campaign import Campaign
    from rallypoint.store import EventStore

__all__ = ["CutLog", "ForkRows"]


class CutLog(Exception):
    """This database's log of the campaign is not seqs 1 to its version (cut behind the store's
    back): the streamed import leaves the file to the whole check."""


class ForkRows:
    """The rows of a file kept as a new campaign, sealed again as they go in.

    Args:
        store: The import's store, inside its transaction.
        campaign_id: The file's campaign (which this database may hold).

    Attributes:
        id: The new campaign's id.
        held: How many events this database holds of the file's campaign (0: none).
    """

    def __init__(self, store: EventStore, campaign_id: str) -> None:
        self.id = uuid.uuid4().hex
        self._store, self._campaign_id = store, campaign_id
        self.held = (store.campaign(campaign_id).version if checks.exists(store, campaign_id)
                     else 0)
        self._prev = GENESIS_HASH
        self._ends: list[EventRecord] = []  # the first row, then the first and the latest

    def sealed(self, record: EventRecord, text: str) -> EventRecord:
        """``record``'s row: sealed again under the new id, linked to the row before (as
        ``store_fork`` seals it: same payload and time; ``text``, its payload's canonical
        JSON)."""
        hash_ = text_hash(self.id, record.seq, record.type, text, record.recorded_at, self._prev)
        row = record.model_copy(update={"campaign_id": self.id, "prev_hash": self._prev,
                                        "hash": hash_})
        self._prev = hash_
        self._ends[1:] = [row]
        return row

    def held_created(self) -> EventRecord:
        """This database's own ``created`` of the file's campaign (it names the seats whose
        keys may sign the file, as the whole check's ``_trust`` takes them)."""
        return self._read(1, 2)[0]

    def campaign(self, folded: Campaign) -> Campaign:
        """The fold of the file (its ids and hashes) as the new campaign holds it: its id, and
        its rows as sealed again."""
        first, *latest = self._ends
        return replace(folded, campaign_id=self.id,
                       events=(first, *latest[:len(folded.events) - 1]))

    def held_log(self) -> RowLog:
        """This database's own log of the file's campaign (empty: none), read once a page at a
        time for its position and last round, as the whole check's checks take it
        (``stored``); every row is read, so one unreadable raises as reading it whole does.

        Raises:
            CutLog: Its rows are not seqs 1 to its version.
            IntegrityError: A stored payload is not a JSON object.
        """
        positions, last_round, count = Positions(), 0, 0
        for count, record in enumerate(Rows(self._rows, 1, self.held + 1), start=1):
            if record.seq != count:
                raise CutLog
            positions.add(record)
            last_round = max([last_round, *(h.round or 0 for _, h in pair.pair_rounds([record]))])
        if count != self.held:
            raise CutLog
        return RowLog(self._rows, count, positions.position, last_round)

    def _read(self, first: int, stop: int) -> list[EventRecord]:
        return events_between(self._store, self._campaign_id, first, stop)

    def _rows(self, first: int, stop: int) -> Iterator[EventRecord]:
        return iter(self._read(first, stop))
