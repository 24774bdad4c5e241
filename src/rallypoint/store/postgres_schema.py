"""The PostgreSQL schema of the event store: the same tables and guarantees as the SQLite one.

Triggers (PL/pgSQL) enforce what the SQLite triggers do: events are append-only (no UPDATE, no
DELETE, no TRUNCATE), an event must extend its campaign's recorded head, inserting it moves the
head, nothing else may move the head, and a campaign's rows leave only through ``delete``. An
append is checked once per statement (migration 0014), so an import's batch of rows moves the
head once: per row, one transaction's thousands of versions of the campaign's row made an
import quadratic. The
payload column is ``TEXT`` holding the exact canonical JSON the hash covers (``jsonb`` would
re-spell it and break the hash).

Migrations are named and ordered like SQLite's; each runs once, inside one transaction holding an
advisory lock, so two servers starting at once cannot both apply it.
"""

from __future__ import annotations

from typing import Final

ADVISORY_LOCK: Final = 0x7261_6C6C_7970  # "rallyp": serialises migrations across connections

_INITIAL: Final = """
CREATE TABLE campaigns (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    ruleset TEXT NOT NULL,
    created_at TEXT NOT NULL,
    head_seq INTEGER NOT NULL DEFAULT 0,
    head_hash TEXT NOT NULL
        DEFAULT '0000000000000000000000000000000000000000000000000000000000000000',
    created_order BIGSERIAL NOT NULL
);

CREATE TABLE events (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (campaign_id, seq)
);

CREATE TABLE campaign_deletions (campaign_id TEXT PRIMARY KEY);

CREATE TABLE local_use (
    campaign_id TEXT PRIMARY KEY,
    use_order BIGINT NOT NULL,
    used_at TEXT NOT NULL
);

CREATE FUNCTION rp_events_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' OR TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'events are append-only';
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM campaign_deletions WHERE campaign_id = OLD.campaign_id) THEN
            RAISE EXCEPTION 'events are append-only';
        END IF;
        RETURN OLD;
    END IF;
    -- INSERT: the event must extend the head.
    IF NOT EXISTS (SELECT 1 FROM campaigns WHERE id = NEW.campaign_id
                   AND head_seq + 1 = NEW.seq AND head_hash = NEW.prev_hash) THEN
        RAISE EXCEPTION 'an event must extend its campaign''s head';
    END IF;
    RETURN NEW;
END $$;

CREATE FUNCTION rp_events_move_head() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE campaigns SET head_seq = NEW.seq, head_hash = NEW.hash WHERE id = NEW.campaign_id;
    INSERT INTO local_use (campaign_id, use_order, used_at)
    VALUES (NEW.campaign_id, (SELECT COALESCE(MAX(use_order), 0) + 1 FROM local_use),
            to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
    ON CONFLICT (campaign_id) DO UPDATE SET use_order = EXCLUDED.use_order,
                                            used_at = EXCLUDED.used_at;
    RETURN NULL;
END $$;

CREATE FUNCTION rp_campaigns_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'campaigns are removed only by rallypoint delete';
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM campaign_deletions WHERE campaign_id = OLD.id) THEN
            RAISE EXCEPTION 'campaigns are removed only by rallypoint delete';
        END IF;
        RETURN OLD;
    END IF;
    IF NEW.id <> OLD.id OR NEW.ruleset <> OLD.ruleset OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'a campaign''s id, ruleset and creation time never change';
    END IF;
    IF (NEW.head_seq, NEW.head_hash) IS DISTINCT FROM (OLD.head_seq, OLD.head_hash) AND (
        NEW.head_seq <> OLD.head_seq + 1 OR NOT EXISTS (
            SELECT 1 FROM events WHERE campaign_id = NEW.id
            AND seq = NEW.head_seq AND hash = NEW.head_hash)) THEN
        RAISE EXCEPTION 'a campaign''s head moves only by appending events';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER events_guard BEFORE INSERT OR UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION rp_events_guard();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION rp_events_guard();
CREATE TRIGGER events_move_head AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION rp_events_move_head();
CREATE TRIGGER campaigns_guard BEFORE UPDATE OR DELETE ON campaigns
    FOR EACH ROW EXECUTE FUNCTION rp_campaigns_guard();
CREATE TRIGGER campaigns_no_truncate BEFORE TRUNCATE ON campaigns
    FOR EACH STATEMENT EXECUTE FUNCTION rp_campaigns_guard();
"""

