"""Open the store a location names: a SQLite file path, or a ``postgresql://`` URL."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from rallypoint.store.postgres import is_postgres_url
from rallypoint.store.sqlite import EventStore

Location = Path | str
"""A SQLite file (path) or a PostgreSQL URL (``postgresql://user:password@host/db``)."""


def normalised(location: Location) -> Location:
    """A URL as given; a path with ``~`` expanded."""
    return location if is_postgres_url(location) else Path(location).expanduser()


def open_store(location: Location, *, readonly: bool = False) -> EventStore:
    """The event store at ``location``, on SQLite or PostgreSQL.

    :class:`~rallypoint.store.postgres.PostgresStore` has the same interface and guarantees as the
    SQLite :class:`EventStore` (``tests/test_postgres_store.py`` runs one set of tests on both), so
    callers are typed against ``EventStore`` alone.
    """
    if is_postgres_url(location):
        from rallypoint.extras import Extra, require
        from rallypoint.store.postgres import PostgresStore

        require(Extra.POSTGRES)

        return cast(EventStore, PostgresStore(str(location), readonly=readonly))
    return EventStore(location, readonly=readonly)


def exists(location: Location) -> bool:
    """Whether there may be campaigns there (a URL always may; a path only if the file exists)."""
    return is_postgres_url(location) or Path(location).exists()


def change_mark(url: str) -> str:
    """A PostgreSQL server's current WAL position: it moves with every commit (of any process,
    to any table: a logout too), so a cache keyed on it is never stale. Other databases of the
    same server move it too, which only costs a re-read."""
    with open_store(url, readonly=True) as store, store._read() as cur:
        row = cur.execute("SELECT pg_current_wal_lsn()::text").fetchone()
    return str(row[0])
