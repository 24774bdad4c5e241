"""The append-only, hash-chained event store on SQLite.

One database file holds every campaign. Writes use ``BEGIN IMMEDIATE`` so the version check
(``expected_seq``) and the insert happen under the same write lock: two processes appending to the
same campaign cannot both win. WAL plus ``synchronous=FULL`` means an append that returned has been
fsynced and survives a crash or power loss.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs

from rallypoint.core.errors import (
    IntegrityError,
    MalformedInputError,
    StaleVersionError,
    StoreError,
    UnknownIdError,
)
from rallypoint.core.events import (
    GENESIS_HASH,
    ChainProblem,
    EventRecord,
    NewEvent,
    canonical_json,
)
from rallypoint.core.suggest import did_you_mean
from rallypoint.store import migrations
from rallypoint.store.integrity import check_rows
from rallypoint.store.migrations import (
    CAMPAIGN_INSERT,
    CAMPAIGN_SELECT,
    EVENT_INSERT,
    LATEST_SELECT,
    LOG_SELECT,
)
from rallypoint.store.names import clean_name
from rallypoint.store.opening import DB_ENV_VAR, connect, sql_errors, translate
from rallypoint.store.records import CampaignInfo, StoredLog, VerifyReport
from rallypoint.store.secrets import SecretsMixin

_MIN_PREFIX = 4
_BROKEN_FIX = ("nothing was written; run `rallypoint verify`, then `rallypoint delete` it and "
               "import it again from an export")


def default_db_path() -> Path:
    """Where the database lives: ``$RALLYPOINT_DB`` if set, else the user data directory.

    Creates nothing (the store makes the directory on open), so asking has no side effects.
    """
    if override := os.environ.get(DB_ENV_VAR):
        return Path(override).expanduser()
    return platformdirs.user_data_path("rallypoint") / "rallypoint.sqlite3"


class EventStore(SecretsMixin):
    """All campaigns' event logs in one SQLite file.

    Use as a context manager (``with EventStore(path) as store: ...``) or call :meth:`close`.

    Args:
        path: The database file (created with its parent directory if missing), or ``":memory:"``.
    """

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._conn = connect(self.path, readonly=readonly)

    def close(self) -> None:
        """Close the connection; safe to call twice. SQLite discards any unfinished transaction."""
        self._conn.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """``PRAGMA user_version``: the number of applied migrations."""
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def applied_migrations(self) -> list[str]:
        """Names of the applied migrations, in order."""
        return migrations.applied_migrations(self._conn)

    def pragmas(self) -> dict[str, Any]:
        """The connection settings that durability depends on (for diagnostics and tests)."""
        names = ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
        return {name: self._conn.execute(f"PRAGMA {name}").fetchone()[0] for name in names}

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: commit on success, roll back on any exception.

        Driver errors become :class:`StoreError`; our own errors pass through unchanged.
        """
        if self.readonly:
            raise StoreError("this store was opened read-only", where=self.path,
                             fix="open it with EventStore(path) to write")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise translate(exc, self.path, "writing") from exc
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise translate(exc, self.path, "writing") from exc
            raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction, so several SELECTs see the same snapshot of the file."""
        with sql_errors(self.path, "reading"):
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

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
        record = EventRecord.seal(campaign_id, 1, _normalised(created, 1), GENESIS_HASH)
        with self._write() as conn:
            taken = conn.execute("SELECT id, name FROM campaigns WHERE id = ? OR name = ?",
                                 (campaign_id, name)).fetchone()
            if taken is not None and taken[0] == campaign_id:
                raise StoreError(f"a campaign with id {campaign_id!r} already exists",
                                 where=self.path, fix="use a new campaign id")
            if taken is not None:
                raise self._name_taken(name, str(taken[0]))
            conn.execute(CAMPAIGN_INSERT, (campaign_id, name, ruleset, record.recorded_at))
            _insert(conn, record)
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
        normalised = [_normalised(event, seq) for seq, event in enumerate(events, expected_seq)]
        records: list[EventRecord] = []
        with self._write() as conn:
            last_seq, prev_hash = self._intact_head(conn, campaign_id)
            if last_seq + 1 != expected_seq:
                raise StaleVersionError(
                    f"campaign {campaign_id!r} is at version {last_seq}, "
                    f"the command was made against version {expected_seq - 1}",
                    where=campaign_id, fix="reload and try again")
            for seq, event in enumerate(normalised, start=expected_seq):
                record = EventRecord.seal(campaign_id, seq, event, prev_hash)
                _insert(conn, record)
                records.append(record)
                prev_hash = record.hash
        return records

    def import_records(
        self, campaign_id: str, name: str, ruleset: str, created_at: str,
        records: Sequence[EventRecord],
    ) -> CampaignInfo:
        """Store already-sealed events exactly as given (same times and hashes), atomically.

        The caller must have verified ``records`` (:func:`rallypoint.store.exchange.import_campaign`
        does). If the campaign exists, its stored log must be intact and a prefix of ``records``
        (or the other way round) and only the events beyond it are appended; otherwise the
        campaign is created with ``name`` and all events.

        Raises:
            IntegrityError: ``records`` diverge from the stored log, or the stored log is broken.
            StoreError: ``name`` is taken by another campaign.
        """
        name = clean_name(name)
        with self._write() as conn:
            exists = conn.execute("SELECT 1 FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
            other = conn.execute("SELECT id FROM campaigns WHERE name = ?", (name,)).fetchone()
            if not exists and other:
                raise StoreError(f"a different campaign named {name!r} exists (id {other[0]})",
                                 where=self.path, fix="pass --name to import it under another name")
            if exists:
                self._intact_head(conn, campaign_id)
            else:
                conn.execute(CAMPAIGN_INSERT, (campaign_id, name, ruleset, created_at))
            stored = [h for (h,) in conn.execute(
                "SELECT hash FROM events WHERE campaign_id = ? ORDER BY seq", (campaign_id,))]
            for record, stored_hash in zip(records, stored, strict=False):
                if record.hash != stored_hash:
                    raise IntegrityError(
                        f"the logs diverge at seq {record.seq}", where=campaign_id,
                        fix="keep one history: ask for an export that extends yours, "
                            "or restore yours from an export")
            used = conn.execute("SELECT use_order, used_at FROM local_use WHERE campaign_id = ?",
                                (campaign_id,)).fetchone()
            for record in records[len(stored):]:
                _insert(conn, record)
            # Imported events are not this machine's use: the default campaign stays the one
            # last written here (the insert trigger marked the campaign as just used).
            conn.execute("DELETE FROM local_use WHERE campaign_id = ?", (campaign_id,))
            if used is not None:
                conn.execute("INSERT INTO local_use (campaign_id, use_order, used_at) "
                             "VALUES (?, ?, ?)", (campaign_id, *used))
        return self.campaign(campaign_id)

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
            other = conn.execute("SELECT id FROM campaigns WHERE name = ? AND id <> ?",
                                 (name, campaign_id)).fetchone()
            if other is not None:
                raise self._name_taken(name, str(other[0]))
            conn.execute("UPDATE campaigns SET name = ? WHERE id = ?", (name, campaign_id))
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
            info = self._row(conn, campaign_id)
            if expected_version is not None and info.version != expected_version:
                raise StaleVersionError(
                    f"campaign {info.name!r} is at version {info.version}, not "
                    f"{expected_version}", where=campaign_id, fix="run the delete again")
            count = int(conn.execute("SELECT COUNT(*) FROM events WHERE campaign_id = ?",
                                     (campaign_id,)).fetchone()[0])
            conn.execute("INSERT INTO campaign_deletions VALUES (?)", (campaign_id,))
            for table in _tables_keyed_by_campaign(conn):
                conn.execute(f'DELETE FROM "{table}" WHERE campaign_id = ?', (campaign_id,))
            conn.execute("DELETE FROM campaigns WHERE id = ?", (campaign_id,))
            conn.execute("DELETE FROM campaign_deletions WHERE campaign_id = ?", (campaign_id,))
        return count

    def events(self, campaign_id: str) -> list[EventRecord]:
        """Every stored event of a campaign, ordered by seq.

        Raises :class:`UnknownIdError` for an unknown campaign and :class:`IntegrityError` if a
        stored payload is not a JSON object (the file was edited).
        """
        with self._read() as conn:
            records, unreadable, _ = self._rows(conn, campaign_id)
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
        with self._read() as conn:
            info = self._row(conn, campaign_id)
            records, unreadable, _ = self._rows(conn, campaign_id)
            _, problem = check_rows(conn, campaign_id, info.head_seq, info.head_hash)
        return StoredLog(info=info, records=records, problem=_earlier(problem, unreadable))

    def campaign(self, campaign_id: str) -> CampaignInfo:
        """One campaign by exact id (raises :class:`UnknownIdError` if there is none)."""
        with self._read() as conn:
            return self._row(conn, campaign_id)

    def campaigns(self) -> list[CampaignInfo]:
        """Every campaign, oldest first."""
        with self._read() as conn:
            rows = conn.execute(CAMPAIGN_SELECT + " ORDER BY c.created_at, c.id").fetchall()
        return [_info(row) for row in rows]

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
            row = conn.execute(LATEST_SELECT, (ruleset, ruleset)).fetchone()
        return None if row is None else _info(row)

    def verify(self, campaign_id: str) -> VerifyReport:
        """Check the stored log: contiguous seqs, linked and matching hashes, the recorded head.

        Rows are re-read exactly as stored, so an edited payload, a dropped, reordered or cut
        event is reported rather than silently repaired.

        Raises:
            UnknownIdError: No such campaign.
        """
        log = self.log(campaign_id)
        with self._read() as conn:
            count = int(conn.execute("SELECT COUNT(*) FROM events WHERE campaign_id = ?",
                                     (campaign_id,)).fetchone()[0])
        return VerifyReport(campaign_id=campaign_id, events=count, head_seq=log.info.head_seq,
                            ok=log.problem is None, problem=log.problem)

    def check(self, campaign_id: str) -> ChainProblem | None:
        """The first integrity problem of a stored log (chain or head), or ``None`` if intact."""
        with self._read() as conn:
            info = self._row(conn, campaign_id)
            return check_rows(conn, campaign_id, info.head_seq, info.head_hash)[1]

    def _rows(self, conn: sqlite3.Connection, campaign_id: str,
              ) -> tuple[list[EventRecord], ChainProblem | None, int]:
        """Stored records up to the first unreadable row, that row's problem, and the row count.

        One SELECT, so the campaign check and the rows come from the same snapshot.
        """
        rows = conn.execute(LOG_SELECT, (campaign_id,)).fetchall()
        if not rows:
            raise self._unknown(campaign_id)
        rows = [row for row in rows if row[1] is not None]  # LEFT JOIN: a campaign, no events
        records: list[EventRecord] = []
        for campaign, seq, type_, payload_text, recorded_at, prev_hash, hash_ in rows:
            try:
                payload = json.loads(payload_text)
            except (ValueError, TypeError, RecursionError):
                payload = None
            if not isinstance(payload, dict):
                problem = ChainProblem(seq=seq, reason="payload is not a JSON object (edited?)")
                return records, problem, len(rows)
            records.append(EventRecord(campaign_id=campaign, seq=seq, type=type_, payload=payload,
                                       recorded_at=recorded_at, prev_hash=prev_hash, hash=hash_))
        return records, None, len(rows)

    def _row(self, conn: sqlite3.Connection, campaign_id: str) -> CampaignInfo:
        row = conn.execute(CAMPAIGN_SELECT + " WHERE c.id = ?", (campaign_id,)).fetchone()
        if row is None:
            raise self._unknown(campaign_id)
        return _info(row)

    def _intact_head(self, conn: sqlite3.Connection, campaign_id: str) -> tuple[int, str]:
        """(seq, hash) of the campaign's head, read inside the write transaction.

        Raises:
            UnknownIdError: No such campaign.
            IntegrityError: The stored log fails verification (writes never build on it).
        """
        info = self._row(conn, campaign_id)
        _, problem = check_rows(conn, campaign_id, info.head_seq, info.head_hash)
        if problem is not None:
            raise IntegrityError(
                f"campaign {info.name!r} is broken at seq {problem.seq}: {problem.reason}",
                where=self.path, fix=_BROKEN_FIX)
        return info.head_seq, info.head_hash

    def _name_taken(self, name: str, other_id: str) -> StoreError:
        return StoreError(f"a campaign named {name!r} already exists (id {other_id[:8]})",
                          where=self.path, fix="choose another name")

    def _unknown(self, campaign_id: str) -> UnknownIdError:
        shown = campaign_id if len(campaign_id) <= 40 else campaign_id[:40] + "…"
        return UnknownIdError(f"no campaign with id {shown!r}", where=self.path,
                              fix="check the name or id against the list of campaigns")


def _earlier(*problems: ChainProblem | None) -> ChainProblem | None:
    """The problem at the lowest seq; at a tie the last given (the more specific) wins."""
    found = [p for p in problems if p is not None]
    return min(reversed(found), key=lambda p: p.seq) if found else None


def _tables_keyed_by_campaign(conn: sqlite3.Connection) -> list[str]:
    """Every table with a ``campaign_id`` column except the bookkeeping of a deletion itself."""
    names = [str(r[0]) for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    keyed = [n for n in names if n != "campaign_deletions" and any(
        col[1] == "campaign_id" for col in conn.execute(f'PRAGMA table_info("{n}")'))]
    # Events last: other tables may reference them.
    return sorted(keyed, key=lambda n: n == "events")


def _normalised(event: NewEvent, seq: int) -> NewEvent:
    """The event with its payload round-tripped through canonical JSON.

    So the returned record equals what :meth:`EventStore.events` reads back (tuples become lists,
    int keys strings), and a payload JSON cannot hold fails before anything is written.
    """
    try:
        payload = json.loads(canonical_json(event.payload))
    except (TypeError, ValueError, RecursionError) as exc:
        raise MalformedInputError(
            f"the payload of event {event.type!r} (seq {seq}) cannot be stored as JSON: {exc}",
            where=f"seq {seq}", fix="use only JSON values (dict, list, str, int, finite float, "
            "bool, None) in event payloads") from exc
    return NewEvent(type=event.type, payload=payload)


def _insert(conn: sqlite3.Connection, record: EventRecord) -> None:
    conn.execute(EVENT_INSERT,
                 (record.campaign_id, record.seq, record.type, canonical_json(record.payload),
                  record.recorded_at, record.prev_hash, record.hash))


def _info(row: tuple[Any, ...]) -> CampaignInfo:
    # CAMPAIGN_SELECT returns the columns in CampaignInfo's field order.
    return CampaignInfo(**dict(zip(CampaignInfo.model_fields, row, strict=True)))