_SECRETS: Final = """
-- Kept apart from the hashed events, so no export carries them (see docs/dice.md).
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

_SEATS: Final = """
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

_PBEM: Final = """
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

_SEALED: Final = """
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

_SNAPSHOTS: Final = """
-- A cache beside the log, never a source of truth (rallypoint.session.snapshots checks each row
-- against the log before using it): the folded state of a campaign at one version.
CREATE TABLE state_snapshots (
    campaign_id TEXT PRIMARY KEY REFERENCES campaigns(id),
    version INTEGER NOT NULL,
    chain_hash TEXT NOT NULL,
    code TEXT NOT NULL,
    state BYTEA NOT NULL,
    digest TEXT NOT NULL
);
"""

_RATE_LIMITS: Final = """
-- Login, signup and join attempts a shared server counts (rallypoint.store.limits): in the
-- database, so every worker process of a server counts the same attempts. ``at`` is Unix time.
CREATE TABLE rate_hits (
    bucket TEXT NOT NULL,
    key TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX rate_hits_by_key ON rate_hits (bucket, key, at);
"""

_SEAT_CREATORS: Final = """
-- Who opened each shared campaign (docs/web.md, "who may do what"): its creator makes invites
-- and renames it, holding a seat of it or not. A campaign opened before this table has no row:
-- only its referee has those powers.
CREATE TABLE seat_campaigns (
    campaign_id TEXT PRIMARY KEY,
    creator_id TEXT NOT NULL REFERENCES accounts(id),
    opened_at TEXT NOT NULL
);
"""

_CHAIN_MARKS: Final = """
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

_PAGE_MARK = """
-- This database's own change mark (rallypoint.store.pg_pool.change_mark): a server caches a
-- rendered page until it moves. The server-wide WAL position it replaces moved with every other
-- database's writes on a shared server (and autovacuum), so most page requests missed the cache.
-- Triggers bump it inside the very transaction that writes what a page shows, so a reader never
-- sees the new mark without the new rows. Left out: rate_hits (attempt counts no page shows),
-- and chain_marks and state_snapshots (derived from the log; a read may write a snapshot).
CREATE TABLE page_mark (
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
    n BIGINT NOT NULL
);
INSERT INTO page_mark (one, n) VALUES (TRUE, 0);

-- Once per transaction (an import inserts thousands of events): the row already bumped by this
-- transaction carries its id as xmin. Row triggers, not statement ones, so a statement that
-- changes nothing (an upsert whose WHERE holds back, a DELETE of no row) leaves the mark alone.
-- Deferred to the commit: every writer takes the mark's row lock last and holds it only while
-- committing, so writers to different campaigns wait on it for moments and can never deadlock
-- on it (a lock taken early, then a campaign row's, could meet another order).
CREATE FUNCTION page_mark_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE page_mark SET n = n + 1 WHERE xmin <> pg_current_xact_id()::xid;
    RETURN NULL;
END
$$;

DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['campaigns', 'events', 'campaign_deletions', 'local_use',
                             'dice_secrets', 'seat_keys', 'accounts', 'seats', 'web_sessions',
                             'web_keys', 'seat_actions', 'undo_consents', 'dice_requests',
                             'dice_answers', 'seat_campaigns', 'seen_marks', 'seat_mail'] LOOP
        EXECUTE format('CREATE CONSTRAINT TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I '
                       'DEFERRABLE INITIALLY DEFERRED '
                       'FOR EACH ROW EXECUTE FUNCTION page_mark_bump()', t || '_page_mark', t);
        EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I '
                       'FOR EACH STATEMENT EXECUTE FUNCTION page_mark_bump()',
                       t || '_page_mark_truncate', t);
    END LOOP;
