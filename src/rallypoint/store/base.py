"""What the SQLite and PostgreSQL event stores share: every rule of the store, once.

:class:`StoreBase` holds the store's logic — the append under the head check, import of sealed
records, rename, delete, the reads and the name resolution — written against a DB-API connection
(``conn.execute(sql, params)`` returning rows) with ``?`` placeholders. Each backend supplies its
transactions (``_write``/``_read``/``_snapshot``), its statements (:class:`Statements`), its
chain check, the row lock a write takes (``_FOR_UPDATE``), and the tables a delete empties:
:class:`rallypoint.store.sqlite.EventStore` and :class:`rallypoint.store.postgres.PostgresStore`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ClassVar, NamedTuple, Self

from rallypoint.core.errors import (
    IntegrityError,
    StaleVersionError,
    StoreError,
    UnknownIdError,
)
from rallypoint.core.events import GENESIS_HASH, ChainProblem, EventRecord, NewEvent
from rallypoint.core.suggest import did_you_mean
from rallypoint.errors import Hint
from rallypoint.store.import_rows import ImportRows
from rallypoint.store.limits import LimitsMixin
from rallypoint.store.marks import Mark, MarksMixin
from rallypoint.store.names import clean_name
from rallypoint.store.records import CampaignInfo, StoredLog, VerifyReport
from rallypoint.store.seat_notes import SeatNotesMixin
from rallypoint.store.seats import SeatsMixin
from rallypoint.store.secrets import SecretsMixin
from rallypoint.store.stored import earlier, info_of, normalised, payload_of, row_of

_MIN_PREFIX = 4
BROKEN_FIX = ("nothing was written; run `rallypoint verify`, then `rallypoint delete` it and "
              "import it again from an export")
"""The fix of every refused write on a broken log."""


class Statements(NamedTuple):
    """A backend's spelling of the statements the store runs most (its own placeholders)."""

    campaign_insert: str
    """``INSERT INTO campaigns (id, name, ruleset, created_at)``."""
    event_insert: str
    """``INSERT INTO events`` of one sealed record's seven columns."""
    campaign_select: str
    """Every campaign's row with its version, in :class:`CampaignInfo`'s field order."""
    latest_select: str
    """The campaign this store wrote to last; parameters ``(ruleset, ruleset)``, ``None``: any."""
    log_select: str
    """One campaign's events (one all-NULL row for a campaign without events)."""


