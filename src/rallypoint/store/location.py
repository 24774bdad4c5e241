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
