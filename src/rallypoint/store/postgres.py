"""The event store on PostgreSQL (psycopg 3), for a hosted server: ``--db postgresql://…``.

Same interface and guarantees as :class:`rallypoint.store.sqlite.EventStore`: append-only logs
(enforced by triggers, TRUNCATE included), contiguous seqs, the hash chain and the recorded head
checked under the write lock before every append, and a stale command refused. A write locks its
campaign's row (``SELECT … FOR UPDATE``) before it reads the head, so concurrent writers to one
campaign are serialised and exactly one of two racing appends at the same version wins; the
``(campaign_id, seq)`` primary key and the head trigger refuse a duplicate even if that were
bypassed. Every transaction commits durably (PostgreSQL's default ``synchronous_commit = on``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

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
    now_text,
)
from rallypoint.core.suggest import did_you_mean
from rallypoint.store import postgres_schema as schema
from rallypoint.store.integrity import head_problem, row_matches
from rallypoint.store.names import clean_name
from rallypoint.store.records import CampaignInfo, StoredLog, VerifyReport
from rallypoint.store.secrets import SecretsMixin

if TYPE_CHECKING:
    import psycopg

URL_PREFIXES = ("postgresql://", "postgres://")
_MIN_PREFIX = 4
_BROKEN_FIX = ("nothing was written; run `rallypoint verify`, then `rallypoint delete` it and "
               "import it again from an export")


def is_postgres_url(location: object) -> bool:
    """Whether ``location`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(location, str) and location.startswith(URL_PREFIXES)


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    head, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at:
        return url
    user = credentials.split(":", 1)[0]
    return f"{head}{sep}{user}@{host}"


class PostgresStore(SecretsMixin):
    """All campaigns' event logs in one PostgreSQL database.

    Args:
        url: A libpq connection URL, ``postgresql://user:password@host:port/dbname``.
        readonly: Open for reading only: nothing is created or migrated, and a database without
            the rallypoint schema is refused.
    """

    def __init__(self, url: str, *, readonly: bool = False) -> None:
        import psycopg

        self.path = redacted(url)
        self.readonly = readonly
        try:
            self._conn: psycopg.Connection[Any] = psycopg.connect(
                url, connect_timeout=10, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to the database: {_first_line(exc)}",
                             where=self.path,
                             fix="check the URL, that the server runs, and the password") from exc
        try:
            if readonly:
                self._conn.read_only = True
                self._check_schema()
            else:
                self._migrate()
        except BaseException:
            self._conn.close()
            raise

    # --- connection and transactions ------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; safe to call twice (an unfinished transaction is rolled back)."""
        self._conn.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _tx(self, doing: str) -> Iterator[psycopg.Cursor[Any]]:
        import psycopg

        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                yield cur
        except psycopg.Error as exc:
            raise StoreError(f"database {doing} failed: {_first_line(exc)}", where=self.path,
                             fix="nothing was written; retry, and run verify if it persists"
                             ) from exc

    _PLACEHOLDER = "%s"

    @contextmanager
    def _read(self) -> Iterator[psycopg.Cursor[Any]]:
        with self._tx("read") as cur:
            yield cur

    @contextmanager
    def _write(self) -> Iterator[psycopg.Cursor[Any]]:
        if self.readonly:
            raise StoreError("this store was opened read-only", where=self.path,
                             fix="open it without readonly to write")
        with self._tx("write") as cur:
            yield cur

    def _migrate(self) -> None:
        with self._tx("migration") as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (schema.ADVISORY_LOCK,))
            cur.execute(schema.BOOKKEEPING)
            done = {r[0] for r in cur.execute("SELECT name FROM schema_migrations")}
            for name, sql in schema.MIGRATIONS:
                if name not in done:
                    cur.execute(sql)
                    cur.execute("INSERT INTO schema_migrations VALUES (%s, %s)",
                                (name, now_text()))

    def _check_schema(self) -> None:
        with self._tx("read") as cur:
            found = cur.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
            if not found or not found[0]:
                raise StoreError("the database has no rallypoint store", where=self.path,
                                 fix="create a campaign there first, or check the URL")

    def applied_migrations(self) -> list[str]:
        """Names of the applied migrations, in order."""
        with self._tx("read") as cur:
            return [r[0] for r in cur.execute("SELECT name FROM schema_migrations ORDER BY name")]

    # --- writing --------------------------------------------------------------------------------

    def create_campaign(self, campaign_id: str, name: str, ruleset: str,
                        created: NewEvent) -> EventRecord:
        """Start a campaign: its row and its seq-1 event, atomically (see the SQLite store)."""
        name = clean_name(name)
        record = EventRecord.seal(campaign_id, 1, _normalised(created, 1), GENESIS_HASH)
        with self._write() as cur:
            taken = cur.execute("SELECT id, name FROM campaigns WHERE id = %s OR name = %s",
                                (campaign_id, name)).fetchone()
            if taken is not None and taken[0] == campaign_id:
                raise StoreError(f"a campaign with id {campaign_id!r} already exists",
                                 where=self.path, fix="use a new campaign id")
            if taken is not None:
                raise self._name_taken(name, str(taken[0]))
            cur.execute(schema.CAMPAIGN_INSERT, (campaign_id, name, ruleset, record.recorded_at))
            _insert(cur, record)
        return record

    def append(self, campaign_id: str, expected_seq: int, event: NewEvent) -> EventRecord:
        """Append one event if the campaign is still at ``expected_seq - 1``."""
        return self.append_many(campaign_id, expected_seq, [event])[0]

    def append_many(self, campaign_id: str, expected_seq: int,
                    events: Sequence[NewEvent]) -> list[EventRecord]:
        """Append several events atomically, after checking the stored log under the row lock.

        Raises:
            UnknownIdError: No such campaign.
            IntegrityError: The stored log fails verification.
            StaleVersionError: The campaign is not at ``expected_seq - 1``.
            MalformedInputError: A payload is not JSON-serialisable (nothing is written).
        """
        normalised = [_normalised(event, seq) for seq, event in enumerate(events, expected_seq)]
        records: list[EventRecord] = []
        with self._write() as cur:
            last_seq, prev_hash = self._intact_head(cur, campaign_id)
            if last_seq + 1 != expected_seq:
                raise StaleVersionError(
                    f"campaign {campaign_id!r} is at version {last_seq}, "
                    f"the command was made against version {expected_seq - 1}",
                    where=campaign_id, fix="reload and try again")
            for seq, event in enumerate(normalised, start=expected_seq):
                record = EventRecord.seal(campaign_id, seq, event, prev_hash)
                _insert(cur, record)
                records.append(record)
                prev_hash = record.hash
        return records

    def import_records(self, campaign_id: str, name: str, ruleset: str, created_at: str,
                       records: Sequence[EventRecord]) -> CampaignInfo:
        """Store already-verified, sealed events exactly as given (see the SQLite store)."""
        name = clean_name(name)
        with self._write() as cur:
            exists = cur.execute("SELECT 1 FROM campaigns WHERE id = %s FOR UPDATE",
                                 (campaign_id,)).fetchone()
            other = cur.execute("SELECT id FROM campaigns WHERE name = %s", (name,)).fetchone()
            if not exists and other:
                raise StoreError(f"a different campaign named {name!r} exists (id {other[0]})",
                                 where=self.path, fix="pass --name to import it under another name")
            if exists:
                self._intact_head(cur, campaign_id)
            else:
                cur.execute(schema.CAMPAIGN_INSERT, (campaign_id, name, ruleset, created_at))
            stored = [h for (h,) in cur.execute(
                "SELECT hash FROM events WHERE campaign_id = %s ORDER BY seq", (campaign_id,))]
            for record, stored_hash in zip(records, stored, strict=False):
                if record.hash != stored_hash:
                    raise IntegrityError(
                        f"the logs diverge at seq {record.seq}", where=campaign_id,
                        fix="keep one history: ask for an export that extends yours, "
                            "or keep theirs as a new campaign with import --as NAME")
            used = cur.execute("SELECT use_order, used_at FROM local_use WHERE campaign_id = %s",
                               (campaign_id,)).fetchone()
            for record in records[len(stored):]:
                _insert(cur, record)
            # Imported events are not this machine's use: the default campaign stays the one
            # last written here (the insert trigger marked the campaign as just used).
            cur.execute("DELETE FROM local_use WHERE campaign_id = %s", (campaign_id,))
            if used is not None:
                cur.execute("INSERT INTO local_use (campaign_id, use_order, used_at) "
                            "VALUES (%s, %s, %s)", (campaign_id, *used))
        return self.campaign(campaign_id)

    def rename_campaign(self, campaign_id: str, name: str) -> CampaignInfo:
        """Give a campaign a new local name."""
        name = clean_name(name)
        with self._write() as cur:
            self._row(cur, campaign_id)
            other = cur.execute("SELECT id FROM campaigns WHERE name = %s AND id <> %s",
                                (name, campaign_id)).fetchone()
            if other is not None:
                raise self._name_taken(name, str(other[0]))
            cur.execute("UPDATE campaigns SET name = %s WHERE id = %s", (name, campaign_id))
        return self.campaign(campaign_id)

    def delete_campaign(self, campaign_id: str, expected_version: int | None = None) -> int:
        """Remove a campaign and all its rows, atomically; return how many events it had."""
        with self._write() as cur:
            info = self._row(cur, campaign_id, lock=True)
            if expected_version is not None and info.version != expected_version:
                raise StaleVersionError(
                    f"campaign {info.name!r} is at version {info.version}, not "
                    f"{expected_version}", where=campaign_id, fix="run the delete again")
            row = cur.execute("SELECT COUNT(*) FROM events WHERE campaign_id = %s",
                              (campaign_id,)).fetchone()
            cur.execute("INSERT INTO campaign_deletions VALUES (%s)", (campaign_id,))
            for table in schema.TABLES_KEYED_BY_CAMPAIGN:
                cur.execute(f"DELETE FROM {table} WHERE campaign_id = %s", (campaign_id,))
            cur.execute("DELETE FROM campaigns WHERE id = %s", (campaign_id,))
            cur.execute("DELETE FROM campaign_deletions WHERE campaign_id = %s", (campaign_id,))
        return int(row[0]) if row else 0

    # --- reading --------------------------------------------------------------------------------

    def events(self, campaign_id: str) -> list[EventRecord]:
        """Every stored event of a campaign, ordered by seq."""
        with self._tx("read") as cur:
            records, unreadable = self._rows(cur, campaign_id)
        if unreadable is not None:
            raise IntegrityError(
                f"event {unreadable.seq} of campaign {campaign_id!r}: {unreadable.reason}",
                where=self.path, fix="run verify and restore the campaign from an export")
        return records

    def log(self, campaign_id: str) -> StoredLog:
        """A campaign's row, its events and the first integrity problem, from one snapshot."""
        with self._snapshot() as cur:
            info = self._row(cur, campaign_id)
            records, unreadable = self._rows(cur, campaign_id)
            _, problem = _check_rows(cur, campaign_id, info.head_seq, info.head_hash)
        return StoredLog(info=info, records=records, problem=_earlier(problem, unreadable))

    def campaign(self, campaign_id: str) -> CampaignInfo:
        """One campaign by exact id (raises :class:`UnknownIdError` if there is none)."""
        with self._tx("read") as cur:
            return self._row(cur, campaign_id)

    def campaigns(self) -> list[CampaignInfo]:
        """Every campaign, oldest first."""
        with self._tx("read") as cur:
            rows = cur.execute(schema.CAMPAIGN_SELECT
                               + " ORDER BY c.created_at, c.id").fetchall()
        return [_info(row) for row in rows]

    def find(self, name_or_id: str) -> CampaignInfo:
        """Resolve an exact id, else an exact name, else a unique id prefix (≥ 4)."""
        known = self.campaigns()
        exact = sorted((c for c in known if name_or_id in (c.id, c.name)),
                       key=lambda c: c.id != name_or_id)
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

    def latest(self) -> CampaignInfo | None:
        """The campaign this store wrote to last (by its own record, never events' clocks)."""
        with self._tx("read") as cur:
            row = cur.execute(schema.LATEST_SELECT).fetchone()
        return None if row is None else _info(row)

    def verify(self, campaign_id: str) -> VerifyReport:
        """Check the stored log: contiguous seqs, linked and matching hashes, the recorded head."""
        with self._snapshot() as cur:
            info = self._row(cur, campaign_id)
            count, problem = _check_rows(cur, campaign_id, info.head_seq, info.head_hash)
            _, unreadable = self._rows(cur, campaign_id)
        problem = _earlier(problem, unreadable)
        return VerifyReport(campaign_id=campaign_id, events=count, head_seq=info.head_seq,
                            ok=problem is None, problem=problem)

    def check(self, campaign_id: str) -> ChainProblem | None:
        """The first integrity problem of a stored log (chain or head), or ``None``."""
        with self._snapshot() as cur:
            info = self._row(cur, campaign_id)
            return _check_rows(cur, campaign_id, info.head_seq, info.head_hash)[1]

    @contextmanager
    def _snapshot(self) -> Iterator[psycopg.Cursor[Any]]:
        """A repeatable-read transaction, so several SELECTs see one snapshot."""
        with self._tx("read") as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield cur

    def _rows(self, cur: psycopg.Cursor[Any], campaign_id: str,
              ) -> tuple[list[EventRecord], ChainProblem | None]:
        rows = cur.execute(schema.LOG_SELECT, (campaign_id,)).fetchall()
        if not rows:
            raise self._unknown(campaign_id)
        records: list[EventRecord] = []
        for campaign, seq, type_, text, recorded_at, prev_hash, hash_ in rows:
            if seq is None:
                continue  # LEFT JOIN: a campaign without events
            try:
                payload = json.loads(text)
            except (ValueError, TypeError, RecursionError):
                payload = None
            if not isinstance(payload, dict):
                return records, ChainProblem(seq=seq,
                                             reason="payload is not a JSON object (edited?)")
            records.append(EventRecord(campaign_id=campaign, seq=seq, type=type_, payload=payload,
                                       recorded_at=recorded_at, prev_hash=prev_hash, hash=hash_))
        return records, None

    def _row(self, cur: psycopg.Cursor[Any], campaign_id: str, *,
             lock: bool = False) -> CampaignInfo:
        # With ``lock``, the write lock of this campaign: held to commit, so writers queue here.
        if lock and cur.execute("SELECT 1 FROM campaigns WHERE id = %s FOR UPDATE",
                                (campaign_id,)).fetchone() is None:
            raise self._unknown(campaign_id)
        row = cur.execute(schema.CAMPAIGN_SELECT + " WHERE c.id = %s", (campaign_id,)).fetchone()
        if row is None:
            raise self._unknown(campaign_id)
        return _info(row)

    def _intact_head(self, cur: psycopg.Cursor[Any], campaign_id: str) -> tuple[int, str]:
        info = self._row(cur, campaign_id, lock=True)
        _, problem = _check_rows(cur, campaign_id, info.head_seq, info.head_hash)
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


def _check_rows(cur: psycopg.Cursor[Any], campaign_id: str, head_seq: int,
                head_hash: str) -> tuple[int, ChainProblem | None]:
    """Rows counted and the first chain or head problem (as ``integrity.check_rows``)."""
    prev, count = GENESIS_HASH, 0
    for seq, type_, payload, recorded_at, prev_hash, hash_ in cur.execute(
            schema.CHAIN_SELECT, (campaign_id,)).fetchall():
        count += 1
        if seq != count:
            return count, ChainProblem(seq=seq, reason=f"sequence gap: expected {count}")
        if prev_hash != prev:
            return count, ChainProblem(seq=seq, reason="prev_hash does not match the event before")
        if not row_matches(campaign_id, seq, type_, payload, recorded_at, prev_hash, hash_):
            return count, ChainProblem(seq=seq, reason="content does not match its hash (edited?)")
        prev = str(hash_)
    return count, head_problem(count, prev, head_seq, head_hash)


def _earlier(*problems: ChainProblem | None) -> ChainProblem | None:
    found = [p for p in problems if p is not None]
    return min(reversed(found), key=lambda p: p.seq) if found else None


def _normalised(event: NewEvent, seq: int) -> NewEvent:
    try:
        payload = json.loads(canonical_json(event.payload))
    except (TypeError, ValueError, RecursionError) as exc:
        raise MalformedInputError(
            f"the payload of event {event.type!r} (seq {seq}) cannot be stored as JSON: {exc}",
            where=f"seq {seq}", fix="use only JSON values (dict, list, str, int, finite float, "
            "bool, None) in event payloads") from exc
    return NewEvent(type=event.type, payload=payload)


def _insert(cur: psycopg.Cursor[Any], record: EventRecord) -> None:
    cur.execute(schema.EVENT_INSERT,
                (record.campaign_id, record.seq, record.type, canonical_json(record.payload),
                 record.recorded_at, record.prev_hash, record.hash))


def _info(row: tuple[Any, ...]) -> CampaignInfo:
    return CampaignInfo(**dict(zip(CampaignInfo.model_fields, row, strict=True)))


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