END
$$;
"""

_APPEND_BY_STATEMENT = """
-- Issue 20: an import inserts thousands of events in one transaction. Row triggers moved the
-- campaign's head once per event, and every UPDATE of one row in one transaction leaves a new
-- version of it that the next lookup walks past: the import was quadratic (16,000 events 26 s,
-- 8,000 5 s). One statement now appends a batch, checked and moving the head once: the same
-- rules, per statement (a statement of one row, an append at the table, is checked as before).
DROP TRIGGER events_guard ON events;
CREATE TRIGGER events_guard BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION rp_events_guard();
DROP TRIGGER events_move_head ON events;
DROP FUNCTION rp_events_move_head();

-- The rows a statement appended must extend their campaign's head: the first at head + 1 from
-- the head's hash, each next one at the seq after and from the hash before. Then the head
-- moves to the newest, once per campaign, and the campaign is the one used last here.
CREATE FUNCTION rp_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1
        FROM (SELECT a.campaign_id, a.seq, a.prev_hash,
                     lag(a.seq) OVER w AS seq_before, lag(a.hash) OVER w AS hash_before
              FROM appended AS a WINDOW w AS (PARTITION BY a.campaign_id ORDER BY a.seq)) AS r
        JOIN campaigns AS c ON c.id = r.campaign_id
        WHERE CASE WHEN r.seq_before IS NULL
                   THEN r.seq <> c.head_seq + 1 OR r.prev_hash <> c.head_hash
                   ELSE r.seq <> r.seq_before + 1 OR r.prev_hash <> r.hash_before END)
    THEN
        RAISE EXCEPTION 'an event must extend its campaign''s head';
    END IF;
    UPDATE campaigns AS c SET head_seq = n.seq, head_hash = n.hash
    FROM (SELECT DISTINCT ON (campaign_id) campaign_id, seq, hash
          FROM appended ORDER BY campaign_id, seq DESC) AS n
    WHERE c.id = n.campaign_id;
    INSERT INTO local_use (campaign_id, use_order, used_at)
    SELECT campaign_id, (SELECT COALESCE(MAX(use_order), 0) FROM local_use)
                        + row_number() OVER (ORDER BY campaign_id),
           to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
    FROM (SELECT DISTINCT campaign_id FROM appended) AS touched
    ON CONFLICT (campaign_id) DO UPDATE SET use_order = EXCLUDED.use_order,
                                            used_at = EXCLUDED.used_at;
    RETURN NULL;
END $$;

CREATE TRIGGER events_appended AFTER INSERT ON events
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION rp_events_appended();

-- The head moves forward only, to an event stored with that hash (it was +1 a row; a statement
-- appends several). No stored event lies past the head to skip to: every append statement moves
-- the head to its newest row.
CREATE OR REPLACE FUNCTION rp_campaigns_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION 'campaigns are removed only by rallypoint delete';
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM campaign_deletions WHERE campaign_id = OLD.id) THEN
            RAISE EXCEPTION 'campaigns are removed only by rallypoint delete';
        END IF;
        RETURN OLD;
    END IF;
    IF NEW.id <> OLD.id OR NEW.ruleset <> OLD.ruleset OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'a campaign''s id, ruleset and creation time never change';
    END IF;
    IF (NEW.head_seq, NEW.head_hash) IS DISTINCT FROM (OLD.head_seq, OLD.head_hash) AND (
        NEW.head_seq <= OLD.head_seq OR NOT EXISTS (
            SELECT 1 FROM events WHERE campaign_id = NEW.id
            AND seq = NEW.head_seq AND hash = NEW.head_hash)) THEN
        RAISE EXCEPTION 'a campaign''s head moves only by appending events';
    END IF;
    RETURN NEW;
