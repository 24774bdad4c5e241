"""The store's guarantees, checked on both backends: SQLite (the default) and PostgreSQL.

Every test runs twice, once per backend, against the same interface: append-only logs enforced
below the library (raw SQL is refused), contiguous seqs, the chain and head checked on read and
before every write, stale commands refused, imports that extend or diverge, delete and rename,
and many concurrent clients on loopback losing and duplicating nothing.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from memory_kit import peak_growth
from pg_kit import fresh_database
from rallypoint.core.errors import IntegrityError, StaleVersionError, StoreError
from rallypoint.core.events import NewEvent
from rallypoint.store import EventStore
from rallypoint.store.postgres import PostgresStore, is_postgres_url, redacted
from store_kit import events as played_events

Opener = Callable[..., Any]


class Backend:
    """How to open a store on one backend, and how to reach past it with raw SQL."""

    def __init__(self, kind: str, location: str) -> None:
        self.kind, self.location = kind, location

    def open(self, **kwargs: Any) -> Any:
        if self.kind == "postgres":
            return PostgresStore(self.location, **kwargs)
        return EventStore(self.location, **kwargs)

    def raw(self, sql: str, *, bypass_triggers: bool = False) -> None:
        """Run SQL behind the store's back (``?``-free statements only)."""
        if self.kind == "postgres":
            import psycopg

            with psycopg.connect(self.location, autocommit=True) as conn:
                tables = ("events", "campaigns") if bypass_triggers else ()
                for table in tables:
                    conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
                conn.execute(sql)
                for table in tables:
                    conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
            return
        import sqlite3

        lite = sqlite3.connect(self.location, isolation_level=None)
        try:
            if bypass_triggers:
                names = [r[0] for r in lite.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'trigger'")]
                lite.execute("BEGIN")
                saved = [r[0] for r in lite.execute(
                    "SELECT sql FROM sqlite_master WHERE type = 'trigger'")]
                for name in names:
                    lite.execute(f'DROP TRIGGER "{name}"')
                lite.execute(sql)
                for text in saved:
                    lite.execute(text)
                lite.execute("COMMIT")
            else:
                lite.execute(sql)
        finally:
            lite.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "postgres":
        for url in fresh_database():
            yield Backend("postgres", url)
    else:
        yield Backend("sqlite", str(tmp_path / "store.sqlite3"))


class Note(BaseModel):
    """The payload of the concurrent clients' test events."""

    client: int
    n: int
    text: str


def note(client: int, n: int) -> NewEvent:
    return NewEvent(type="note", payload={"client": client, "n": n, "text": "Tolvajärvi ✓"})


def started(store: Any, campaign_id: str = "c1", count: int = 4) -> list[NewEvent]:
    played = played_events()
    store.create_campaign(campaign_id, "Kursk", "squares", played[0])
    store.append_many(campaign_id, 2, played[1:count])
    return played


def test_round_trip_versions_and_head(backend: Backend) -> None:
    with backend.open() as store:
        played = started(store)
        records = store.events("c1")
        assert [r.seq for r in records] == [1, 2, 3, 4]
        assert [r.payload for r in records] == [e.payload for e in played[:4]]
        info = store.campaign("c1")
        assert (info.version, info.head_seq, info.head_hash) == (4, 4, records[-1].hash)
        assert store.verify("c1").ok
        assert store.find("Kursk").id == "c1" and store.find("c1") == info
        assert [c.id for c in store.campaigns()] == ["c1"]


def test_stale_append_is_refused_and_writes_nothing(backend: Backend) -> None:
    with backend.open() as store:
        started(store)
        with pytest.raises(StaleVersionError, match="at version 4"):
            store.append("c1", 4, note(0, 0))
        with pytest.raises(StaleVersionError):
            store.append_many("c1", 6, [note(0, 0), note(0, 1)])
        assert store.campaign("c1").version == 4


@pytest.mark.parametrize("sql", [
    "UPDATE events SET type = 'x' WHERE seq = 2",
    "DELETE FROM events WHERE seq = 4",
    "UPDATE campaigns SET head_seq = 3",
    # The head back to a stored event with its own hash: the newest event cut from the log.
    "UPDATE campaigns SET head_seq = 3, head_hash = (SELECT hash FROM events WHERE seq = 3)",
    "DELETE FROM campaigns",
])
def test_raw_sql_cannot_rewrite_history(backend: Backend, sql: str) -> None:
    with backend.open() as store:
        started(store)
    with pytest.raises(Exception, match=r"append-only|head moves|removed only|never change"):
        backend.raw(sql)
    with backend.open() as store:
        assert store.verify("c1").ok and store.campaign("c1").version == 4


_COPY_OF_4 = "SELECT campaign_id, {seq}, type, payload, recorded_at, {prev}, hash FROM events "
"""A raw copy of a stored row at another seq or link (the rows below are inserted behind the
store's back; every one must be refused by the database itself)."""


@pytest.mark.parametrize("sql", [
    # A gap: seq 6 after the head at 4.
    "INSERT INTO events " + _COPY_OF_4.format(seq=6, prev="hash") + "WHERE seq = 4",
    # The next seq, but not linked to the head's hash.
    "INSERT INTO events " + _COPY_OF_4.format(seq=5, prev="prev_hash") + "WHERE seq = 4",
    # Two rows in one statement: the first extends the head, the second skips a seq.
    "INSERT INTO events " + _COPY_OF_4.format(seq="seq + 1", prev="hash") + "WHERE seq = 4 "
    "UNION ALL " + _COPY_OF_4.format(seq=7, prev="hash") + "WHERE seq = 4",
    # Two rows in one statement at the next seqs, the second not from the first's hash (the
    # copies keep row 4's hash, so the first's is row 4's and row 4's own link is not it).
    "INSERT INTO events " + _COPY_OF_4.format(seq="seq + 1", prev="hash") + "WHERE seq = 4 "
    "UNION ALL " + _COPY_OF_4.format(seq="seq + 2", prev="prev_hash") + "WHERE seq = 4",
    # The head moved forward to no stored event.
    "UPDATE campaigns SET head_seq = 5",
])
def test_raw_sql_cannot_append_anything_but_the_next_event(backend: Backend, sql: str) -> None:
    """An append is checked by the database (PostgreSQL: once per statement, migration 0014;
    SQLite: per row), so a row inserted behind the store's back cannot leave a gap, break the
    chain or move the head to nothing."""
    with backend.open() as store:
        started(store)
    with pytest.raises(Exception, match=r"must extend its campaign's head|head moves only"):
        backend.raw(sql)
    with backend.open() as store:
        assert store.verify("c1").ok and store.campaign("c1").version == 4


def test_a_raw_append_that_extends_the_head_moves_it(backend: Backend) -> None:
    """The database's own rule is the chain, not the store's code: a well-linked row moves the
    head to it (and ``verify`` then finds the hash it was given does not match its row)."""
    with backend.open() as store:
        started(store)
    backend.raw("INSERT INTO events " + _COPY_OF_4.format(seq="seq + 1", prev="hash")
                + "WHERE seq = 4")
    with backend.open() as store:
        info = store.campaign("c1")
        report = store.verify("c1")
    assert info.head_seq == 5
    assert report.problem is not None and report.problem.seq == 5


def test_truncate_is_refused_on_postgres(backend: Backend) -> None:
    if backend.kind != "postgres":
        pytest.skip("SQLite has no TRUNCATE")
    with backend.open() as store:
        started(store)
    with pytest.raises(Exception, match=r"append-only|removed only"):
        backend.raw("TRUNCATE events CASCADE")


def test_an_edit_behind_the_stores_back_is_reported_and_blocks_writes(backend: Backend) -> None:
    with backend.open() as store:
        started(store)
    backend.raw("UPDATE events SET payload = replace(payload, '\"', '\"') || ' ' WHERE seq = 3",
                bypass_triggers=True)
    with backend.open() as store:
        report = store.verify("c1")
        assert not report.ok and report.problem is not None and report.problem.seq == 3
        with pytest.raises(IntegrityError, match="broken at seq 3"):
            store.append("c1", 5, note(0, 0))


def test_a_cut_tail_is_reported(backend: Backend) -> None:
    with backend.open() as store:
        started(store)
    backend.raw("DELETE FROM events WHERE seq = 4", bypass_triggers=True)
    with backend.open() as store:
        report = store.verify("c1")
        assert not report.ok and report.problem is not None
        assert "cut" in report.problem.reason
        with pytest.raises(IntegrityError):
            store.append("c1", 4, note(0, 0))


def test_imports_extend_or_refuse_a_divergent_log(backend: Backend, tmp_path: Path) -> None:
    with EventStore(tmp_path / "theirs.sqlite3") as theirs:
        started(theirs, count=6)
        full = theirs.events("c1")
        info = theirs.campaign("c1")
    with backend.open() as store:
        store.import_records("c1", "Kursk", "squares", info.created_at, full[:3])
        assert store.import_records("c1", "Kursk", "squares", info.created_at, full).version == 6
        assert store.events("c1") == full
        store.append("c1", 7, note(1, 1))
    with EventStore(tmp_path / "theirs.sqlite3") as theirs:
        theirs.append("c1", 7, note(2, 2))
        forked = theirs.events("c1")
    with backend.open() as store:
        with pytest.raises(IntegrityError, match="diverge at seq 7"):
            store.import_records("c1", "Kursk", "squares", info.created_at, forked)
        assert store.campaign("c1").version == 7


def test_rename_delete_latest_and_read_only(backend: Backend) -> None:
    with backend.open() as store:
        started(store, "c1")
        store.create_campaign("c2", "Prokhorovka", "squares", played_events()[0])
        store.append("c1", 5, note(0, 0))
        latest = store.latest()
        assert latest is not None and latest.id == "c1"
        assert store.rename_campaign("c2", "Ponyri").name == "Ponyri"
        with pytest.raises(StoreError, match="already exists"):
            store.rename_campaign("c2", "Kursk")
        assert store.delete_campaign("c1") == 5
        assert [c.id for c in store.campaigns()] == ["c2"]
    with backend.open(readonly=True) as store:
        assert [c.name for c in store.campaigns()] == ["Ponyri"]
        with pytest.raises(StoreError, match="read-only"):
            store.append("c2", 2, note(0, 0))


def test_many_concurrent_clients_lose_and_duplicate_nothing(backend: Backend) -> None:
    clients, per_client = 8, 15
    with backend.open() as store:
        store.create_campaign("c1", "Kursk", "squares", played_events()[0])
    stale = Counter[int]()
    failures: list[BaseException] = []

    def client(number: int) -> None:
        try:
            with backend.open() as mine:
                for n in range(per_client):
                    while True:  # a stale append is refused; the client reloads and retries
                        version = mine.campaign("c1").version
                        try:
                            mine.append("c1", version + 1, note(number, n))
                            break
                        except StaleVersionError:
                            stale[number] += 1
        except BaseException as exc:  # surfaced below: a thread cannot fail the test itself
            failures.append(exc)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    with backend.open() as store:
        records = store.events("c1")
        assert [r.seq for r in records] == list(range(1, clients * per_client + 2))
        sent = [Note.model_validate(r.payload) for r in records[1:]]
        written = Counter((w.client, w.n) for w in sent)
        assert written == Counter({(c, n): 1 for c in range(clients) for n in range(per_client)})
        assert store.verify("c1").ok


def test_urls_are_told_apart_and_passwords_kept_out_of_messages() -> None:
    assert is_postgres_url("postgresql://u:pw@h/db") and is_postgres_url("postgres://h/db")
    assert not is_postgres_url("campaigns.sqlite3") and not is_postgres_url(Path("x"))
    assert redacted("postgresql://u:secret@h:5432/db") == "postgresql://u@h:5432/db"
    with pytest.raises(StoreError, match="cannot connect") as caught:
        PostgresStore("postgresql://u:secret@127.0.0.1:1/nowhere")
    assert "secret" not in str(caught.value)


def test_an_import_does_not_change_the_campaign_last_used_here(backend: Backend,
                                                               tmp_path: Path) -> None:
    with EventStore(tmp_path / "theirs.sqlite3") as theirs:
        started(theirs, "c9", count=4)
        full = theirs.events("c9")
        info = theirs.campaign("c9")
    with backend.open() as store:
        started(store, "c1")
        store.import_records("c9", "Theirs", "squares", info.created_at, full[:2])
        latest = store.latest()
        assert latest is not None and latest.id == "c1", "a new imported campaign is not use"
        store.append("c1", 5, note(0, 1))
        assert store.import_records("c9", "Theirs", "squares", info.created_at, full).version == 4
        latest = store.latest()
        assert latest is not None and latest.id == "c1", "their moves coming back are not use"
        store.append("c9", 5, note(0, 0))       # played here: now it is the one in use
        latest = store.latest()
        assert latest is not None and latest.id == "c9"


def test_the_campaign_last_used_of_one_ruleset(backend: Backend) -> None:
    # The session asks the store for the default campaign of the ruleset whose verbs run
    # (`rallypoint squares board` without -c); PostgreSQL once took no ruleset and crashed.
    from rallypoint.session import Session

    with backend.open() as store:
        started(store, "c1")
        store.create_campaign("c2", "Ridge", "tcs", played_events()[0])
        store.append("c1", 5, note(0, 0))
        assert [store.latest(r).id for r in (None, "squares", "tcs")] == ["c1", "c1", "c2"]
        assert store.latest("platoon") is None
    session = Session(backend.location if backend.kind == "postgres" else Path(backend.location))
    used = [session.last_used(r) for r in (None, "tcs")]
    assert [u.id if u else None for u in used] == ["c1", "c2"]


def test_verify_counts_every_stored_row_of_a_broken_log(backend: Backend) -> None:
    with backend.open() as store:
        started(store)
    backend.raw("DELETE FROM events WHERE seq = 2", bypass_triggers=True)
    with backend.open() as store:
        report = store.verify("c1")
        assert (report.events, report.ok) == (3, False)
        assert report.problem is not None and report.problem.seq == 3


def _verify_growth(backend: Backend, campaign_id: str, count: int) -> int:
    """Bytes ``verify`` holds at its peak beyond what it started with, on a log of ``count``
    padded events (a campaign of its own, so each size is written once)."""
    with backend.open() as store:
        store.create_campaign(campaign_id, campaign_id, "squares", played_events()[0])
        store.append_many(campaign_id, 2, [
            NewEvent(type="note", payload={"client": 0, "n": n, "text": "Tolvajärvi ✓ " * 40})
            for n in range(count)])
    reports = []
    with backend.open() as store:
        grown = peak_growth(lambda: reports.append(store.verify(campaign_id)))
    (report,) = reports
    assert (report.ok, report.events) == (True, count + 1)
    return grown


def test_verify_walks_a_long_log_a_batch_at_a_time(backend: Backend) -> None:
    """``verify`` (and a write whose chain mark no longer holds) walks the chain without holding
    the log: 6,000 events cost what 1,500 do (both past a batch; a whole fetch would hold 4,500
    more rows of ~900 bytes, about 4 MiB)."""
    short = _verify_growth(backend, "short", 1500)
    long = _verify_growth(backend, "long", 6000)
    assert long - short < 512 * 1024, (short, long)


def test_verify_names_an_unreadable_payload(backend: Backend) -> None:
    """A payload edited into JSON that is no object is named as such (the walk that finds it
    reads the rows a batch at a time on both backends)."""
    with backend.open() as store:
        started(store)
    backend.raw("UPDATE events SET payload = '[1]' WHERE seq = 3", bypass_triggers=True)
    with backend.open() as store:
        report = store.verify("c1")
    assert report.problem is not None
    assert (report.problem.seq, report.problem.reason) == (
        3, "payload is not a JSON object (edited?)")
