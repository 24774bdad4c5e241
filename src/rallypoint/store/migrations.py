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
from rallypoint.errors import Hint

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

_HEADS = """
-- Each campaign records its head (seq and hash of its newest event), so a log whose newest events
-- were cut is told apart from a shorter log. Triggers keep the head in step with the events: an
-- event must extend the head, and inserting it moves the head; nothing else may move it.
ALTER TABLE campaigns ADD COLUMN head_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE campaigns
    ADD COLUMN head_hash TEXT NOT NULL
    DEFAULT '0000000000000000000000000000000000000000000000000000000000000000';

UPDATE campaigns SET
    head_seq = COALESCE((SELECT MAX(seq) FROM events WHERE campaign_id = campaigns.id), 0),
    head_hash = COALESCE((SELECT hash FROM events WHERE campaign_id = campaigns.id
                          ORDER BY seq DESC LIMIT 1), head_hash);

-- A campaign id listed here may lose its rows: ``EventStore.delete_campaign`` inserts it, deletes
-- the campaign and removes it again, all in one transaction. Deleting is the only way events leave.
CREATE TABLE campaign_deletions (campaign_id TEXT PRIMARY KEY);

-- This machine's own record of when it last wrote to each campaign ("the campaign you meant"),
-- kept apart from the hashed events so an imported clock never decides it.
CREATE TABLE local_use (
    campaign_id TEXT PRIMARY KEY,
    use_order INTEGER NOT NULL,
    used_at TEXT NOT NULL
);

DROP TRIGGER events_no_delete;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
WHEN NOT EXISTS (SELECT 1 FROM campaign_deletions WHERE campaign_id = OLD.campaign_id)
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_extend_head BEFORE INSERT ON events
WHEN NOT EXISTS (SELECT 1 FROM campaigns WHERE id = NEW.campaign_id
                 AND head_seq + 1 = NEW.seq AND head_hash = NEW.prev_hash)
BEGIN
    SELECT RAISE(ABORT, 'an event must extend its campaign''s head');
END;

CREATE TRIGGER events_move_head AFTER INSERT ON events
BEGIN
    UPDATE campaigns SET head_seq = NEW.seq, head_hash = NEW.hash WHERE id = NEW.campaign_id;
    INSERT OR REPLACE INTO local_use (campaign_id, use_order, used_at)
    VALUES (NEW.campaign_id, (SELECT COALESCE(MAX(use_order), 0) + 1 FROM local_use),
            strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;

CREATE TRIGGER campaigns_head_follows_events BEFORE UPDATE OF head_seq, head_hash ON campaigns
WHEN NEW.head_seq <> OLD.head_seq + 1
  OR NOT EXISTS (SELECT 1 FROM events WHERE campaign_id = NEW.id
                 AND seq = NEW.head_seq AND hash = NEW.head_hash)
BEGIN
    SELECT RAISE(ABORT, 'a campaign''s head moves only by appending events');
END;

CREATE TRIGGER campaigns_fixed BEFORE UPDATE OF id, ruleset, created_at ON campaigns
BEGIN
    SELECT RAISE(ABORT, 'a campaign''s id, ruleset and creation time never change');
END;

CREATE TRIGGER campaigns_no_delete BEFORE DELETE ON campaigns
WHEN NOT EXISTS (SELECT 1 FROM campaign_deletions WHERE campaign_id = OLD.id)
BEGIN
    SELECT RAISE(ABORT, 'campaigns are removed only by rallypoint delete');
END;
"""

_SNAPSHOTS = """
-- A cache beside the log, never a source of truth: the folded state of a campaign at one version,
-- keyed by the hash of the event at that version (the chain hash) and by the code that folded it.
-- A row that does not match the log is ignored and replaced (rallypoint.session.snapshots).
CREATE TABLE state_snapshots (
    campaign_id TEXT PRIMARY KEY REFERENCES campaigns(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    chain_hash TEXT NOT NULL,
    code TEXT NOT NULL,
    state BLOB NOT NULL,
    digest TEXT NOT NULL -- SHA-256 of state: a torn or edited blob is never unpickled
);
"""

