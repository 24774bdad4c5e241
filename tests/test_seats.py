"""Accounts, invites, seats, login sessions and the reveal (rallypoint.session.seats)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rallypoint.core.errors import IllegalNowError, MalformedInputError, UnknownIdError
from rallypoint.core.visibility import PUBLIC, REFEREE, Viewer
from rallypoint.session import Session
from rallypoint.session.seats import REFEREE_SEAT, SeatBook
from seats_kit import execute, two_sided

PASSWORD = "correct horse battery"


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """A fresh database on each backend (PostgreSQL: ``RALLYPOINT_TEST_PG``)."""
    if request.param == "sqlite":
        yield tmp_path / "c.sqlite3"
        return
    from pg_kit import fresh_database

    yield from fresh_database()


@pytest.fixture
def book(db: Path | str) -> tuple[SeatBook, str]:
    ref = two_sided(Session(db))
    return SeatBook(db), ref


def _stored_hashes(location: Path | str) -> list[str]:
    query = "SELECT password_hash FROM accounts"
    if isinstance(location, Path):
        import sqlite3

        with sqlite3.connect(location) as conn:
            return [str(r[0]) for r in conn.execute(query)]
    import psycopg

    with psycopg.connect(location) as pg:
        return [str(r[0]) for r in pg.execute(query)]


def test_passwords_are_kept_only_as_argon2id_hashes(book: tuple[SeatBook, str]) -> None:
    seats, _ = book
    account = seats.create_account("Ann", PASSWORD)
    assert seats.check_password("ann", PASSWORD) == account
    assert seats.check_password("ann", PASSWORD + "x") is None
    assert seats.check_password("nobody", PASSWORD) is None
    if isinstance(seats.location, Path):
        assert PASSWORD.encode() not in seats.location.read_bytes()
    (stored,) = _stored_hashes(seats.location)
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    with pytest.raises(MalformedInputError, match="taken"):
        seats.create_account("ANN", PASSWORD)
    with pytest.raises(MalformedInputError, match="at least"):
        seats.create_account("bob", "short")
    with pytest.raises(MalformedInputError, match="login"):
        seats.create_account("a b", PASSWORD)


def test_a_server_hashes_at_rfc_9106_low_memory_cost() -> None:
    """The suite hashes at argon2's cheapest (tests/cheap_hash.py); the server must not."""
    from argon2.profiles import RFC_9106_LOW_MEMORY

    from cheap_hash import REAL_HASHER
    from rallypoint.session import seats as seats_module

    assert REAL_HASHER.time_cost == RFC_9106_LOW_MEMORY.time_cost
    assert REAL_HASHER.memory_cost == RFC_9106_LOW_MEMORY.memory_cost
    assert REAL_HASHER.parallelism == RFC_9106_LOW_MEMORY.parallelism
    assert seats_module._HASHER is not REAL_HASHER  # the stand-in is in force for the suite


def test_invites_open_one_seat_each_once(book: tuple[SeatBook, str]) -> None:
    seats, ref = book
    ann, bob = seats.create_account("ann", PASSWORD), seats.create_account("bob", PASSWORD)
    invites = seats.open_seats(ref, ["finland", "soviet", REFEREE_SEAT], creator=ann.id)
    assert seats.viewer(ref, ann.id) == PUBLIC  # the creator, before taking a seat
    assert seats.viewer(ref, bob.id) is None
    assert seats.join(invites["finland"], ann).seat == "finland"
    with pytest.raises(UnknownIdError):
        seats.join(invites["finland"], bob)  # used
    with pytest.raises(IllegalNowError, match="already"):
        seats.join(invites["soviet"], ann)  # one seat per account
    with pytest.raises(UnknownIdError):
        seats.join("made-up-token", bob)
    fresh = seats.new_invite(ref, "soviet", ann.id)
    with pytest.raises(UnknownIdError):
        seats.join(invites["soviet"], bob)  # replaced
    assert seats.join(fresh, bob).seat == "soviet"
    with pytest.raises(IllegalNowError, match="taken"):
        seats.new_invite(ref, "soviet", ann.id)
    assert seats.viewer(ref, ann.id) == Viewer.of_side("finland")
    assert seats.viewer(ref, bob.id) == Viewer.of_side("soviet")
    assert seats.seated_campaigns(bob.id) == {ref: "soviet"}
    with pytest.raises(IllegalNowError):
        seats.open_seats(ref, ["finland"])


def test_the_referee_or_every_side_reveals_all(book: tuple[SeatBook, str]) -> None:
    seats, ref = book
    invites = seats.open_seats(ref, ["finland", "soviet", REFEREE_SEAT])
    ann, bob, ref_acc = (seats.create_account(n, PASSWORD) for n in ("ann", "bob", "rita"))
    for seat, account in (("finland", ann), ("soviet", bob), (REFEREE_SEAT, ref_acc)):
        seats.join(invites[seat], account)
    assert seats.viewer(ref, ref_acc.id) == REFEREE
    assert seats.ask_reveal(ref, ann.id) is False
    from rallypoint.store.location import open_store

    with open_store(seats.location) as store:
        kept = store.dice_secret(ref)
        assert kept is not None and kept.revealed_at is None
    assert seats.ask_reveal(ref, bob.id) is True
    with open_store(seats.location) as store:
        kept = store.dice_secret(ref)
        assert kept is not None and kept.revealed_at is not None
    revealed = seats.viewer(ref, ann.id)
    assert revealed == Viewer.of_side("finland", revealed=True) and revealed.sees_all()
    assert not revealed.may_act_for("soviet")


def test_login_sessions_end_on_logout(book: tuple[SeatBook, str]) -> None:
    seats, _ = book
    ann = seats.create_account("ann", PASSWORD)
    token = seats.start_session(ann)
    assert seats.session_account(token) == ann
    assert seats.session_account(token + "x") is None
    seats.end_session(token)
    assert seats.session_account(token) is None
    assert seats.web_key() == seats.web_key() and len(seats.web_key()) == 32


def test_both_backends_keep_state_snapshots(db: Path | str) -> None:
    """A long campaign resumes from its snapshot on either backend (reads stay short)."""
    session = Session(db)
    ref = two_sided(session)
    for _ in range(70):
        execute(session, ref, {"kind": "turn", "skip_fo": True})
    campaign = session.load(ref)
    assert campaign.version == 77 and len(campaign.events) < 20
    assert session.load(ref, whole=True).state == campaign.state


def test_the_powers_table_is_the_documented_one() -> None:
    """docs/web.md's table, row by row (the oracle), against ``granted``."""
    from rallypoint.session.powers import Power, Standing, granted

    def of(*standings: Standing, others: bool = True, revealed: bool = False) -> set[str]:
        return {str(p) for p in granted(standings, others_seated=others, revealed=revealed)}

    assert of(Standing.SIDE) == set()
    assert of(Standing.CREATOR) == {"invite", "rename"}
    assert of(Standing.CREATOR, others=False) == {"invite", "rename", "delete"}
    assert of(Standing.CREATOR, revealed=True) == {"invite", "rename", "delete"}
    assert of(Standing.CREATOR, Standing.SIDE) == {"invite", "rename"}
    assert of(Standing.REFEREE) == {"invite", "rename", "delete", "reveal", "type dice",
                                    "undo any"} == {str(p) for p in Power}
    assert of() == set()
