"""The SQLite event store: durability settings, migrations, append-only log, verification."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from rallypoint.core.errors import (
    IntegrityError,
    MalformedInputError,
    StaleVersionError,
    StoreError,
    UnknownIdError,
)
from rallypoint.core.events import CREATED, GENESIS_HASH, NewEvent
from rallypoint.store import MIGRATIONS, EventStore, default_db_path
from rallypoint.store.migrations import split_statements

CID = "c0ffee00-1111-2222-3333-444455556666"


def created(name: str = "Alpha") -> NewEvent:
    return NewEvent(type=CREATED, payload={"name": name, "ruleset": "test", "seed": 7})


class Numbered(BaseModel):
    """The payload of :func:`ev`'s test events."""

    n: int
    text: str


def ev(i: int) -> NewEvent:
    return NewEvent(type="test", payload={"n": i, "text": f"event number {i}"})


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[EventStore]:
    with EventStore(db_path) as opened:
        yield opened


@pytest.fixture
def campaign(store: EventStore) -> str:
    """A campaign with events 1 (created) .. 4."""
    store.create_campaign(CID, "Alpha", "test", created())
    store.append_many(CID, 2, [ev(2), ev(3), ev(4)])
    return CID


def raw(db_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(db_path, isolation_level=None)


# -- opening -------------------------------------------------------------------------------------


def test_pragmas(store: EventStore) -> None:
    pragmas = store.pragmas()
    assert pragmas["journal_mode"] == "wal"
    assert pragmas["synchronous"] == 2  # FULL
    assert pragmas["foreign_keys"] == 1
    assert pragmas["busy_timeout"] == 5000


def test_migrations_recorded_by_name_and_idempotent(db_path: Path) -> None:
    names = [name for name, _ in MIGRATIONS]
    with EventStore(db_path) as first:
        assert first.applied_migrations() == names
        assert first.schema_version == len(names)
    conn = raw(db_path)
    before = conn.execute("SELECT name, applied_at FROM schema_migrations").fetchall()
    conn.close()
    with EventStore(db_path) as again:
        assert again.applied_migrations() == names
        assert again.schema_version == len(names)
    conn = raw(db_path)
    after = conn.execute("SELECT name, applied_at FROM schema_migrations").fetchall()
    conn.close()
    assert after == before
    assert [name for name, _ in after] == names


def test_newer_database_refused(db_path: Path) -> None:
    EventStore(db_path).close()
    conn = raw(db_path)
    conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 'x')")
    conn.close()
    with pytest.raises(StoreError, match="9999_from_the_future") as info:
        EventStore(db_path)
    assert info.value.fix is not None and "upgrade" in info.value.fix


def test_split_statements_keeps_trigger_bodies_whole() -> None:
    sql = "CREATE TABLE t (x); -- a; comment\nCREATE TRIGGER g BEFORE DELETE ON t BEGIN " \
          "SELECT RAISE(ABORT, 'no; really'); SELECT 1; END;\n"
    statements = split_statements(sql)
    assert len(statements) == 2
    assert statements[1].endswith("END;")


