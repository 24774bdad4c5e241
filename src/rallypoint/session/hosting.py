"""What a hosted server asks of the library beside campaigns: its connection pool and its health.

The web front end reaches the store only through the session layer; these are the few calls a
server process makes about the database itself (docs/hosting.md).
"""

from __future__ import annotations

from pathlib import Path

from rallypoint.core.errors import StoreError
from rallypoint.store import pg_pool
from rallypoint.store.health import Health, check
from rallypoint.store.postgres import is_postgres_url, redacted

DEFAULT_POOL_SIZE = pg_pool.DEFAULT_SIZE
"""Connections a server process pools at most (a request holds one at a time)."""

__all__ = ["DEFAULT_POOL_SIZE", "Health", "change_mark", "health", "pool_stats", "start_pool",
           "stop_pool"]


def start_pool(location: Path | str, size: int) -> None:
    """Pool this process's connections to ``location`` (PostgreSQL; no-op for SQLite or size 0)."""
    if size and is_postgres_url(location):
        pg_pool.start(str(location), max_size=size)


def stop_pool(location: Path | str) -> None:
    """Close the pool :func:`start_pool` started (no-op when none runs)."""
    if is_postgres_url(location):
        pg_pool.stop(str(location))


def pool_stats(location: Path | str) -> dict[str, int]:
    """The pool's counters (``psycopg_pool``'s names); empty without a pool."""
    return pg_pool.stats(str(location)) if is_postgres_url(location) else {}


def health(location: Path | str) -> Health:
    """Whether the database answers and its migrations are this version's."""
    return check(location)


def change_mark(url: str) -> str:
    """A mark of a PostgreSQL database's state that moves with every commit, by any process, that
    writes what a page shows, and with nothing else (not with other databases on the same server):
    a server's cache keyed on it is never stale (one round trip, see ``pg_pool.change_mark``).

    Raises:
        StoreError: The database cannot be reached.
    """
    import psycopg

    try:
        return pg_pool.change_mark(url)
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StoreError(f"cannot connect to the database: {first}", where=redacted(url),
                         fix="check the URL, that the server runs, and the password") from exc
