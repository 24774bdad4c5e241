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

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

from rallypoint.core.errors import StoreError
from rallypoint.core.events import ChainProblem, now_text
from rallypoint.store import pg_pool
from rallypoint.store import postgres_schema as schema
from rallypoint.store.base import Statements, StoreBase
from rallypoint.store.integrity import check_chain

if TYPE_CHECKING:
    import psycopg

URL_PREFIXES = ("postgresql://", "postgres://")


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


class PostgresStore(StoreBase):
    """All campaigns' event logs in one PostgreSQL database.

    The store's logic is :class:`~rallypoint.store.base.StoreBase`'s; this class holds the
    connection, its transactions and migrations, the row lock and the chain check.

    Args:
        url: A libpq connection URL, ``postgresql://user:password@host:port/dbname``.
        readonly: Open for reading only: nothing is created or migrated, and a database without
            the rallypoint schema is refused.
    """

    _STATEMENTS = Statements(campaign_insert=schema.CAMPAIGN_INSERT,
                             event_insert=schema.EVENT_INSERT,
                             campaign_select=schema.CAMPAIGN_SELECT,
                             latest_select=schema.LATEST_SELECT, log_select=schema.LOG_SELECT)
    _FOR_UPDATE = " FOR UPDATE"
    _PLACEHOLDER = "%s"

    def __init__(self, url: str, *, readonly: bool = False) -> None:
        import psycopg

        self.path = redacted(url)
        self.readonly = readonly
        self._url = url
        self._given_back = False
        self._outer = False
        try:
            borrowed = pg_pool.borrow(url)
            self._pooled = borrowed is not None
            self._conn: psycopg.Connection[Any] = borrowed if borrowed is not None else \
                psycopg.connect(url, connect_timeout=10, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to the database: {_first_line(exc)}",
                             where=self.path,
                             fix="check the URL, that the server runs, and the password") from exc
        try:
            # Set every time: a pooled connection may come back from a read-only store.
            self._conn.read_only = readonly
            if pg_pool.migrated(url):
                pass  # this server process brought the schema up to date already
            elif readonly:
                self._check_schema()
            else:
                self._migrate()
                pg_pool.note_migrated(url)
        except BaseException:
            self.close()
            raise

    # --- connection and transactions ------------------------------------------------------------

    def close(self) -> None:
        """Close the connection, or give it back to the server's pool; safe to call twice (an
        unfinished transaction is rolled back)."""
        if self._pooled:
            self._pooled, self._given_back = False, True
            pg_pool.give_back(self._url, self._conn)
        elif not self._given_back:  # never close a connection the pool holds again
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Every read and write inside is one transaction: all of it is committed together, or
        (on any exception) none of it."""
        if self._outer:
            yield
            return
        with self._tx("write"):
            self._outer = True
            try:
                yield
            finally:
                self._outer = False

    @contextmanager
    def _tx(self, doing: str) -> Iterator[psycopg.Cursor[Any]]:
        import psycopg

        if self._outer:  # part of :meth:`transaction`
            with self._conn.cursor() as cur:
                yield cur
            return
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                yield cur
        except psycopg.Error as exc:
            raise StoreError(f"database {doing} failed: {_first_line(exc)}", where=self.path,
                             fix="nothing was written; retry, and run verify if it persists"
                             ) from exc

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

    @contextmanager
    def _snapshot(self) -> Iterator[psycopg.Cursor[Any]]:
        """A repeatable-read transaction, so several SELECTs see one snapshot."""
        outer = self._outer  # inside :meth:`transaction`, its snapshot is this one
        with self._tx("read") as cur:
            if not outer:
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield cur

    def _guard(self, conn: Any) -> str:
        # Disabling or enabling a trigger rewrites its pg_trigger row (a new xmin); dropping one
        # removes it. Either way the guard changes, and the next write checks the chain whole.
        row = conn.execute(schema.TRIGGER_GUARD).fetchone()
        return f"postgresql:{row[0] or ''}"

    def _serialise_key(self, conn: Any, text: str) -> None:
        # Concurrent transactions under READ COMMITTED would each count the same rows.
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (text,))

    def _insert_rows(self, conn: psycopg.Cursor[Any], rows: Sequence[tuple[Any, ...]]) -> None:
        # One statement, not one per row: the head moves once per batch (migration 0014).
        columns = [list(column) for column in zip(*rows, strict=True)]
        conn.execute(schema.EVENTS_INSERT_MANY, columns)

    @contextmanager
    def _walk(self, conn: psycopg.Cursor[Any], sql: str, params: Sequence[object],
              ) -> Iterator[Iterator[Sequence[Any]]]:
        with _server_rows(conn, self._sql(sql), params) as rows:
            yield iter(rows)

    def _chain(self, conn: psycopg.Cursor[Any], campaign_id: str, head_seq: int,
               head_hash: str) -> tuple[int, ChainProblem | None]:
        with _server_rows(conn, schema.CHAIN_SELECT, (campaign_id,)) as rows:
            return check_chain(rows, campaign_id, head_seq, head_hash)

    def _keyed_tables(self, conn: psycopg.Cursor[Any]) -> tuple[str, ...]:
        return schema.TABLES_KEYED_BY_CAMPAIGN


CHAIN_BATCH: Final = 512
"""Rows a chain walk fetches from the server at a time (as the streamed reads' pages)."""


@contextmanager
def _server_rows(cur: psycopg.Cursor[Any], sql: str, params: Sequence[object],
                 ) -> Iterator[psycopg.ServerCursor[Any]]:
    """The rows of ``sql`` through a server-side cursor, :data:`CHAIN_BATCH` at a time.

    A client cursor fetches every row before the first is read: a 100,000-event log whole, for
    ``verify`` or a write whose chain mark no longer holds. The cursor is declared inside the
    caller's transaction, so it reads the same snapshot, and closed before that goes on.
    """
    with cur.connection.cursor(name="rallypoint_walk") as rows:
        rows.itersize = CHAIN_BATCH
        rows.execute(sql, params)
        yield rows


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
