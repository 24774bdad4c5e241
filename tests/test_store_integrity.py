"""Store integrity: recorded heads, writes refused on a broken log, delete and rename, local use,
and opens that never write on a read."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rallypoint.core.errors import (
    IntegrityError,
    MalformedInputError,
    StoreError,
    UnknownIdError,
)
from rallypoint.core.events import CREATED, NewEvent
from rallypoint.store import MIGRATIONS, EventStore, clean_name
from rallypoint.store.migrations import split_statements

CID = "beef0000-1111-2222-3333-444455556666"


def created(name: str = "Alpha") -> NewEvent:
    return NewEvent(type=CREATED, payload={"name": name, "ruleset": "test", "seed": 7})


def ev(i: int) -> NewEvent:
    return NewEvent(type="test", payload={"n": i})


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[EventStore]:
    with EventStore(db_path) as opened:
        opened.create_campaign(CID, "Alpha", "test", created())
        opened.append_many(CID, 2, [ev(2), ev(3), ev(4)])
        yield opened


def raw(db_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(db_path, isolation_level=None)


def drop_triggers(conn: sqlite3.Connection) -> None:
    """What someone with sqlite3 and the file can do before editing rows."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- heads ---------------------------------------------------------------------------------------


def test_head_follows_every_append(store: EventStore) -> None:
    info = store.campaign(CID)
    assert (info.head_seq, info.head_hash) == (4, store.events(CID)[-1].hash)
    assert not info.cut
    store.append(CID, 5, ev(5))
    assert store.campaign(CID).head_seq == 5


def test_cut_tail_is_reported_and_blocks_writes(db_path: Path, store: EventStore) -> None:
    conn = raw(db_path)
    drop_triggers(conn)
    conn.execute("DELETE FROM events WHERE seq = 4")
    conn.close()
    report = store.verify(CID)
    assert not report.ok and (report.events, report.head_seq) == (3, 4)
    assert report.problem is not None and report.problem.seq == 4
    assert "the newest 1 event was cut" in report.problem.reason
    assert store.campaign(CID).cut
    with pytest.raises(IntegrityError, match="broken at seq 4") as info:
        store.append(CID, 4, ev(44))  # the next write would have reused seq 4
    assert info.value.fix is not None and "rallypoint delete" in info.value.fix
    assert len(store.events(CID)) == 3


def test_edit_in_the_middle_blocks_writes(db_path: Path, store: EventStore) -> None:
    conn = raw(db_path)
    drop_triggers(conn)
    conn.execute("UPDATE events SET payload = '{\"n\":33}' WHERE seq = 3")
    conn.close()
    log = store.log(CID)
    assert log.problem is not None and log.problem.seq == 3
    assert len(log.records) == 4  # reads still show the log, with the problem beside it
    with pytest.raises(IntegrityError, match="content does not match"):
        store.append(CID, 5, ev(5))
    assert store.campaign(CID).version == 4


@pytest.mark.parametrize("statement", [
    "UPDATE campaigns SET head_seq = 2",
    "UPDATE campaigns SET head_hash = 'x'",
    "UPDATE campaigns SET ruleset = 'other'",
    "DELETE FROM campaigns",
    "DELETE FROM events WHERE seq = 4",
    "INSERT INTO events VALUES ('" + CID + "', 9, 't', '{}', 'x', 'y', 'z')",
])
def test_triggers_guard_heads_and_rows(db_path: Path, store: EventStore, statement: str) -> None:
    conn = raw(db_path)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(statement)
    conn.close()
    assert store.verify(CID).ok


