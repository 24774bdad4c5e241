"""An import's rows written as its events are read: one transaction, nothing kept in memory.

A streamed import (:mod:`rallypoint.session.importing`) checks each event as it reads it and
hands it here at once, inside the transaction the session holds open for the whole file: the
rows go in batches, the stored log's hashes are read back a page at a time to find where the
file diverges, and any refusal (however late: the last event, the signature over the whole
file) rolls every row back, so nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import EventRecord, canonical_json
from rallypoint.errors import Hint
from rallypoint.store.pages import events_between

if TYPE_CHECKING:
    from rallypoint.store.base import StoreBase

BATCH: Final = 512
"""Rows inserted at once (and stored hashes read at once)."""


class ImportRows:
    """The rows of one campaign's import, written as they come (see the module docstring).

    Args:
        store: The store, inside its transaction.
        conn: That transaction's connection.
        campaign_id: The campaign.
        stored: How many events the store already holds of it (0: new here).
    """

    def __init__(self, store: StoreBase, conn: Any, campaign_id: str, stored: int) -> None:
        self._base, self._conn = store, conn
        self._campaign_id = campaign_id
        self.stored = stored
        """How many events the store held of the campaign before (0: new here)."""
        self._hashes: dict[int, str] = {}  # one page of the stored log's hashes
        self._pending: list[tuple[Any, ...]] = []
        self.inserted = 0

    def add(self, record: EventRecord, payload_text: str | None = None) -> None:
        """Store ``record`` (already checked) if it is new here, else check it is the event
        stored at its seq (``payload_text``: :func:`~rallypoint.core.events.canonical_json` of
        its payload, when the caller made it already).

        Raises:
            IntegrityError: The file's log diverges from the stored one at ``record``.
        """
        if record.seq <= self.stored:
            if record.hash != self._stored_hash(record.seq):
                raise IntegrityError(
                    f"the logs diverge at seq {record.seq}", where=self._campaign_id,
                    fix="keep one history: ask for an export that extends yours, "
                        "or keep theirs as a new campaign with import --as NAME",
                    instead=Hint.IMPORT_FILE)
            return
        self._pending.append((record.campaign_id, record.seq, record.type,
                              canonical_json(record.payload) if payload_text is None
                              else payload_text, record.recorded_at,
                              record.prev_hash, record.hash))
        if len(self._pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Insert the rows waiting."""
        if self._pending:
            self._base._insert_rows(self._conn, self._pending)
            self.inserted += len(self._pending)
            self._pending = []

    def records(self, first: int, stop: int) -> Iterator[EventRecord]:
        """The campaign's records with seqs in ``[first, stop)`` as this transaction holds them
        (a fold that keeps no record reads older ones again from here)."""
        self.flush()
        # Read in the open transaction: the log is read back after the import's own cursor
        # closed (a streamed turn file's later checks, :mod:`rallypoint.session.row_log`).
        yield from events_between(self._base, self._campaign_id, first, stop)

    def _stored_hash(self, seq: int) -> str | None:
        if seq not in self._hashes:
            self._hashes = dict(self._conn.execute(self._base._sql(
                "SELECT seq, hash FROM events WHERE campaign_id = ? AND seq >= ? AND seq < ?"),
                (self._campaign_id, seq, seq + BATCH)).fetchall())
        return self._hashes.get(seq)