_SECRETS = """
-- Kept apart from the hashed events, so no export carries them (docs/dice.md, docs/two-player.md):
-- a server-mode campaign's dice secret, and this player's own seat keys and chain seeds.
CREATE TABLE dice_secrets (
    campaign_id TEXT PRIMARY KEY,
    secret TEXT NOT NULL,
    revealed_at TEXT
);

CREATE TABLE seat_keys (
    public TEXT PRIMARY KEY,
    seat TEXT NOT NULL,
    private TEXT NOT NULL,
    chain_seed TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""

_SEATS = """
-- Seats and accounts of shared campaigns (serve --shared, a hosted server; docs/web.md). An
-- invite token and a session token are kept only as their SHA-256, a password only as its
-- argon2id hash, so a copy of the database lets no one join, log in or pose as a player.
CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    login TEXT NOT NULL UNIQUE, -- the name as typed, case-folded
    display TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE seats (
    campaign_id TEXT NOT NULL,
    seat TEXT NOT NULL, -- a side id of the campaign's scenario, or '@referee'
    invite_hash TEXT NOT NULL UNIQUE,
    account_id TEXT REFERENCES accounts(id),
    joined_at TEXT,
    reveal_asked_at TEXT,
    PRIMARY KEY (campaign_id, seat)
);

CREATE TABLE web_sessions (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);

-- The key that signs session cookies, made once per database so that every server process on
-- it (and a restarted one) accepts the same cookies.
CREATE TABLE web_keys (
    name TEXT PRIMARY KEY,
    secret TEXT NOT NULL
);

-- Which seat made each event of a shared campaign (undo is its maker's, or the referee's), and
-- the other seats' consent to undoing an event that rolled dice.
CREATE TABLE seat_actions (
    campaign_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    seat TEXT NOT NULL,
    PRIMARY KEY (campaign_id, seq)
);

