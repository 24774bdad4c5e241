"""How a write checks a long log in O(1): from the last point it was checked whole, while the
log's triggers stand.

Every write must refuse to build on a broken log, and used to re-hash the whole chain to know
(~4 µs an event: 0.4 s a write at 100,000 events, and n writes cost O(n²)). But the stored rows can
only change behind the store's back by getting past its triggers (``UPDATE``, ``DELETE`` and
``TRUNCATE`` of events are refused, the head moves only by appending), and getting past a trigger
leaves a mark of its own: dropping one (SQLite), or disabling or dropping one (PostgreSQL),
changes the schema cookie or the ``pg_trigger`` row. So each campaign keeps a *chain mark*
(``chain_marks``): the seq and hash its log was last known good to, and the *guard* (that trigger
state) it was known good under. A write then checks:

- while the guard is unchanged: that the marked row still has the marked hash, and every row
  after it in full (none, usually: every write moves the mark to its own head);
- else, or without a mark: the whole chain, as before, and marks it again.

What this does not see (``docs/reliability.md``): bytes of the database file edited directly, and
PostgreSQL's ``session_replication_role = replica`` (a superuser switch that skips triggers without
changing them). ``rallypoint verify``, exports, imports and reads still check every row.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, ClassVar, NamedTuple

from rallypoint.core.events import ChainProblem
from rallypoint.store.integrity import check_chain
from rallypoint.store.records import CampaignInfo


class Mark(NamedTuple):
    """How far a campaign's chain was known good, and under which trigger state."""

    seq: int
    hash: str
    guard: str


class MarksMixin:
    """Chain marks on any store with ``_write`` transactions and a ``_guard`` of its triggers."""

    _PLACEHOLDER: ClassVar[str] = "?"

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _guard(self, conn: Any) -> str:
        """The state of the log's triggers (backend-specific)."""
        raise NotImplementedError

    def _chain(self, conn: Any, campaign_id: str, head_seq: int,
               head_hash: str) -> tuple[int, ChainProblem | None]:
        raise NotImplementedError

    def _checked_since_mark(self, conn: Any, info: CampaignInfo,
                            ) -> tuple[ChainProblem | None, str]:
        """The first problem of ``info``'s log, checked from its mark when the mark holds, and
        the guard in force (to mark the write's new head with)."""
        guard = self._guard(conn)
        mark = self._mark(conn, info.id)
        if mark is None or mark.guard != guard or not 0 < mark.seq <= info.head_seq:
            return self._chain(conn, info.id, info.head_seq, info.head_hash)[1], guard
        p = self._PLACEHOLDER
        rows = conn.execute(
            f"SELECT seq, type, payload, recorded_at, prev_hash, hash FROM events "
            f"WHERE campaign_id = {p} AND seq >= {p} ORDER BY seq", (info.id, mark.seq)
        ).fetchall()
        if not rows or rows[0][0] != mark.seq or rows[0][5] != mark.hash:
            # The marked row is gone or changed: its guard did not see how. Check it all.
            return self._chain(conn, info.id, info.head_seq, info.head_hash)[1], guard
        _, problem = check_chain(rows[1:], info.id, info.head_seq, info.head_hash,
                                 after=(mark.seq, mark.hash))
        return problem, guard

    def _mark(self, conn: Any, campaign_id: str) -> Mark | None:
        p = self._PLACEHOLDER
        row = conn.execute(f"SELECT seq, hash, guard FROM chain_marks WHERE campaign_id = {p}",
                           (campaign_id,)).fetchone()
        return None if row is None else Mark(int(row[0]), str(row[1]), str(row[2]))

    def _set_mark(self, conn: Any, campaign_id: str, mark: Mark) -> None:
        """Mark ``campaign_id``'s chain good to ``mark`` (inside the write that made it so)."""
        p = self._PLACEHOLDER
        conn.execute(f"INSERT INTO chain_marks (campaign_id, seq, hash, guard) "
                     f"VALUES ({p}, {p}, {p}, {p}) ON CONFLICT (campaign_id) DO UPDATE SET "
                     f"seq = excluded.seq, hash = excluded.hash, guard = excluded.guard",
                     (campaign_id, *mark))