def test_old_database_gets_heads_on_upgrade(tmp_path: Path) -> None:
    fresh_path, path = tmp_path / "fresh.sqlite3", tmp_path / "v1.sqlite3"
    with EventStore(fresh_path) as fresh:
        fresh.create_campaign(CID, "Alpha", "test", created())
        fresh.append_many(CID, 2, [ev(2), ev(3)])
    source = raw(fresh_path)
    rows = source.execute("SELECT * FROM events ORDER BY seq").fetchall()
    campaign = source.execute("SELECT id, name, ruleset, created_at FROM campaigns").fetchone()
    source.close()
    conn = raw(path)  # a database as the first schema left it
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    for statement in split_statements(MIGRATIONS[0][1]):
        conn.execute(statement)
    conn.execute("INSERT INTO schema_migrations VALUES ('0001_initial', 'then')")
    conn.execute("INSERT INTO campaigns VALUES (?, ?, ?, ?)", campaign)
    conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()
    with EventStore(path, readonly=True) as old:  # a read upgrades an older store once
        assert old.applied_migrations() == [name for name, _ in MIGRATIONS]
        info = old.campaign(CID)
        assert (info.version, info.head_seq, info.head_hash) == (3, 3, rows[-1][-1])
        assert old.verify(CID).ok
    with EventStore(path) as old:
        old.append(CID, 4, ev(4))
        assert old.verify(CID).ok


# -- delete and rename ---------------------------------------------------------------------------


def test_delete_removes_every_row(db_path: Path, store: EventStore) -> None:
    store.create_campaign("other", "Beta", "test", created("Beta"))
    assert store.delete_campaign(CID) == 4
    assert [c.name for c in store.campaigns()] == ["Beta"]
    conn = raw(db_path)
    for table in ("events", "local_use", "campaign_deletions"):
        rows = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE campaign_id = ?",
                            (CID,)).fetchone()[0]
        assert rows == 0, table
    conn.close()
    with pytest.raises(UnknownIdError):
        store.delete_campaign(CID)
    assert store.verify("other").ok


def test_delete_works_on_a_broken_campaign(db_path: Path, store: EventStore) -> None:
    conn = raw(db_path)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET payload = '[1' WHERE seq = 2")
    conn.close()
    assert store.delete_campaign(CID) == 4
    assert store.campaigns() == []


def test_rename(store: EventStore) -> None:
    store.create_campaign("other", "Beta", "test", created("Beta"))
    assert store.rename_campaign(CID, "  Gamma\x1b[31m  ").name == "Gamma[31m"
    with pytest.raises(StoreError, match="'Beta' already exists"):
        store.rename_campaign(CID, "Beta")
    with pytest.raises(MalformedInputError, match="visible character"):
        store.rename_campaign(CID, "\x00\n ")
    assert store.find("Gamma[31m").id == CID
    assert store.verify(CID).ok  # a rename touches no event


@pytest.mark.parametrize(("typed", "stored"), [
    ("Kursk", "Kursk"), ("  two   words ", "two words"), ("a\x1b]0;pwned\x07b", "a]0;pwnedb"),
    ("x[/]", "x[/]"), ("rtl\u202eevil", "rtlevil"), ("tab\there", "tabhere"),
])
def test_names_are_cleaned(typed: str, stored: str) -> None:
    assert clean_name(typed) == stored


def test_names_are_bounded() -> None:
    with pytest.raises(MalformedInputError, match="81 characters"):
        clean_name("x" * 81)
    with pytest.raises(MalformedInputError):
        clean_name("")


# -- the campaign you meant ----------------------------------------------------------------------


def test_latest_follows_local_writes_not_event_clocks(db_path: Path, store: EventStore) -> None:
    store.create_campaign("b-id", "Beta", "test", created("Beta"))
    latest = store.latest()
    assert latest is not None and latest.name == "Beta"
    store.append(CID, 5, ev(5))
    latest = store.latest()
    assert latest is not None and latest.name == "Alpha"
    # Even an event dated far in the future does not win over this machine's own use.
    conn = raw(db_path)
    conn.execute("UPDATE local_use SET used_at = '9999-12-31' WHERE campaign_id = 'b-id'")
    conn.close()
    latest = store.latest()
    assert latest is not None and latest.name == "Alpha"


