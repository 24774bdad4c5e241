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
from pydantic import BaseModel, ConfigDict

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
    verify_chain,
)
from rallypoint.store import migrations
from rallypoint.store.migrations import CAMPAIGN_INSERT, CAMPAIGN_SELECT, EVENT_INSERT, LOG_SELECT

DB_ENV_VAR = "RALLYPOINT_DB"
BUSY_TIMEOUT_MS = 5000
_MIN_PREFIX = 4


def default_db_path() -> Path:
    """Where the database lives: ``$RALLYPOINT_DB`` if set, else the user data directory.

    Creates nothing (the store makes the directory on open), so asking has no side effects.
    """
    if override := os.environ.get(DB_ENV_VAR):
        return Path(override).expanduser()
    return platformdirs.user_data_path("rallypoint") / "rallypoint.sqlite3"


class CampaignInfo(BaseModel):
    """A campaign as listed by the store.

    Attributes:
        id: Campaign id.
        name: Unique human name.
        ruleset: Ruleset key.
        created_at: ``recorded_at`` of its ``created`` event.
        version: Highest seq stored (the state version commands are made against).
        last_recorded_at: ``recorded_at`` of the event at ``version``.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    ruleset: str
    created_at: str
    version: int
    last_recorded_at: str


class VerifyReport(BaseModel):
    """Result of checking a campaign's stored hash chain."""

    model_config = ConfigDict(frozen=True)

    campaign_id: str
    events: int
    ok: bool
    problem: ChainProblem | None


