"""The PostgreSQL page cache's change mark is the database's own (issue 20).

A server keeps a rendered page until the mark moves (``session.hosting.change_mark``). The
server-wide WAL position it replaced moved with every other database's writes on a shared server,
so most page requests missed the cache. The mark now moves with each kind of write a page shows,
inside that write's transaction (migration ``0013_page_mark``), and with nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rallypoint.session import Session
from rallypoint.session.hosting import change_mark
from rallypoint.session.seats import REFEREE_SEAT, SeatBook, ensure_store
from seats_kit import SCENARIO as TWO_SIDES
from seats_kit import SHEETS, execute

SCENARIO = Path(__file__).resolve().parents[2] / \
    "src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml"

NOT_MARKED = {"rate_hits", "chain_marks", "state_snapshots", "schema_migrations", "page_mark"}
"""Tables whose writes leave the mark alone: attempt counts no page shows, what is derived from
the log (a read may write a snapshot), the bookkeeping, and the mark itself."""


@pytest.fixture
def pg() -> Iterator[str]:
    from pg_kit import fresh_database

    yield from fresh_database()


@pytest.fixture
def other_pg() -> Iterator[str]:
    from pg_kit import fresh_database

    yield from fresh_database()


def test_writes_to_another_database_on_the_server_leave_the_mark_and_cached_page_alone(
        pg: str, other_pg: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import psycopg

    from web.test_page_cache import _shown_version, _worker

    cid = Session(pg).create(SCENARIO, name="ridge").id
    with _worker(pg) as one:
        assert _shown_version(one, cid) == 1  # rendered and cached
        before = change_mark(pg)
        # Another club's database on the same server: a campaign, commands, an account.
        other = Session(other_pg)
        oid = other.create(SCENARIO, name="elsewhere").id
        for version in (1, 2, 3):
            other.execute(oid, {"kind": "turn", "expected_version": version})
        SeatBook(other_pg).create_account("bea", "a long enough passphrase")
        assert change_mark(pg) == before
        sent: list[str] = []
        execute = psycopg.Cursor.execute

        def counted(self: psycopg.Cursor[Any], query: Any, *args: Any, **kwargs: Any) -> Any:
            sent.append(str(query))
            return execute(self, query, *args, **kwargs)

        monkeypatch.setattr(psycopg.Cursor, "execute", counted)
        assert _shown_version(one, cid) == 1
        monkeypatch.setattr(psycopg.Cursor, "execute", execute)
    # Answered from the cache: the mark asked, nothing read.
    assert sent == ["SELECT xmin::text || ':' || n::text FROM page_mark"]


def _writes(pg: str) -> list[tuple[str, Callable[[], object]]]:
    """Each kind of write a page shows, in an order that makes each possible."""
    session, book = Session(pg), SeatBook(pg)
    made: dict[str, Any] = {}

    def create() -> None:
        made["cid"] = session.create(TWO_SIDES, name="winter").id

    def account() -> None:
        made["ann"] = book.create_account("ann", "a long enough passphrase")

    def seats() -> None:
        made["invites"] = book.open_seats(made["cid"], ["finland", "soviet", REFEREE_SEAT],
                                          creator=made["ann"].id)

    def login() -> None:
        made["token"] = book.start_session(made["ann"])

    def cid() -> str:
        return str(made["cid"])

    return [
        ("create a campaign", create),
        ("create an account", account),
        ("open seats", seats),
        ("make an invite", lambda: book.new_invite(cid(), "soviet", made["ann"].id)),
        ("join a seat", lambda: book.join(made["invites"]["finland"], made["ann"])),
        ("log in", login),
        ("append an event", lambda: execute(session, cid(), SHEETS[0])),
        ("note the event's author", lambda: book.record_action(cid(), 2, "finland")),
        ("consent to an undo", lambda: book.consent_to_undo(cid(), 2, "finland")),
        ("ask for the reveal", lambda: book.ask_reveal(cid(), made["ann"].id)),
        ("mark the campaign seen", lambda: book.mark_seen(cid(), made["ann"].id, 2)),
        ("ask for mail", lambda: book.set_mail(cid(), made["ann"].id, "ann@example.org")),
        ("note a mail sent", lambda: book.mailed(cid(), made["ann"].id, 2)),
        ("undo", lambda: session.undo(cid())),
        ("rename the campaign", lambda: session.rename(cid(), "winter two")),
        ("log out", lambda: book.end_session(made["token"])),
        ("delete the campaign", lambda: session.delete(cid(), backup=None)),
    ]


def test_each_kind_of_write_a_page_shows_moves_the_mark(pg: str) -> None:
    ensure_store(pg)
    unmoved = []
    for what, write in _writes(pg):
        before = change_mark(pg)
        write()
        if change_mark(pg) == before:
            unmoved.append(what)
    assert unmoved == []


def test_reading_a_page_twice_leaves_the_mark_alone(pg: str) -> None:
    from web.test_page_cache import _shown_version, _worker

    cid = Session(pg).create(SCENARIO, name="ridge").id
    with _worker(pg) as one, _worker(pg) as two:
        assert _shown_version(one, cid) == 1
        after_first = change_mark(pg)
        assert [_shown_version(w, cid) for w in (one, two, one)] == [1, 1, 1]
        assert change_mark(pg) == after_first


def test_every_table_but_the_named_few_moves_the_mark(pg: str) -> None:
    """A table added later without the mark's triggers fails here: its writes would leave a
    stale page in every server's cache."""
    import psycopg

    ensure_store(pg)
    with psycopg.connect(pg) as conn:
        tables = {r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        marked = {r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE t.tgname = c.relname || '_page_mark'")}
        truncate_marked = {r[0] for r in conn.execute(
            "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE t.tgname = c.relname || '_page_mark_truncate'")}
    assert tables >= NOT_MARKED
    assert marked == tables - NOT_MARKED
    assert truncate_marked == tables - NOT_MARKED


def test_concurrent_writers_to_different_campaigns_all_land_past_the_one_mark(pg: str) -> None:
    """Every write bumps the one mark row: writers must queue on it, never fail or deadlock."""
    import threading

    session = Session(pg)
    cids = [session.create(SCENARIO, name=f"ridge {i}").id for i in range(4)]
    before = change_mark(pg)
    failures: list[BaseException] = []

    def writer(cid: str) -> None:
        try:
            mine = Session(pg)
            for version in range(1, 6):
                mine.execute(cid, {"kind": "turn", "expected_version": version})
        except BaseException as exc:  # surfaced below: a thread cannot fail the test itself
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(cid,)) for cid in cids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert [session.resolve(cid).version for cid in cids] == [6, 6, 6, 6]
    assert change_mark(pg) != before