# -- reads never write ---------------------------------------------------------------------------


def test_readonly_open_of_missing_path_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "db.sqlite3"
    with pytest.raises(StoreError, match="no database at") as info:
        EventStore(path, readonly=True)
    assert info.value.fix is not None and "rallypoint new" in info.value.fix
    assert files_in(tmp_path) == []


def test_foreign_sqlite_file_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "someone-elses.sqlite3"
    conn = raw(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.close()
    before = path.read_bytes()
    for readonly in (True, False):
        with pytest.raises(StoreError, match=r"not a rallypoint database.*notes"):
            EventStore(path, readonly=readonly)
        assert path.read_bytes() == before
    conn = raw(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_readonly_open_refuses_empty_and_non_database_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    with pytest.raises(StoreError, match="empty database"):
        EventStore(empty, readonly=True)
    assert empty.read_bytes() == b""
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all\n" * 100)
    for readonly in (True, False):
        with pytest.raises(StoreError, match="damaged"):
            EventStore(text, readonly=readonly)
    assert text.read_text().startswith("not a database")


def test_readonly_store_never_writes(db_path: Path, store: EventStore) -> None:
    store.close()
    before = db_path.read_bytes()
    with EventStore(db_path, readonly=True) as reader:
        assert reader.verify(CID).ok
        assert reader.latest() is not None
        with pytest.raises(StoreError, match="read-only"):
            reader.append(CID, 5, ev(5))
    assert db_path.read_bytes() == before


def test_current_database_opens_without_the_write_lock(db_path: Path, store: EventStore) -> None:
    """A reader does not wait on a writer holding the lock (it used to, for 5 s)."""
    writer = raw(db_path)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with EventStore(db_path, readonly=True) as reader:
            assert reader.campaign(CID).version == 4
        with EventStore(db_path) as other:  # even a read-write open, if no migration is due
            assert other.campaign(CID).version == 4
            with pytest.raises(StoreError, match=r"busy.*another process") as info:
                other.append(CID, 5, ev(5))
            assert info.value.fix is not None and "wait" in info.value.fix
    finally:
        writer.execute("ROLLBACK")
        writer.close()


@pytest.mark.parametrize("where", ["file", "folder"])
def test_unusable_paths(tmp_path: Path, where: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    path = blocker / "db.sqlite3" if where == "file" else tmp_path
    for readonly in (True, False):
        with pytest.raises(StoreError, match=r"is a file, not a folder|is a folder"):
            EventStore(path, readonly=readonly)
    assert blocker.read_text() == "x"


def test_unwritable_folder(tmp_path: Path) -> None:
    # /proc refuses new files even to root, so this runs the same in CI containers.
    with pytest.raises(StoreError, match=r"cannot create|cannot open|unable"):
        EventStore(Path("/proc/rallypoint-test/db.sqlite3"))


def test_damaged_page_is_one_line(db_path: Path, store: EventStore) -> None:
    for i in range(5, 200):
        store.append(CID, i, NewEvent(type="test", payload={"n": i, "pad": "x" * 500}))
    store.close()
    conn = raw(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db_path.read_bytes())
    page = 4096
    for offset in range(3 * page, min(len(data), 20 * page)):
        data[offset] = 0xA5
    db_path.write_bytes(bytes(data))
    with (pytest.raises(StoreError, match=r"damaged|malformed") as info,
          EventStore(db_path, readonly=True) as damaged):
        damaged.verify(CID)
        damaged.events(CID)
    assert info.value.fix is not None and "restore" in info.value.fix


def test_concurrent_readers_and_a_writer(db_path: Path, store: EventStore) -> None:
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for _ in range(20):
                with EventStore(db_path, readonly=True) as reader:
                    assert reader.verify(CID).ok
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(5, 25):
        store.append(CID, i, ev(i))
    for t in threads:
        t.join()
    assert errors == []
    assert store.verify(CID).ok