class EventStore:
    """All campaigns' event logs in one SQLite file.

    Use as a context manager (``with EventStore(path) as store: ...``) or call :meth:`close`.

    Args:
        path: The database file (created with its parent directory if missing), or ``":memory:"``.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        try:
            if self.path != ":memory:" and not self.path.startswith("file:"):
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: the sqlite3 module must not open transactions behind our back.
            self._conn = sqlite3.connect(self.path, isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database: {exc}", where=self.path,
                             fix=f"check the path and permissions, or set ${DB_ENV_VAR}") from exc
        try:
            # busy_timeout first, so that switching to WAL waits for other openers.
            for pragma in (f"busy_timeout = {BUSY_TIMEOUT_MS}", "journal_mode = WAL",
                           "synchronous = FULL", "foreign_keys = ON"):
                self._conn.execute(f"PRAGMA {pragma}")
            migrations.apply_migrations(self._conn, self.path)
        except BaseException as exc:
            self._conn.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"cannot open the database: {exc}", where=self.path,
                                 fix="check that it is a rallypoint database") from exc
            raise

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
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"the database is busy: {exc}", where=self.path,
                             fix="wait for the other rallypoint process, then retry") from exc
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException as exc:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"database write failed: {exc}", where=self.path,
                                 fix="nothing was written; retry, and run verify if it persists"
                                 ) from exc
            raise

    def create_campaign(
        self, campaign_id: str, name: str, ruleset: str, created: NewEvent,
    ) -> EventRecord:
        """Start a campaign: its row and its seq-1 event, atomically.

        Args:
            campaign_id: New unique id.
            name: New unique human name.
            ruleset: Ruleset key.
            created: The first event (normally of type ``created``).

        The stored seq-1 event is returned; its ``recorded_at`` is the campaign's ``created_at``.

        Raises:
            StoreError: The id or the name is already taken.
            MalformedInputError: The payload is not JSON-serialisable.
        """
        with self._write() as conn:
            taken = conn.execute("SELECT id, name FROM campaigns WHERE id = ? OR name = ?",
                                 (campaign_id, name)).fetchone()
            if taken is not None and taken[0] == campaign_id:
                raise StoreError(f"a campaign with id {campaign_id!r} already exists",
                                 where=self.path, fix="use a new campaign id")
            if taken is not None:
                raise StoreError(f"a campaign named {name!r} already exists (id {taken[0]})",
                                 where=self.path, fix="choose another --name")
            record = EventRecord.seal(campaign_id, 1, _normalised(created, 1), GENESIS_HASH)
            conn.execute(CAMPAIGN_INSERT,
                         (campaign_id, name, ruleset, record.recorded_at))
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

        Args:
            campaign_id: The campaign.
            expected_seq: The seq the first new event must get (current version + 1).
            events: The events, in order; the stored records are returned.

        Raises:
            UnknownIdError: No such campaign.
            StaleVersionError: The campaign is not at ``expected_seq - 1``.
            MalformedInputError: A payload is not JSON-serialisable (nothing is written).
        """
        records: list[EventRecord] = []
        with self._write() as conn:
            last_seq, prev_hash = self._last(conn, campaign_id)
            if last_seq + 1 != expected_seq:
                raise StaleVersionError(
                    f"campaign {campaign_id!r} is at version {last_seq}, "
                    f"the command was made against version {expected_seq - 1}",
                    where=campaign_id, fix="reload and try again")
            for seq, event in enumerate(events, start=expected_seq):
                record = EventRecord.seal(campaign_id, seq, _normalised(event, seq), prev_hash)
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
        does). If the campaign exists, its stored log must be a prefix of ``records`` (or the other
        way round) and only the events beyond it are appended; otherwise the campaign is created
        with ``name`` and all events.

        Raises:
            IntegrityError: ``records`` diverge from the stored log.
            StoreError: ``name`` is taken by another campaign.
        """
        with self._write() as conn:
            exists = conn.execute("SELECT 1 FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
            other = conn.execute("SELECT id FROM campaigns WHERE name = ?", (name,)).fetchone()
            if not exists and other:
                raise StoreError(f"a different campaign named {name!r} exists (id {other[0]})",
                                 where=self.path, fix="pass --name to import it under another name")
            if not exists:
                conn.execute(CAMPAIGN_INSERT, (campaign_id, name, ruleset, created_at))
            stored = [h for (h,) in conn.execute(
                "SELECT hash FROM events WHERE campaign_id = ? ORDER BY seq", (campaign_id,))]
            for record, stored_hash in zip(records, stored, strict=False):
                if record.hash != stored_hash:
                    raise IntegrityError(
                        f"the logs diverge at seq {record.seq}", where=campaign_id,
                        fix="keep one history: ask for an export that extends yours, "
                            "or restore yours from an export")
            for record in records[len(stored):]:
                _insert(conn, record)
        return self.campaign(campaign_id)

    def events(self, campaign_id: str) -> list[EventRecord]:
        """Every stored event of a campaign, ordered by seq.

        Raises :class:`UnknownIdError` for an unknown campaign and :class:`IntegrityError` if a
        stored payload is not a JSON object (the file was edited).
        """
        records, unreadable, _ = self._read(campaign_id)
        if unreadable is not None:
            raise IntegrityError(
                f"event {unreadable.seq} of campaign {campaign_id!r}: {unreadable.reason}",
                where=self.path, fix="run verify and restore the campaign from an export")
        return records

    def campaign(self, campaign_id: str) -> CampaignInfo:
        """One campaign by exact id (raises :class:`UnknownIdError` if there is none)."""
        row = self._conn.execute(CAMPAIGN_SELECT + " WHERE c.id = ?", (campaign_id,)).fetchone()
        if row is None:
            raise self._unknown(campaign_id)
        return _info(row)

    def campaigns(self) -> list[CampaignInfo]:
        """Every campaign, oldest first."""
        rows = self._conn.execute(CAMPAIGN_SELECT + " ORDER BY c.created_at, c.id").fetchall()
        return [_info(row) for row in rows]

    def find(self, name_or_id: str) -> CampaignInfo:
        """Resolve what a user typed: exact id, else exact name, else a unique id prefix (≥ 4).

        Raises:
            UnknownIdError: Nothing matches, or an id prefix matches several campaigns.
        """
        known = self.campaigns()
        exact = [c for c in known if name_or_id in (c.id, c.name)]
        exact.sort(key=lambda c: c.id != name_or_id)  # an id match wins over a name match
        prefixed = [c for c in known
                    if len(name_or_id) >= _MIN_PREFIX and c.id.startswith(name_or_id)]
        if exact or len(prefixed) == 1:
            return (exact or prefixed)[0]
        what = (f"id prefix {name_or_id!r} matches {len(prefixed)} campaigns" if prefixed
                else f"no campaign with name or id {name_or_id!r}")
        candidates = prefixed or known
        names = ", ".join(repr(c.name) for c in candidates[:5])
        more = f" and {len(candidates) - 5} more" if len(candidates) > 5 else ""
        fix = (f"use one of the known campaigns: {names}{more}" if candidates
               else "no campaigns exist yet; create one first")
        raise UnknownIdError(what, where=self.path, fix=fix)

    def latest(self) -> CampaignInfo | None:
        """The most recently active campaign (latest event), or ``None`` if there are none."""
        known = self.campaigns()
        return max(known, key=lambda c: (c.last_recorded_at, c.created_at)) if known else None

    def verify(self, campaign_id: str) -> VerifyReport:
        """Check the stored chain: contiguous seqs, linked and matching hashes.

        Rows are re-read and their payload parsed exactly as stored, so an edited payload, a
        dropped or reordered event is reported rather than silently repaired.

        Raises:
            UnknownIdError: No such campaign.
        """
        records, unreadable, count = self._read(campaign_id)
        # A chain problem before an unreadable row is the earlier, more useful report.
        problem = verify_chain(records) or unreadable
        return VerifyReport(campaign_id=campaign_id, events=count, ok=problem is None,
                            problem=problem)

    def _read(self, campaign_id: str) -> tuple[list[EventRecord], ChainProblem | None, int]:
        """Stored records up to the first unreadable row, that row's problem, and the row count.

        One SELECT, so the campaign check and the rows come from the same snapshot.
        """
        rows = self._conn.execute(LOG_SELECT, (campaign_id,)).fetchall()
        if not rows:
            raise self._unknown(campaign_id)
        rows = [row for row in rows if row[1] is not None]  # LEFT JOIN: a campaign, no events
        records: list[EventRecord] = []
        for campaign, seq, type_, payload_text, recorded_at, prev_hash, hash_ in rows:
            try:
                payload = json.loads(payload_text)
            except ValueError:
                payload = None
            if not isinstance(payload, dict):
                problem = ChainProblem(seq=seq, reason="payload is not a JSON object (edited?)")
                return records, problem, len(rows)
            records.append(EventRecord(campaign_id=campaign, seq=seq, type=type_, payload=payload,
                                       recorded_at=recorded_at, prev_hash=prev_hash, hash=hash_))
        return records, None, len(rows)

    def _last(self, conn: sqlite3.Connection, campaign_id: str) -> tuple[int, str]:
        """(seq, hash) of the campaign's last event, read inside the write transaction."""
        if conn.execute("SELECT 1 FROM campaigns WHERE id = ?", (campaign_id,)).fetchone() is None:
            raise self._unknown(campaign_id)
        row = conn.execute("SELECT seq, hash FROM events WHERE campaign_id = ? "
                           "ORDER BY seq DESC LIMIT 1", (campaign_id,)).fetchone()
        return (0, GENESIS_HASH) if row is None else (int(row[0]), str(row[1]))

    def _unknown(self, campaign_id: str) -> UnknownIdError:
        return UnknownIdError(f"no campaign with id {campaign_id!r}", where=self.path,
                              fix="check the name or id against the list of campaigns")


def _normalised(event: NewEvent, seq: int) -> NewEvent:
    """The event with its payload round-tripped through canonical JSON.

    So the returned record equals what :meth:`EventStore.events` reads back (tuples become lists,
    int keys strings), and a payload JSON cannot hold fails before anything is written.
    """
    try:
        payload = json.loads(canonical_json(event.payload))
    except (TypeError, ValueError) as exc:
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
