"""Named, ordered schema migrations for the event store.

Each migration runs once, in order, inside its own ``BEGIN IMMEDIATE`` transaction together with
the row that records it in ``schema_migrations``, so a crash mid-migration leaves the database as
it was before that migration. ``PRAGMA user_version`` mirrors the number of applied migrations so
external tools (``sqlite3 file 'PRAGMA user_version'``) can see the schema level at a glance.

Append new migrations to :data:`MIGRATIONS`; never edit or reorder one that has shipped.
"""

from __future__ import annotations

import sqlite3

from rallypoint.core.errors import StoreError
from rallypoint.core.events import now_text

_INITIAL = """
CREATE TABLE campaigns (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    ruleset TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE events (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL, -- canonical JSON, exactly what the hash covers
    recorded_at TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (campaign_id, seq)
) WITHOUT ROWID;

-- The log is the source of truth: corrections are new events (``undone``), never edits.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", _INITIAL),
]
"""Every migration as ``(name, sql)``, in the order they are applied."""

# Queries whose column lists depend on the schema live here, next to it, so a migration that
# changes a table is reviewed together with the statements that read and write it.
CAMPAIGN_INSERT = "INSERT INTO campaigns (id, name, ruleset, created_at) VALUES (?, ?, ?, ?)"

EVENT_INSERT = """
INSERT INTO events (campaign_id, seq, type, payload, recorded_at, prev_hash, hash)
VALUES (?, ?, ?, ?, ?, ?, ?)
"""

# Every campaign with its version (max seq) and the time of that last event.
CAMPAIGN_SELECT = """
SELECT c.id, c.name, c.ruleset, c.created_at,
       COALESCE(e.seq, 0), COALESCE(e.recorded_at, c.created_at)
FROM campaigns AS c
LEFT JOIN events AS e
  ON e.campaign_id = c.id
 AND e.seq = (SELECT MAX(seq) FROM events WHERE campaign_id = c.id)
"""

# One campaign's events; the LEFT JOIN yields one all-NULL row for a campaign without events and
# none for an unknown campaign, so existence and rows come from the same snapshot.
LOG_SELECT = """
SELECT e.campaign_id, e.seq, e.type, e.payload, e.recorded_at, e.prev_hash, e.hash
FROM campaigns AS c
LEFT JOIN events AS e ON e.campaign_id = c.id
WHERE c.id = ?
ORDER BY e.seq
"""

_BOOKKEEPING = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
)
"""


def split_statements(sql: str) -> list[str]:
    """Split a script into complete SQL statements.

    ``Connection.executescript`` would be simpler but commits any open transaction first, which
    would defeat running each migration atomically. ``sqlite3.complete_statement`` understands
    ``CREATE TRIGGER ... END;`` bodies, so splitting on ``;`` only where the text so far is a
    complete statement keeps trigger bodies whole.

    Args:
        sql: One or more statements separated by semicolons.

    Returns:
        The statements, each ending with ``;``, without blank or comment-only leftovers.
    """
    statements: list[str] = []
    buffer = ""
    for piece in sql.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if _has_code(buffer):
                statements.append(buffer.strip())
            buffer = ""
    if _has_code(buffer.removesuffix(";")):
        raise ValueError(f"incomplete SQL statement at the end of a migration: {buffer!r}")
    return statements


def _has_code(text: str) -> bool:
    """Whether ``text`` holds anything but whitespace, ``--`` comments and semicolons."""
    for line in text.splitlines():
        code = line.split("--", 1)[0].strip().strip(";").strip()
        if code:
            return True
    return False


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations recorded in ``conn``'s database, in the order they apply."""
    conn.execute(_BOOKKEEPING)
    rows = conn.execute("SELECT name FROM schema_migrations ORDER BY name").fetchall()
    return [str(row[0]) for row in rows]


def apply_migrations(conn: sqlite3.Connection, where: str) -> list[str]:
    """Apply every migration not yet recorded, each in its own ``BEGIN IMMEDIATE`` transaction.

    Args:
        conn: A connection opened with ``isolation_level=None`` (explicit transactions).
        where: The database path, for error messages.

    Returns:
        The names applied by this call (empty when the schema was already current).

    Raises:
        StoreError: The database records migrations this version does not know (it was written
            by a newer rallypoint), or a migration failed.
    """
    known = [name for name, _ in MIGRATIONS]
    unknown = sorted(set(applied_migrations(conn)) - set(known))
    if unknown:
        raise StoreError(
            f"the database has schema migrations this rallypoint does not know: {unknown}",
            where=where,
            fix="upgrade rallypoint to the version that wrote this database",
        )
    applied_now: list[str] = []
    for position, (name, sql) in enumerate(MIGRATIONS, start=1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check under the write lock: another process may have migrated since we looked.
            done = conn.execute(
                "SELECT 1 FROM schema_migrations WHERE name = ?", (name,)
            ).fetchone()
            if done is None:
                for statement in split_statements(sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    (name, now_text()),
                )
                # PRAGMA arguments cannot be bound; ``position`` is an int we computed.
                conn.execute(f"PRAGMA user_version = {int(position)}")
                applied_now.append(name)
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(
                    f"schema migration {name!r} failed: {exc}",
                    where=where,
                    fix="restore the database from a backup or an export and report this bug",
                ) from exc
            raise
    return applied_now