def test_parent_directory_created_on_open(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "db.sqlite3"
    with EventStore(path) as opened:
        assert opened.campaigns() == []
    assert path.exists()


def test_default_db_path_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RALLYPOINT_DB", str(tmp_path / "x" / "mine.sqlite3"))
    assert default_db_path() == tmp_path / "x" / "mine.sqlite3"
    assert not (tmp_path / "x").exists()  # nothing is created until the store is opened


def test_default_db_path_without_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RALLYPOINT_DB", raising=False)
    path = default_db_path()
    assert path.name == "rallypoint.sqlite3"
    assert "rallypoint" in path.parent.parts[-1].lower()


# -- writing and reading -------------------------------------------------------------------------


def test_create_append_events_round_trip(store: EventStore) -> None:
    first = store.create_campaign(CID, "Alpha", "test", created())
    assert first.seq == 1 and first.prev_hash == GENESIS_HASH
    appended = [store.append(CID, seq, ev(seq)) for seq in range(2, 6)]
    stored = store.events(CID)
    assert stored == [first, *appended]
    assert [record.seq for record in stored] == [1, 2, 3, 4, 5]
    for before, after in itertools.pairwise(stored):
        assert after.prev_hash == before.hash
    assert stored[3].payload == {"n": 4, "text": "event number 4"}


def test_returned_record_equals_stored_for_non_canonical_payload(store: EventStore) -> None:
    store.create_campaign(CID, "Alpha", "test", created())
    record = store.append(CID, 2, NewEvent(type="test", payload={"pair": (1, 2), "ü": "ß"}))
    assert record.payload == {"pair": [1, 2], "ü": "ß"}
    assert store.events(CID)[-1] == record
    assert store.verify(CID).ok


def test_campaign_info(store: EventStore, campaign: str) -> None:
    info = store.campaign(campaign)
    assert (info.id, info.name, info.ruleset, info.version) == (CID, "Alpha", "test", 4)
    events = store.events(campaign)
    assert info.created_at == events[0].recorded_at
    assert info.last_recorded_at == events[-1].recorded_at
    assert store.campaigns() == [info]


def test_duplicate_name_or_id_refused(store: EventStore, campaign: str) -> None:
    with pytest.raises(StoreError, match="named 'Alpha' already exists") as info:
        store.create_campaign("other-id", "Alpha", "test", created())
    assert info.value.fix == "choose another name"
    with pytest.raises(StoreError, match="already exists"):
        store.create_campaign(CID, "Beta", "test", created())
    assert [c.name for c in store.campaigns()] == ["Alpha"]


def test_stale_expected_seq_refused_and_nothing_written(store: EventStore, campaign: str) -> None:
    before = store.events(campaign)
    for expected in (4, 2, 6):
        with pytest.raises(StaleVersionError) as info:
            store.append(campaign, expected, ev(99))
        assert f"is at version 4, the command was made against version {expected - 1}" \
            in str(info.value)
        assert info.value.fix == "reload and try again"
    assert store.events(campaign) == before


def test_stale_between_two_connections(db_path: Path, store: EventStore, campaign: str) -> None:
    with EventStore(db_path) as other:
        version = other.campaign(campaign).version
        store.append(campaign, version + 1, ev(5))
        with pytest.raises(StaleVersionError):
            other.append(campaign, version + 1, ev(50))
        assert [Numbered.model_validate(r.payload).n
                for r in other.events(campaign)[1:]] == [2, 3, 4, 5]


def test_unknown_campaign(store: EventStore) -> None:
    with pytest.raises(UnknownIdError, match="no campaign with id 'nope'"):
        store.append("nope", 2, ev(2))
    with pytest.raises(UnknownIdError):
        store.events("nope")
    with pytest.raises(UnknownIdError):
        store.verify("nope")
    with pytest.raises(UnknownIdError):
        store.campaign("nope")


def test_append_many_is_atomic(store: EventStore, campaign: str) -> None:
    before = store.events(campaign)
    bad = NewEvent(type="test", payload={"n": 6, "tags": {"a", "b"}})  # a set is not JSON
    with pytest.raises(MalformedInputError, match="cannot be stored as JSON"):
        store.append_many(campaign, 5, [ev(5), bad, ev(7)])
    with pytest.raises(MalformedInputError):
        store.append_many(campaign, 5, [ev(5), NewEvent(type="t", payload={"x": float("nan")})])
    assert store.events(campaign) == before
    records = store.append_many(campaign, 5, [ev(5), ev(6), ev(7)])
    assert [r.seq for r in records] == [5, 6, 7]
    assert store.events(campaign)[4:] == records
    assert store.verify(campaign).ok


# -- append-only ---------------------------------------------------------------------------------


def test_update_and_delete_refused_by_trigger(db_path: Path, campaign: str) -> None:
    conn = raw(db_path)
    with pytest.raises(sqlite3.IntegrityError, match="events are append-only"):
        conn.execute("UPDATE events SET payload = '{}' WHERE seq = 2")
    with pytest.raises(sqlite3.IntegrityError, match="events are append-only"):
        conn.execute("DELETE FROM events WHERE seq = 2")
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 4
    conn.close()


# -- verification --------------------------------------------------------------------------------


def tamper(db_path: Path, *statements: str, params: tuple[Any, ...] = ()) -> None:
    """Edit the log behind the store's back, as someone with the file and sqlite3 could."""
    conn = raw(db_path)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")
    for statement in statements:
        conn.execute(statement, params)
    conn.close()


def test_verify_ok(store: EventStore, campaign: str) -> None:
    report = store.verify(campaign)
    assert report.ok and report.problem is None
    assert (report.campaign_id, report.events) == (CID, 4)


def test_verify_catches_edited_payload(db_path: Path, store: EventStore, campaign: str) -> None:
    tamper(db_path, "UPDATE events SET payload = ? WHERE seq = 3",
           params=('{"n":3,"text":"event number 333"}',))
    report = store.verify(campaign)
    assert not report.ok and report.problem is not None
    assert report.problem.seq == 3
    assert "content does not match" in report.problem.reason


def test_verify_catches_deleted_middle_event(
    db_path: Path, store: EventStore, campaign: str,
) -> None:
    tamper(db_path, "DELETE FROM events WHERE seq = 2")
    report = store.verify(campaign)
    assert report.events == 3
    assert report.problem is not None and report.problem.seq == 3
    assert "sequence gap" in report.problem.reason


def test_verify_catches_unreadable_payload(
    db_path: Path, store: EventStore, campaign: str,
) -> None:
    tamper(db_path, "UPDATE events SET payload = '[1, 2' WHERE seq = 4")
    report = store.verify(campaign)
    assert report.problem is not None and report.problem.seq == 4
    assert "not a JSON object" in report.problem.reason
    with pytest.raises(IntegrityError, match="event 4"):
        store.events(campaign)


# -- lookup --------------------------------------------------------------------------------------


def test_find_by_id_name_and_prefix(store: EventStore, campaign: str) -> None:
    store.create_campaign("c0ffee99-aaaa", "Beta", "test", created("Beta"))
    store.create_campaign("deadbeef-0000", "c0ffee00", "test", created("Gamma"))
    assert store.find(CID).name == "Alpha"
    assert store.find("Beta").id == "c0ffee99-aaaa"
    assert store.find("dead").name == "c0ffee00"
    assert store.find("c0ffee00").id == "deadbeef-0000"  # an exact name beats an id prefix
    assert store.find("c0ffee0").id == CID
    with pytest.raises(UnknownIdError, match="matches 2 campaigns"):
        store.find("c0ff")
    with pytest.raises(UnknownIdError):
        store.find("dea")  # too short to be a prefix
    with pytest.raises(UnknownIdError, match="'Zeta'") as info:
        store.find("Zeta")
    assert info.value.fix is not None
    assert "'Alpha'" in info.value.fix and "'Beta'" in info.value.fix


def test_find_unknown_lists_at_most_five(store: EventStore) -> None:
    with pytest.raises(UnknownIdError) as info:
        store.find("anything")
    assert info.value.fix is not None and "no campaigns" in info.value.fix
    for i in range(7):
        store.create_campaign(f"id-{i}", f"Camp {i}", "test", created())
    with pytest.raises(UnknownIdError) as info:
        store.find("anything")
    assert info.value.fix is not None
    assert "'Camp 4'" in info.value.fix and "'Camp 5'" not in info.value.fix
    assert "2 more" in info.value.fix


def test_latest_is_most_recently_active(store: EventStore) -> None:
    assert store.latest() is None
    store.create_campaign("a-id", "A", "test", created("A"))
    store.create_campaign("b-id", "B", "test", created("B"))
    latest = store.latest()
    assert latest is not None and latest.name == "B"
    store.append("a-id", 2, ev(2))
    latest = store.latest()
    assert latest is not None and latest.name == "A" and latest.version == 2
    assert [c.name for c in store.campaigns()] == ["A", "B"]  # still ordered by creation