class StoreBase(SecretsMixin, LimitsMixin, MarksMixin, SeatsMixin, SeatNotesMixin):
    """The event store's logic on any backend (see the module docstring)."""

    _STATEMENTS: ClassVar[Statements]
    _FOR_UPDATE: ClassVar[str] = ""
    """What locks a campaign's row for the rest of a write (``" FOR UPDATE"``); empty where the
    write transaction already holds the whole database (SQLite's ``BEGIN IMMEDIATE``)."""
    readonly: bool

    def close(self) -> None:
        """Close the connection; safe to call twice."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- what a backend supplies -----------------------------------------------------------------

    def _snapshot(self) -> AbstractContextManager[Any]:
        """A read transaction in which several SELECTs see one snapshot (default: ``_read``)."""
        return self._read()

    def _chain(self, conn: Any, campaign_id: str, head_seq: int,
               head_hash: str) -> tuple[int, ChainProblem | None]:
        """Rows counted and the first chain or head problem of the stored log."""
        raise NotImplementedError

    def _keyed_tables(self, conn: Any) -> Sequence[str]:
        """Every table with a ``campaign_id`` column but the deletion bookkeeping, events last."""
        raise NotImplementedError

    # --- writing --------------------------------------------------------------------------------

    def create_campaign(
        self, campaign_id: str, name: str, ruleset: str, created: NewEvent,
    ) -> EventRecord:
        """Start a campaign: its row and its seq-1 event, atomically.

        Args:
            campaign_id: New unique id.
            name: New unique human name (cleaned by :func:`clean_name`).
            ruleset: Ruleset key.
            created: The first event (normally of type ``created``).

        The stored seq-1 event is returned; its ``recorded_at`` is the campaign's ``created_at``.

        Raises:
            StoreError: The id or the name is already taken.
            MalformedInputError: The name is empty or too long, or the payload is not
                JSON-serialisable.
        """
        name = clean_name(name)
        record = EventRecord.seal(campaign_id, 1, normalised(created, 1), GENESIS_HASH)
        with self._write() as conn:
            taken = conn.execute(self._sql("SELECT id, name FROM campaigns WHERE id = ? OR "
                                           "name = ?"), (campaign_id, name)).fetchone()
            if taken is not None and taken[0] == campaign_id:
                raise StoreError(f"a campaign with id {campaign_id!r} already exists",
                                 where=self.path, fix="use a new campaign id")
            if taken is not None:
                raise self._name_taken(name, str(taken[0]))
            conn.execute(self._STATEMENTS.campaign_insert,
                         (campaign_id, name, ruleset, record.recorded_at))
            self._insert(conn, record)
        return record

    def append(self, campaign_id: str, expected_seq: int, event: NewEvent) -> EventRecord:
        """Append one event if the campaign is still at ``expected_seq - 1``.

        Same checks and errors as :meth:`append_many`.
        """
        return self.append_many(campaign_id, expected_seq, [event])[0]

    def append_many(
        self, campaign_id: str, expected_seq: int, events: Sequence[NewEvent],
    ) -> list[EventRecord]:
        """Append several events atomically: all are stored or none.

        The stored log is checked whole first (chain and head), under the write lock: nothing is
        ever appended on top of a broken log.

        Args:
            campaign_id: The campaign.
            expected_seq: The seq the first new event must get (current version + 1).
            events: The events, in order; the stored records are returned.

        Raises:
            UnknownIdError: No such campaign.
            IntegrityError: The stored log fails verification.
            StaleVersionError: The campaign is not at ``expected_seq - 1``.
            MalformedInputError: A payload is not JSON-serialisable (nothing is written).
        """
        ready = [normalised(event, seq) for seq, event in enumerate(events, expected_seq)]
        records: list[EventRecord] = []
        with self._write() as conn:
            last_seq, prev_hash, guard = self._verified_head(conn, campaign_id)
            if last_seq + 1 != expected_seq:
                raise StaleVersionError(
                    f"campaign {campaign_id!r} is at version {last_seq}, "
                    f"the command was made against version {expected_seq - 1}",
                    where=campaign_id, fix="reload and try again")
            for seq, event in enumerate(ready, start=expected_seq):
                record = EventRecord.seal(campaign_id, seq, event, prev_hash)
                records.append(record)
                prev_hash = record.hash
            if records:
                # One batch (on PostgreSQL the head moves once); rows this write made and
                # hashed itself are known good: the chain is marked to the newest.
                self._insert_rows(conn, [row_of(r) for r in records])
                self._set_mark(conn, campaign_id, Mark(records[-1].seq, prev_hash, guard))
        return records

    def import_records(
        self, campaign_id: str, name: str, ruleset: str, created_at: str,
        records: Sequence[EventRecord],
    ) -> CampaignInfo:
        """Store already-sealed events exactly as given (same times and hashes), atomically.

        The caller must have verified ``records``
        (:func:`rallypoint.session.importing.import_campaign` does). If the campaign exists, its
        stored log must be intact and a prefix of ``records`` (or the other way round) and only
        the events beyond it are appended; otherwise the campaign is created with ``name`` and
        all events.

        Raises:
            IntegrityError: ``records`` diverge from the stored log, or the stored log is broken.
            StoreError: ``name`` is taken by another campaign.
        """
        with self.importing(campaign_id, name, ruleset, created_at) as rows:
            for record in records:
                rows.add(record)
        return self.campaign(campaign_id)

    @contextmanager
    def importing(self, campaign_id: str, name: str, ruleset: str,
                  created_at: str) -> Iterator[ImportRows]:
        """The rows of an import, written as they are added (:class:`ImportRows`), in one
        write transaction (the caller's :meth:`transaction`, when one is open: a streamed
        import checks the whole file before it commits). As :meth:`import_records`: a new
        campaign gets ``name``; an existing one must be intact and its log a prefix of the
        rows added (or the other way round), and only the rows beyond it are inserted.

        Raises:
            IntegrityError: A row diverges from the stored log, or the stored log is broken.
            StoreError: ``name`` is taken by another campaign.
        """
        name = clean_name(name)
        with self._write() as conn:
            exists = conn.execute(self._sql("SELECT 1 FROM campaigns WHERE id = ?")
                                  + self._FOR_UPDATE, (campaign_id,)).fetchone()
            other = conn.execute(self._sql("SELECT id FROM campaigns WHERE name = ?"),
                                 (name,)).fetchone()
            if not exists and other:
                raise StoreError(f"a different campaign named {name!r} exists (id {other[0]})",
                                 where=self.path,
                                 fix="import it under another name: --name NAME (a file kept "
                                     "as a new campaign: --as NAME)",
                                 instead=Hint.IMPORT_FILE)
            stored = 0
            if exists:
                stored = self._intact_head(conn, campaign_id)[0]
            else:
                conn.execute(self._STATEMENTS.campaign_insert,
                             (campaign_id, name, ruleset, created_at))
            used = conn.execute(self._sql("SELECT use_order, used_at FROM local_use WHERE "
                                          "campaign_id = ?"), (campaign_id,)).fetchone()
            rows = ImportRows(self, conn, campaign_id, stored)
            yield rows
            rows.flush()
            self._keep_use(conn, campaign_id, used)

    def _keep_use(self, conn: Any, campaign_id: str, used: Any) -> None:
        """Leave the campaign's place in this machine's use order as it was before an import:
        the default campaign stays the one last written here (the insert trigger marks it)."""
        conn.execute(self._sql("DELETE FROM local_use WHERE campaign_id = ?"), (campaign_id,))
        if used is not None:
            conn.execute(self._sql("INSERT INTO local_use (campaign_id, use_order, used_at) "
                                   "VALUES (?, ?, ?)"), (campaign_id, *used))

    def rename_campaign(self, campaign_id: str, name: str) -> CampaignInfo:
        """Give a campaign a new local name (its events, and so its exports, keep theirs).

        Raises:
            UnknownIdError: No such campaign.
            MalformedInputError: The name is empty or too long.
            StoreError: Another campaign has that name.
        """
        name = clean_name(name)
        with self._write() as conn:
            self._row(conn, campaign_id)
            other = conn.execute(self._sql("SELECT id FROM campaigns WHERE name = ? AND id <> ?"),
                                 (name, campaign_id)).fetchone()
            if other is not None:
                raise self._name_taken(name, str(other[0]))
            conn.execute(self._sql("UPDATE campaigns SET name = ? WHERE id = ?"),
                         (name, campaign_id))
        return self.campaign(campaign_id)

    def delete_campaign(self, campaign_id: str, expected_version: int | None = None) -> int:
        """Remove a campaign and all its rows, atomically; return how many events it had.

        The only way events leave the store: the append-only triggers let rows go only for a
        campaign listed in ``campaign_deletions``, which exists only inside this transaction.
        Rows of other tables keyed by ``campaign_id`` (caches such as snapshots) go too.

        Args:
            campaign_id: The campaign.
            expected_version: If given, refuse unless the campaign is still at this version (so
                a backup taken just before covers every event deleted).

        Raises:
            UnknownIdError: No such campaign.
            StaleVersionError: It moved past ``expected_version``.
        """
        with self._write() as conn:
            info = self._row(conn, campaign_id, lock=True)
            if expected_version is not None and info.version != expected_version:
                raise StaleVersionError(
                    f"campaign {info.name!r} is at version {info.version}, not "
                    f"{expected_version}", where=campaign_id, fix="run the delete again")
            count = int(conn.execute(self._sql("SELECT COUNT(*) FROM events WHERE "
                                               "campaign_id = ?"), (campaign_id,)).fetchone()[0])
            conn.execute(self._sql("INSERT INTO campaign_deletions VALUES (?)"), (campaign_id,))
            for table in self._keyed_tables(conn):
                conn.execute(self._sql(f'DELETE FROM "{table}" WHERE campaign_id = ?'),
                             (campaign_id,))
            conn.execute(self._sql("DELETE FROM campaigns WHERE id = ?"), (campaign_id,))
            conn.execute(self._sql("DELETE FROM campaign_deletions WHERE campaign_id = ?"),
                         (campaign_id,))
        return count

    def _insert_rows(self, conn: Any, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert sealed rows (the seven ``events`` columns each), oldest first, as one batch
        (an import's)."""
        conn.executemany(self._STATEMENTS.event_insert, rows)

    def _insert(self, conn: Any, record: EventRecord) -> None:
        conn.execute(self._STATEMENTS.event_insert, row_of(record))

    # --- reading --------------------------------------------------------------------------------

    def events(self, campaign_id: str) -> list[EventRecord]:
        """Every stored event of a campaign, ordered by seq.

        Raises :class:`UnknownIdError` for an unknown campaign and :class:`IntegrityError` if a
        stored payload is not a JSON object (the database was edited).
        """
        with self._read() as conn:
            records, unreadable = self._rows(conn, campaign_id)
        if unreadable is not None:
            raise IntegrityError(
                f"event {unreadable.seq} of campaign {campaign_id!r}: {unreadable.reason}",
                where=self.path, fix="run verify and restore the campaign from an export")
        return records

    def log(self, campaign_id: str) -> StoredLog:
        """A campaign's row, its events and the first integrity problem, from one snapshot.

        Events after an unreadable row are left out; ``problem`` says where and why.

        Raises:
            UnknownIdError: No such campaign.
        """
        with self._snapshot() as conn:
            info = self._row(conn, campaign_id)
            records, unreadable = self._rows(conn, campaign_id)
            _, problem = self._chain(conn, campaign_id, info.head_seq, info.head_hash)
        return StoredLog(info=info, records=records, problem=earlier(problem, unreadable))

    def campaign(self, campaign_id: str) -> CampaignInfo:
        """One campaign by exact id (raises :class:`UnknownIdError` if there is none)."""
        with self._read() as conn:
            return self._row(conn, campaign_id)

    def campaigns(self) -> list[CampaignInfo]:
        """Every campaign, oldest first."""
        with self._read() as conn:
            rows = conn.execute(self._STATEMENTS.campaign_select
                                + " ORDER BY c.created_at, c.id").fetchall()
        return [info_of(row) for row in rows]

    def find(self, name_or_id: str) -> CampaignInfo:
        """Resolve what a user typed: exact id, else exact name, else a unique id prefix (≥ 4).

        Raises:
            UnknownIdError: Nothing matches, or an id prefix matches several campaigns.
        """
        known = self.campaigns()
        exact = [c for c in known if name_or_id in (c.id, c.name)]
        exact.sort(key=lambda c: c.id != name_or_id)  # an id match wins over a name match
        if not exact:
            # A name typed in another case ('RIDGE' for 'Ridge'), if only one campaign has it.
            folded = [c for c in known if c.name.casefold() == name_or_id.casefold()]
            exact = folded if len(folded) == 1 else []
        prefixed = [c for c in known
                    if len(name_or_id) >= _MIN_PREFIX and c.id.startswith(name_or_id)]
        if exact or len(prefixed) == 1:
            return (exact or prefixed)[0]
        typed = name_or_id if len(name_or_id) <= 40 else name_or_id[:40] + "…"
        what = (f"id prefix {typed!r} matches {len(prefixed)} campaigns" if prefixed
                else f"no campaign with name or id {typed!r}")
        candidates = prefixed or known
        names = ", ".join(repr(c.name) for c in candidates[:5])
        more = f" and {len(candidates) - 5} more" if len(candidates) > 5 else ""
        hint = "" if prefixed else did_you_mean(name_or_id, [c.name for c in known])
        fix = (f"{hint}use one of the known campaigns: {names}{more}" if candidates
               else "no campaigns exist yet; create one first")
        raise UnknownIdError(what, where=self.path, fix=fix)

    def latest(self, ruleset: str | None = None) -> CampaignInfo | None:
        """The campaign this machine wrote to last (of ``ruleset``, if given), or ``None``.

        Decided by the store's own record of local writes (``local_use``), never by events'
        ``recorded_at``: an imported event dated 9999 does not make its campaign the default.
        """
        with self._read() as conn:
            row = conn.execute(self._STATEMENTS.latest_select, (ruleset, ruleset)).fetchone()
        return None if row is None else info_of(row)

    def verify(self, campaign_id: str) -> VerifyReport:
        """Check the stored log: contiguous seqs, linked and matching hashes, the recorded head.

        Rows are re-read exactly as stored, so an edited payload, a dropped, reordered or cut
        event is reported rather than silently repaired.

        Raises:
            UnknownIdError: No such campaign.
        """
        with self._snapshot() as conn:
            info = self._row(conn, campaign_id)
            _, problem = self._chain(conn, campaign_id, info.head_seq, info.head_hash)
            unreadable = self._first_unreadable(conn, campaign_id)
            count = int(conn.execute(self._sql("SELECT COUNT(*) FROM events WHERE "
                                               "campaign_id = ?"), (campaign_id,)).fetchone()[0])
        problem = earlier(problem, unreadable)
        return VerifyReport(campaign_id=campaign_id, events=count, head_seq=info.head_seq,
                            ok=problem is None, problem=problem)

    def check(self, campaign_id: str) -> ChainProblem | None:
        """The first integrity problem of a stored log (chain or head), or ``None`` if intact."""
        with self._snapshot() as conn:
            info = self._row(conn, campaign_id)
            return self._chain(conn, campaign_id, info.head_seq, info.head_hash)[1]

    def _walk(self, conn: Any, sql: str, params: Sequence[object],
              ) -> AbstractContextManager[Iterator[Sequence[Any]]]:
        """The rows of a SELECT, fetched a batch at a time as they are iterated, so a long log
        is walked without being held (each backend's own way; ``?`` placeholders)."""
        raise NotImplementedError

    def _first_unreadable(self, conn: Any, campaign_id: str) -> ChainProblem | None:
        """The first stored row whose payload is not a JSON object (as :meth:`_rows` would stop
        at), walked without holding the log (``verify`` of a 100,000-event campaign)."""
        with self._walk(conn, "SELECT seq, payload FROM events WHERE campaign_id = ? "
                              "ORDER BY seq", (campaign_id,)) as rows:
            for seq, payload_text in rows:
                if payload_of(payload_text) is None:
                    return ChainProblem(seq=seq, reason="payload is not a JSON object (edited?)")
        return None

    def _rows(self, conn: Any, campaign_id: str,
              ) -> tuple[list[EventRecord], ChainProblem | None]:
        """Stored records up to the first unreadable row, and that row's problem.

        One SELECT, so the campaign check and the rows come from the same snapshot.
        """
        rows = conn.execute(self._STATEMENTS.log_select, (campaign_id,)).fetchall()
        if not rows:
            raise self._unknown(campaign_id)
        records: list[EventRecord] = []
        for campaign, seq, type_, payload_text, recorded_at, prev_hash, hash_ in rows:
            if seq is None:
                continue  # LEFT JOIN: a campaign without events
            payload = payload_of(payload_text)
            if payload is None:
                return records, ChainProblem(seq=seq,
                                             reason="payload is not a JSON object (edited?)")
            records.append(EventRecord(campaign_id=campaign, seq=seq, type=type_, payload=payload,
                                       recorded_at=recorded_at, prev_hash=prev_hash, hash=hash_))
        return records, None

    def _row(self, conn: Any, campaign_id: str, *, lock: bool = False) -> CampaignInfo:
        # With ``lock``, the write lock of this campaign: held to commit, so writers queue here.
        if lock and self._FOR_UPDATE and conn.execute(
                self._sql("SELECT 1 FROM campaigns WHERE id = ?") + self._FOR_UPDATE,
                (campaign_id,)).fetchone() is None:
            raise self._unknown(campaign_id)
        row = conn.execute(self._STATEMENTS.campaign_select + self._sql(" WHERE c.id = ?"),
                           (campaign_id,)).fetchone()
        if row is None:
            raise self._unknown(campaign_id)
        return info_of(row)

    def _intact_head(self, conn: Any, campaign_id: str) -> tuple[int, str]:
        """(seq, hash) of the campaign's head, read inside the write transaction.

        Raises:
            UnknownIdError: No such campaign.
            IntegrityError: The stored log fails verification (writes never build on it).
        """
        seq, hash_, _ = self._verified_head(conn, campaign_id)
        return seq, hash_

    def _verified_head(self, conn: Any, campaign_id: str) -> tuple[int, str, str]:
        """:meth:`_intact_head` and the trigger guard it was checked under: the log is checked
        from its chain mark while the guard holds (:mod:`rallypoint.store.marks`), else whole.
        """
        info = self._row(conn, campaign_id, lock=True)
        problem, guard = self._checked_since_mark(conn, info)
        if problem is not None:
            raise IntegrityError(
                f"campaign {info.name!r} is broken at seq {problem.seq}: {problem.reason}",
                where=self.path, fix=BROKEN_FIX, instead=Hint.SERVER)
        return info.head_seq, info.head_hash, guard

    def _name_taken(self, name: str, other_id: str) -> StoreError:
        return StoreError(f"a campaign named {name!r} already exists (id {other_id[:8]})",
                          where=self.path, fix="choose another name")

    def _unknown(self, campaign_id: str) -> UnknownIdError:
        shown = campaign_id if len(campaign_id) <= 40 else campaign_id[:40] + "…"
        return UnknownIdError(f"no campaign with id {shown!r}", where=self.path,
                              fix="check the name or id against the list of campaigns")
