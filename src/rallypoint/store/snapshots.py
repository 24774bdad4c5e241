"""Reading and writing state snapshots (SQLite migration ``0003_state_snapshots``, PostgreSQL
``0005_state_snapshots``).

The store only keeps the rows; what a snapshot means, and whether it can be trusted, is decided by
:mod:`rallypoint.session.snapshots`, which checks each one against the log before using it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rallypoint.store.sqlite import EventStore

_SELECT: Final = """
SELECT version, chain_hash, code, state, digest FROM state_snapshots WHERE campaign_id = ?
"""
_UPSERT: Final = """
INSERT INTO state_snapshots (campaign_id, version, chain_hash, code, state, digest)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (campaign_id) DO UPDATE SET version = excluded.version,
    chain_hash = excluded.chain_hash, code = excluded.code, state = excluded.state,
    digest = excluded.digest
"""
# Two index ranges, not ``seq = 1 OR seq >= ?``: SQLite answers that OR by scanning every row of
# the campaign, which made a read grow with the log.
_TAIL: Final = """
SELECT seq, type, payload, recorded_at, prev_hash, hash FROM events
WHERE campaign_id = ? AND seq = 1
UNION ALL
SELECT seq, type, payload, recorded_at, prev_hash, hash FROM events
WHERE campaign_id = ? AND seq >= ? AND seq > 1
ORDER BY seq
"""
_HEAD: Final = "SELECT head_seq, head_hash FROM campaigns WHERE id = ?"

Row = tuple[int, str, str, str, str, str]
"""An event row as stored: seq, type, payload text, recorded_at, prev_hash, hash."""


@dataclass(frozen=True)
class StoredSnapshot:
    """A snapshot row exactly as stored (unchecked)."""

    version: int
    chain_hash: str
    code: str
    state: bytes
    digest: str


@dataclass(frozen=True)
class SnapshotRead:
    """What a fast load reads, all in one read transaction.

    Attributes:
        snapshot: The campaign's snapshot row, if any.
        rows: The ``created`` row and every row from the snapshot's version on.
        head: The campaign's recorded head ``(seq, hash)``.
    """

    snapshot: StoredSnapshot | None
    rows: list[Row]
    head: tuple[int, str]


def read_snapshot(store: EventStore, campaign_id: str) -> SnapshotRead | None:
    """The snapshot row of a campaign with the log rows from its version on, or ``None`` if the
    campaign has no snapshot (or no such campaign)."""
    # PostgreSQL: one repeatable-read transaction, so the rows and the head agree.
    reading = getattr(store, "_snapshot", store._read)
    with reading() as conn:
        found = conn.execute(store._sql(_SELECT), (campaign_id,)).fetchone()
        head = conn.execute(store._sql(_HEAD), (campaign_id,)).fetchone()
        if found is None or head is None:
            return None
        snapshot = StoredSnapshot(int(found[0]), str(found[1]), str(found[2]), bytes(found[3]),
                                  str(found[4]))
        rows = [(int(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]))
                for r in conn.execute(store._sql(_TAIL), (campaign_id, campaign_id,
                                                          snapshot.version))]
    return SnapshotRead(snapshot, rows, (int(head[0]), str(head[1])))


def write_snapshot(store: EventStore, campaign_id: str, snapshot: StoredSnapshot) -> None:
    """Replace the campaign's snapshot row (one write transaction), on SQLite or PostgreSQL."""
    with store._write() as conn:
        conn.execute(store._sql(_UPSERT), (campaign_id, snapshot.version, snapshot.chain_hash,
                                           snapshot.code, snapshot.state, snapshot.digest))