CREATE TABLE undo_consents (
    campaign_id TEXT NOT NULL,
    target_seq INTEGER NOT NULL,
    seat TEXT NOT NULL,
    given_at TEXT NOT NULL,
    PRIMARY KEY (campaign_id, target_seq, seat)
);
"""

_PBEM = """
-- Pair-mode dice requests (docs/dice.md): the acting seat's command and its link of the round,
-- kept until the other seat's link resolves it. Mine go out in my next turn file; the other
-- seat's came in one, signed. Not evidence: the log's proofs are; these are the mail.
CREATE TABLE dice_requests (
    campaign_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    seat TEXT NOT NULL,
    request TEXT NOT NULL,
    made_at TEXT NOT NULL,
    PRIMARY KEY (campaign_id, round)
);
"""

_SEALED = """
-- Sealed pair rounds (docs/dice.md): this seat's answer to the other seat's sealed dice request
-- (its own link of the round, and the commitment it answers), kept until the other seat's next
-- turn file resolves the round; it goes out in each of this seat's turn files until then.
CREATE TABLE dice_answers (
    campaign_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    seat TEXT NOT NULL,
    answer TEXT NOT NULL,
    made_at TEXT NOT NULL,
    PRIMARY KEY (campaign_id, round)
);
"""

_RATE_LIMITS = """
-- Login, signup and join attempts a shared server counts (rallypoint.store.limits): in the
-- database, so every worker process of a server counts the same attempts. ``at`` is Unix time.
CREATE TABLE rate_hits (
    bucket TEXT NOT NULL,
    key TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX rate_hits_by_key ON rate_hits (bucket, key, at);
"""

_SEAT_CREATORS = """
-- Who opened each shared campaign (docs/web.md, "who may do what"): its creator makes invites
-- and renames it, holding a seat of it or not. A campaign opened before this table has no row:
-- only its referee has those powers.
CREATE TABLE seat_campaigns (
    campaign_id TEXT PRIMARY KEY,
    creator_id TEXT NOT NULL REFERENCES accounts(id),
    opened_at TEXT NOT NULL
);
"""

_CHAIN_MARKS = """
-- How far each campaign's chain was last checked whole (rallypoint.store.marks): its seq and hash,
-- and the guard (the triggers' state) it was checked under. A write re-checks only the rows after
-- it while the guard is unchanged; any trigger dropped or disabled since forces a whole check.
CREATE TABLE chain_marks (
    campaign_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL,
    guard TEXT NOT NULL
);
"""

_SEEN_MARKS = """
-- What each account last saw of each shared campaign (issue 22, "what changed since you last
-- looked"): the seq of the latest event the campaign page showed it. Not evidence: a reading
-- aid; deleting a campaign deletes its rows.
CREATE TABLE seen_marks (
    campaign_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (campaign_id, account_id)
);
"""

_SEAT_MAIL = """
-- Who asked to be e-mailed when it is their move in a shared campaign (issue 22; per account
-- and campaign, so per seat): the address, and the version of the last mail sent, so a player
-- gets one mail until they look again (seen_marks).
CREATE TABLE seat_mail (
    campaign_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    address TEXT NOT NULL,
    mailed_seq INTEGER,
    PRIMARY KEY (campaign_id, account_id)
);
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", _INITIAL),
    ("0002_campaign_heads", _HEADS),
    ("0003_state_snapshots", _SNAPSHOTS),
    ("0004_secrets", _SECRETS),
    ("0005_seats", _SEATS),
    ("0006_pbem", _PBEM),
    ("0007_sealed_dice", _SEALED),
    ("0008_rate_limits", _RATE_LIMITS),
    ("0009_seat_creators", _SEAT_CREATORS),
    ("0010_chain_marks", _CHAIN_MARKS),
    ("0011_seen_marks", _SEEN_MARKS),
    ("0012_seat_mail", _SEAT_MAIL),
]
"""Every migration as ``(name, sql)``, in the order they are applied."""

# Queries whose column lists depend on the schema live here, next to it, so a migration that
# changes a table is reviewed together with the statements that read and write it.
CAMPAIGN_INSERT = "INSERT INTO campaigns (id, name, ruleset, created_at) VALUES (?, ?, ?, ?)"

EVENT_INSERT = """
INSERT INTO events (campaign_id, seq, type, payload, recorded_at, prev_hash, hash)
VALUES (?, ?, ?, ?, ?, ?, ?)
"""

# Every campaign with its version (max seq), the time of that last event, and its recorded head.
CAMPAIGN_SELECT = """
SELECT c.id, c.name, c.ruleset, c.created_at,
       COALESCE(e.seq, 0), COALESCE(e.recorded_at, c.created_at), c.head_seq, c.head_hash
FROM campaigns AS c
LEFT JOIN events AS e
  ON e.campaign_id = c.id
 AND e.seq = (SELECT MAX(seq) FROM events WHERE campaign_id = c.id)
"""

# The campaign this machine wrote to last (never chosen by an event's own, possibly imported,
# clock); campaigns never written here rank by creation order after every used one.
LATEST_SELECT = CAMPAIGN_SELECT + """
LEFT JOIN local_use AS u ON u.campaign_id = c.id
WHERE ? IS NULL OR c.ruleset = ?
ORDER BY u.use_order IS NULL, u.use_order DESC, c.rowid DESC
LIMIT 1
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
    """Names of the migrations recorded in ``conn``'s database, in the order they apply.

    Only reads: a database without the bookkeeping table has applied none.
    """
    if "schema_migrations" not in _tables(conn):
        return []
    rows = conn.execute("SELECT name FROM schema_migrations ORDER BY name").fetchall()
    return [str(row[0]) for row in rows]


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(row[0]) for row in rows}


def pending_migrations(conn: sqlite3.Connection, where: str) -> list[str]:
    """Names of the migrations this database still needs, without changing it.

    An empty database needs them all; a rallypoint store needs those it has not recorded.

    Raises:
        StoreError: The file is an SQLite database of something else (it is left unchanged), or
            it records migrations this version does not know (a newer rallypoint wrote it).
    """
    tables = _tables(conn)
    if tables and "schema_migrations" not in tables:
        shown = ", ".join(sorted(tables)[:5]) + (" …" if len(tables) > 5 else "")
        raise StoreError(
            f"not a rallypoint database: it is an SQLite file with other tables ({shown})",
            where=where, fix="pass the path of a rallypoint database with --db (nothing was "
            "changed in this file)", instead=Hint.SERVER)
    known = [name for name, _ in MIGRATIONS]
    applied = applied_migrations(conn)
    unknown = sorted(set(applied) - set(known))
    if unknown:
        raise StoreError(
            f"the database has schema migrations this rallypoint does not know: {unknown}",
            where=where,
            fix="upgrade rallypoint to the version that wrote this database",
        )
    return [name for name in known if name not in applied]


def apply_migrations(conn: sqlite3.Connection, where: str) -> list[str]:
    """Apply every migration not yet recorded, each in its own ``BEGIN IMMEDIATE`` transaction.

    A database that is already current is only read: no write lock is taken, so opening it never
    waits on another process's write.

    Args:
        conn: A connection opened with ``isolation_level=None`` (explicit transactions).
        where: The database path, for error messages.

    Returns:
        The names applied by this call (empty when the schema was already current).

    Raises:
        StoreError: The database is not a rallypoint store, records migrations this version does
            not know (it was written by a newer rallypoint), or a migration failed.
    """
    if not pending_migrations(conn, where):
        return []
    applied_now: list[str] = []
    for position, (name, sql) in enumerate(MIGRATIONS, start=1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(_BOOKKEEPING)
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
