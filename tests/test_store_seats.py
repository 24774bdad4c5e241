"""The store's typed API for shared campaigns (store/seats.py, store/seat_notes.py), on SQLite and
PostgreSQL: each check-then-write refuses inside its one transaction and then writes nothing.

The oracle is the tables themselves, read with the driver (not through the API under test).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rallypoint.session import Session
from rallypoint.store import EventStore
from rallypoint.store.location import open_store
from rallypoint.store.seats import AccountRow, Taking
from seats_kit import two_sided


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """A fresh database on each backend (PostgreSQL: ``RALLYPOINT_TEST_PG``)."""
    if request.param == "sqlite":
        yield tmp_path / "c.sqlite3"
        return
    from pg_kit import fresh_database

    yield from fresh_database()


@pytest.fixture
def shared(db: Path | str) -> Iterator[tuple[EventStore, str]]:
    """A two-sided campaign's store (open for the test) and its id."""
    ref = two_sided(Session(db))
    with open_store(db) as store:
        yield store, ref


def _rows(location: Path | str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    if isinstance(location, Path):
        import sqlite3

        with sqlite3.connect(location) as conn:
            return [tuple(r) for r in conn.execute(query, params)]
    import psycopg

    with psycopg.connect(location) as pg:
        return [tuple(r) for r in pg.execute(query.replace("?", "%s"), params)]


def test_a_taken_login_writes_nothing(db: Path | str, shared: tuple[EventStore, str]) -> None:
    store, _ = shared
    assert store.add_account(AccountRow("a1", "ann", "Ann"), "hash-1")
    assert not store.add_account(AccountRow("a2", "ann", "ANN"), "hash-2")
    assert _rows(db, "SELECT id, login, display, password_hash FROM accounts") == [
        ("a1", "ann", "Ann", "hash-1")]
    assert store.login_of("ann") == (AccountRow("a1", "ann", "Ann"), "hash-1")
    assert store.login_of("nobody") is None


def test_a_second_seat_of_one_campaign_is_refused_and_writes_nothing(
        db: Path | str, shared: tuple[EventStore, str]) -> None:
    store, ref = shared
    store.add_account(AccountRow("a1", "ann", "Ann"), "h")
    assert store.add_seats(ref, {"finland": "inv-f", "soviet": "inv-s"}, "a1")
    assert not store.add_seats(ref, {"finland": "other"}, None)  # seats exist already
    assert store.take_seat("inv-f", "a1") == Taking(ref, "finland", None)
    assert store.take_seat("inv-f", "a1") is None  # used
    assert store.take_seat("inv-s", "a1") == Taking(ref, "soviet", "finland")
    assert store.take_seat("made-up", "a1") is None
    assert sorted(_rows(db, "SELECT seat, account_id, invite_hash FROM seats")) == [
        ("finland", "a1", "inv-f"), ("soviet", None, "inv-s")]
    assert store.free_seat("inv-s") == (ref, "soviet")
    assert store.free_seat("inv-f") is None
    assert store.seats_held("a1") == {ref: "finland"}
    assert store.campaigns_of("a1") == frozenset({ref})
    assert store.creator_of(ref) == "a1"


def test_mail_is_kept_only_for_a_seat_holder(db: Path | str,
                                             shared: tuple[EventStore, str]) -> None:
    store, ref = shared
    store.add_account(AccountRow("a1", "ann", "Ann"), "h")
    store.add_account(AccountRow("e1", "eve", "Eve"), "h")
    store.add_seats(ref, {"finland": "inv-f"}, None)
    store.take_seat("inv-f", "a1")
    assert not store.set_seat_mail(ref, "e1", "eve@example.org")  # a stranger
    assert store.set_seat_mail(ref, "a1", "ann@example.org")
    assert _rows(db, "SELECT account_id, address FROM seat_mail") == [("a1", "ann@example.org")]
    assert store.set_seat_mail(ref, "a1", "")  # no more mail
    assert _rows(db, "SELECT account_id, address FROM seat_mail") == []


def test_a_seen_mark_never_moves_back(shared: tuple[EventStore, str]) -> None:
    store, ref = shared
    store.add_account(AccountRow("a1", "ann", "Ann"), "h")
    store.raise_seen_mark(ref, "a1", 5)
    store.raise_seen_mark(ref, "a1", 3)
    assert store.seen_mark(ref, "a1") == 5
    assert store.seen_marks("a1") == {ref: 5}


def test_the_first_web_key_offered_is_kept(shared: tuple[EventStore, str]) -> None:
    store, _ = shared
    assert store.web_key("cookies", "aa" * 32) == "aa" * 32
    assert store.web_key("cookies", "bb" * 32) == "aa" * 32


def test_undo_consent_is_noted_once(db: Path | str, shared: tuple[EventStore, str]) -> None:
    store, ref = shared
    store.consent_to_undo(ref, 2, "soviet")
    store.consent_to_undo(ref, 2, "soviet")
    assert _rows(db, "SELECT target_seq, seat FROM undo_consents") == [(2, "soviet")]
    assert store.undo_consents(ref, 2) == frozenset({"soviet"})
    store.record_action(ref, 2, "finland")
    assert store.author_of(ref, 2) == "finland"
    assert store.author_of(ref, 3) is None
