"""Accounts, invites, seats, login sessions and the reveal (rallypoint.session.seats)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rallypoint.core.errors import IllegalNowError, MalformedInputError, UnknownIdError
from rallypoint.core.visibility import REFEREE, Viewer
from rallypoint.session import Session
from rallypoint.session.seats import REFEREE_SEAT, SeatBook
from seats_kit import two_sided

PASSWORD = "correct horse battery"


@pytest.fixture
def book(tmp_path: Path) -> tuple[SeatBook, str]:
    db = tmp_path / "c.sqlite3"
    ref = two_sided(Session(db))
    return SeatBook(db), ref


def test_passwords_are_kept_only_as_argon2id_hashes(book: tuple[SeatBook, str]) -> None:
    seats, _ = book
    account = seats.create_account("Ann", PASSWORD)
    assert seats.check_password("ann", PASSWORD) == account
    assert seats.check_password("ann", PASSWORD + "x") is None
    assert seats.check_password("nobody", PASSWORD) is None
    raw = (seats.location.read_bytes() if isinstance(seats.location, Path) else b"")
    assert PASSWORD.encode() not in raw
    import sqlite3

    with sqlite3.connect(seats.location) as conn:
        (stored,) = conn.execute("SELECT password_hash FROM accounts").fetchone()
    assert stored.startswith("$argon2id$")
    with pytest.raises(MalformedInputError, match="taken"):
        seats.create_account("ANN", PASSWORD)
    with pytest.raises(MalformedInputError, match="at least"):
        seats.create_account("bob", "short")
    with pytest.raises(MalformedInputError, match="login"):
        seats.create_account("a b", PASSWORD)


def test_invites_open_one_seat_each_once(book: tuple[SeatBook, str]) -> None:
    seats, ref = book
    invites = seats.open_seats(ref, ["finland", "soviet", REFEREE_SEAT])
    ann, bob = seats.create_account("ann", PASSWORD), seats.create_account("bob", PASSWORD)
    assert seats.viewer(ref, ann.id) is None
    assert seats.join(invites["finland"], ann).seat == "finland"
    with pytest.raises(UnknownIdError):
        seats.join(invites["finland"], bob)  # used
    with pytest.raises(IllegalNowError, match="already"):
        seats.join(invites["soviet"], ann)  # one seat per account
    with pytest.raises(UnknownIdError):
        seats.join("made-up-token", bob)
    fresh = seats.new_invite(ref, "soviet")
    with pytest.raises(UnknownIdError):
        seats.join(invites["soviet"], bob)  # replaced
    assert seats.join(fresh, bob).seat == "soviet"
    with pytest.raises(IllegalNowError, match="taken"):
        seats.new_invite(ref, "soviet")
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
    assert seats.ask_reveal(ref, bob.id) is True
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