END $$;
"""

MIGRATIONS: Final[list[tuple[str, str]]] = [
    ("0001_initial", _INITIAL),
    ("0002_secrets", _SECRETS),
    ("0005_seats", _SEATS),
    ("0005_state_snapshots", _SNAPSHOTS),
    ("0006_pbem", _PBEM),
    ("0007_sealed_dice", _SEALED),
    ("0008_rate_limits", _RATE_LIMITS),
    ("0009_seat_creators", _SEAT_CREATORS),
    ("0010_chain_marks", _CHAIN_MARKS),
    ("0011_seen_marks", _SEEN_MARKS),
    ("0012_seat_mail", _SEAT_MAIL),
    ("0013_page_mark", _PAGE_MARK),
    ("0014_append_by_statement", _APPEND_BY_STATEMENT),
]
"""Every migration as ``(name, sql)``, in the order they are applied; never edit a shipped one."""

BOOKKEEPING: Final = """
CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)
"""

CAMPAIGN_SELECT: Final = """
SELECT c.id, c.name, c.ruleset, c.created_at,
       COALESCE(e.seq, 0), COALESCE(e.recorded_at, c.created_at), c.head_seq, c.head_hash
FROM campaigns AS c
LEFT JOIN events AS e
  ON e.campaign_id = c.id
 AND e.seq = (SELECT MAX(seq) FROM events WHERE campaign_id = c.id)
"""

LATEST_SELECT: Final = CAMPAIGN_SELECT + """
LEFT JOIN local_use AS u ON u.campaign_id = c.id
WHERE %s::text IS NULL OR c.ruleset = %s
ORDER BY u.use_order IS NULL, u.use_order DESC, c.created_order DESC
LIMIT 1
"""

LOG_SELECT: Final = """
SELECT e.campaign_id, e.seq, e.type, e.payload, e.recorded_at, e.prev_hash, e.hash
FROM campaigns AS c
LEFT JOIN events AS e ON e.campaign_id = c.id
WHERE c.id = %s
ORDER BY e.seq
"""

CHAIN_SELECT: Final = """
SELECT seq, type, payload, recorded_at, prev_hash, hash FROM events
WHERE campaign_id = %s ORDER BY seq
"""

CAMPAIGN_INSERT: Final = (
    "INSERT INTO campaigns (id, name, ruleset, created_at) VALUES (%s, %s, %s, %s)")

EVENT_INSERT: Final = """
INSERT INTO events (campaign_id, seq, type, payload, recorded_at, prev_hash, hash)
VALUES (%s, %s, %s, %s, %s, %s, %s)
"""

EVENTS_INSERT_MANY: Final = """
INSERT INTO events (campaign_id, seq, type, payload, recorded_at, prev_hash, hash)
SELECT * FROM unnest(%s::text[], %s::integer[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::text[])
"""
"""A batch of rows in one statement: one column array each (checked and moving the head once:
migration 0014)."""

TABLES_KEYED_BY_CAMPAIGN: Final = ("local_use", "dice_secrets", "seats", "seat_actions",
                                     "chain_marks",
                                     "undo_consents", "dice_requests", "dice_answers",
                                     "state_snapshots", "seat_campaigns", "seen_marks", "seat_mail",
                                     "events")
"""Every table with a ``campaign_id`` column but the deletion bookkeeping, events last."""

TRIGGER_GUARD: Final = """
SELECT string_agg(tgname::text || ':' || tgenabled::text || ':' || xmin::text, ','
                  ORDER BY tgname)
FROM pg_trigger WHERE tgrelid IN ('events'::regclass, 'campaigns'::regclass) AND NOT tgisinternal
"""
"""The state of the log's triggers, as a chain mark's guard (rallypoint.store.marks)."""
