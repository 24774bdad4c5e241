"""Pooled PostgreSQL connections for a server process (``psycopg_pool``).

A command-line run opens one connection and exits, so it needs no pool. A server opens a store
several times per request (the page, its guards, its campaign list), and a new PostgreSQL
connection costs ~24 ms of handshakes and authentication: the server starts one pool per database
URL (:func:`start`), every :class:`~rallypoint.store.postgres.PostgresStore` opened in that process
borrows a connection from it and gives it back on ``close``, and the schema is migrated once per
process instead of once per store. Without a started pool, a store connects as it always did.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

DEFAULT_SIZE = 8
"""Connections one server process keeps at most (a request holds one at a time)."""

_pools: dict[str, ConnectionPool[Any]] = {}
_migrated: set[str] = set()
_lock = threading.Lock()
_marks: dict[str, psycopg.Connection[Any]] = {}
_mark_lock = threading.Lock()

_MARK = "SELECT xmin::text || ':' || n::text FROM page_mark"
"""This database's change mark (migration ``0013_page_mark``): the count its write triggers bump,
with the bumping transaction's id, so a database emptied and migrated again under a running server
does not count up to a mark the server has already cached."""


def start(url: str, *, max_size: int = DEFAULT_SIZE) -> None:
    """Start this process's pool for ``url`` (no-op if it runs): stores opened on ``url`` borrow
    from it from now on."""
    from psycopg_pool import ConnectionPool

    with _lock:
        if url in _pools:
            return
        # min_size=0: no connection is held (or re-opened in the background) while idle, so a
        # database dropped or restarted under an idle server costs nothing; `check` drops a dead
        # connection on borrowing instead of handing it out.
        _pools[url] = ConnectionPool(
            url, min_size=0, max_size=max_size, open=True, name="rallypoint",
            kwargs={"autocommit": True, "connect_timeout": 10},
            check=ConnectionPool.check_connection)


def stop(url: str) -> None:
    """Close ``url``'s pool (at server shutdown); stores connect directly again."""
    with _lock:
        pool = _pools.pop(url, None)
        _migrated.discard(url)
    with _mark_lock:
        marks = _marks.pop(url, None)
    if marks is not None:
        marks.close()
    if pool is not None:
        pool.close()


def change_mark(url: str) -> str:
    """This database's change mark: it moves with every commit (of any process) that writes what
    a page shows, in the same transaction, so a cache keyed on it is never stale; other databases
    on the same server, and autovacuum, leave it alone (the server's WAL position did not).

    It is asked once per request a server answers from its cache, so it costs one round trip:
    while the pool runs, on a connection of its own kept for it (autocommit, no transaction, no
    borrowing check, the statement prepared by psycopg after a few uses); a dropped connection
    is opened again once. Without a pool, a connection is opened for the one query.

    Raises:
        psycopg.Error: The database cannot be reached.
    """
    import psycopg

    if url not in _pools:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            return _read_mark(conn)
    with _mark_lock:
        try:
            return _read_mark(_mark_connection(url))
        except psycopg.OperationalError:
            # The server restarted or dropped the kept connection: open it again, once.
            stale = _marks.pop(url, None)
            if stale is not None:
                stale.close()
            return _read_mark(_mark_connection(url))


def _mark_connection(url: str) -> psycopg.Connection[Any]:
    import psycopg

    conn = _marks.get(url)
    if conn is None or conn.closed:
        conn = _marks[url] = psycopg.connect(url, autocommit=True, connect_timeout=10)
    return conn


def _read_mark(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute(_MARK).fetchone()
    return str(row[0]) if row else ""


def borrow(url: str) -> psycopg.Connection[Any] | None:
    """A connection from ``url``'s pool, or ``None`` when this process started none.

    Raises:
        psycopg.Error: The database cannot be reached (``PoolTimeout`` is one).
    """
    pool = _pools.get(url)
    return None if pool is None else pool.getconn(timeout=10)


def give_back(url: str, conn: psycopg.Connection[Any]) -> None:
    """Return a borrowed connection (rolled back and checked by the pool); closes it if the pool
    has stopped meanwhile."""
    pool = _pools.get(url)
    if pool is None:
        conn.close()
    else:
        pool.putconn(conn)


def migrated(url: str) -> bool:
    """Whether this process has already brought ``url``'s schema up to date (pooled only)."""
    return url in _migrated and url in _pools


def note_migrated(url: str) -> None:
    """Remember that ``url``'s schema is current, while its pool runs."""
    if url in _pools:
        _migrated.add(url)


def stats(url: str) -> dict[str, int]:
    """The pool's counters (``psycopg_pool`` names), empty without a pool: for /healthz."""
    pool = _pools.get(url)
    return {} if pool is None else dict(pool.get_stats())
