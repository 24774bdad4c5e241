"""The append-only, hash-chained event store on SQLite.

One database file holds every campaign. Writes use ``BEGIN IMMEDIATE`` so the version check
(``expected_seq``) and the insert happen under the same write lock: two processes appending to the
same campaign cannot both win. WAL plus ``synchronous=FULL`` means an append that returned has been
fsynced and survives a crash or power loss.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs

from rallypoint.core.errors import StoreError
from rallypoint.core.events import ChainProblem
from rallypoint.store import migrations
from rallypoint.store.base import Statements, StoreBase
from rallypoint.store.integrity import check_rows
from rallypoint.store.migrations import (
    CAMPAIGN_INSERT,
    CAMPAIGN_SELECT,
    EVENT_INSERT,
    LATEST_SELECT,
    LOG_SELECT,
)
from rallypoint.store.opening import DB_ENV_VAR, connect, sql_errors, translate


def default_db_path() -> Path:
    """Where the database lives: ``$RALLYPOINT_DB`` if set, else the user data directory.

    Creates nothing (the store makes the directory on open), so asking has no side effects.
    """
    if override := os.environ.get(DB_ENV_VAR):
        return Path(override).expanduser()
    return platformdirs.user_data_path("rallypoint") / "rallypoint.sqlite3"


class EventStore(StoreBase):
    """All campaigns' event logs in one SQLite file.

    Use as a context manager (``with EventStore(path) as store: ...``) or call :meth:`close`.
    The store's logic is :class:`~rallypoint.store.base.StoreBase`'s; this class holds SQLite's
    connection, transactions and chain check.

    Args:
        path: The database file (created with its parent directory if missing), or ``":memory:"``.
    """

    _STATEMENTS = Statements(campaign_insert=CAMPAIGN_INSERT, event_insert=EVENT_INSERT,
                             campaign_select=CAMPAIGN_SELECT, latest_select=LATEST_SELECT,
                             log_select=LOG_SELECT)

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._outer = False
        self._conn = connect(self.path, readonly=readonly)

    def close(self) -> None:
        """Close the connection; safe to call twice. SQLite discards any unfinished transaction."""
        self._conn.close()

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
    def transaction(self) -> Iterator[None]:
        """Every read and write inside is one ``BEGIN IMMEDIATE`` transaction: all of it is
        committed together, or (on any exception) none of it."""
        if self._outer:
            yield
            return
        with self._write():
            self._outer = True
            try:
                yield
            finally:
                self._outer = False

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: commit on success, roll back on any exception
        (inside :meth:`transaction`: part of it).

        Driver errors become :class:`StoreError`; our own errors pass through unchanged.
        """
        if self.readonly:
            raise StoreError("this store was opened read-only", where=self.path,
                             fix="open it with EventStore(path) to write")
        if self._outer:
            with sql_errors(self.path, "writing"):
                yield self._conn
            return
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
        if self._outer:
            with sql_errors(self.path, "reading"):
                yield self._conn
            return
        with sql_errors(self.path, "reading"):
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

    @contextmanager
    def _walk(self, conn: sqlite3.Connection, sql: str, params: Sequence[object],
              ) -> Iterator[Iterator[Sequence[Any]]]:
        # An SQLite cursor steps the statement as it is iterated: nothing is fetched ahead.
        cursor = conn.execute(sql, params)
        try:
            yield iter(cursor)
        finally:
            cursor.close()

    def _chain(self, conn: sqlite3.Connection, campaign_id: str, head_seq: int,
               head_hash: str) -> tuple[int, ChainProblem | None]:
        return check_rows(conn, campaign_id, head_seq, head_hash)

    def _guard(self, conn: sqlite3.Connection) -> str:
        # SQLite bumps the schema cookie in the file header on every schema change: a trigger
        # dropped (to edit rows) or made again changes it, so the next write checks whole.
        return f"sqlite:{conn.execute('PRAGMA schema_version').fetchone()[0]}"

    def _keyed_tables(self, conn: sqlite3.Connection) -> list[str]:
        return _tables_keyed_by_campaign(conn)


def _tables_keyed_by_campaign(conn: sqlite3.Connection) -> list[str]:
    """Every table with a ``campaign_id`` column except the bookkeeping of a deletion itself."""
    names = [str(r[0]) for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    keyed = [n for n in names if n != "campaign_deletions" and any(
        col[1] == "campaign_id" for col in conn.execute(f'PRAGMA table_info("{n}")'))]
    # Events last: other tables may reference them.
    return sorted(keyed, key=lambda n: n == "events")
