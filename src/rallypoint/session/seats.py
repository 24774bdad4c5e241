"""Accounts, seats and sessions of shared campaigns (``serve --shared``, a hosted server).

A shared campaign has one seat per side of its scenario, and a referee's (:data:`REFEREE_SEAT`)
only if its creator opened one when creating it. Each seat is joined once, by an invite token, by
one account; an account holds at most one seat of a campaign. Who may do what beyond playing
their own side is declared once, in :data:`rallypoint.session.powers.POWERS` (the creator and
the referee make invites; a side's seat makes none, so no seat can mint itself into a seat it
does not hold). Passwords are kept only as argon2id hashes, invite and session tokens only as
their SHA-256, so a copy of the database lets no one join, log in or pose as a player. The
campaign is revealed to every seat when the referee asks, or when every side's seat has asked
(the end of the campaign); its dice secret is marked revealed then too.

Works on the same SQLite file or PostgreSQL URL as :class:`~rallypoint.session.Session`
(tables of migrations ``0005_seats`` and ``0008_seat_creators``; what each account last saw
and its "your move" mail: :class:`~rallypoint.session.seat_notes.SeatNotes`).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from rallypoint.core.errors import (
    IllegalNowError,
    MalformedInputError,
    StoreError,
    UnknownIdError,
)
from rallypoint.core.visibility import PUBLIC, REFEREE, Viewer
from rallypoint.session.powers import Power, Standing, granted, refusal
from rallypoint.session.seat_notes import SeatNotes
from rallypoint.store import EventStore
from rallypoint.store.location import normalised, open_store
from rallypoint.store.seats import AccountRow

REFEREE_SEAT = "@referee"
"""The referee's seat (sees everything, may act for every side)."""
SESSION_DAYS = 30
"""How long a login lasts."""
LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{2,39}$")
MIN_PASSWORD = 10



_HASHER = PasswordHasher()  # argon2id with argon2-cffi's RFC 9106 "low memory" defaults
_DUMMY_HASH = _HASHER.hash("not a password of anyone's")


@dataclass(frozen=True)
class Account:
    """A player's account."""

    id: str
    login: str
    display: str


@dataclass(frozen=True)
class Seat:
    """One seat of a shared campaign."""

    campaign_id: str
    seat: str
    account_id: str | None
    holder: str | None
    joined_at: str | None
    reveal_asked: bool

    @property
    def viewer(self) -> Viewer:
        """Who its holder is, as the visibility filter sees them."""
        return REFEREE if self.seat == REFEREE_SEAT else Viewer.of_side(self.seat)


def ensure_store(location: Path | str) -> None:
    """Create (or migrate) the store at ``location`` now: a server on an empty PostgreSQL
    database, or a new SQLite file, is ready before its first request."""
    with open_store(normalised(location)):
        pass


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SeatBook(SeatNotes):
    """The accounts, seats and login sessions kept in one campaign database.

    Args:
        location: The SQLite file or ``postgresql://`` URL (migrated on first use).
    """

    def __init__(self, location: Path | str) -> None:
        self.location = normalised(location)

    @contextmanager
    def _open(self, write: bool = True) -> Iterator[EventStore]:
        # Reads open read-only: they never create, migrate or lock the database.
        with open_store(self.location, readonly=not write) as store:
            yield store

    # --- accounts ------------------------------------------------------------------------------

    def create_account(self, login: str, password: str) -> Account:
        """A new account.

        Raises:
            MalformedInputError: The login or password does not qualify, or the login is taken.
        """
        if not LOGIN.match(login):
            raise MalformedInputError(
                f"{login!r} is not a usable login", where="login",
                fix="Use 3 to 40 letters, digits, '.', '_' or '-', starting with a letter or "
                "digit.")
        if len(password) < MIN_PASSWORD or len(password) > 1000:
            raise MalformedInputError(
                f"a password needs at least {MIN_PASSWORD} characters", where="password",
                fix="Choose a longer password (a few words make a good one).")
        account = Account(uuid.uuid4().hex, login.casefold(), login)
        with self._open() as store:
            if not store.add_account(AccountRow(*astuple(account)), _HASHER.hash(password)):
                raise MalformedInputError(f"the login {login!r} is taken", where="login",
                                          fix="Choose another login.")
        return account

    def check_password(self, login: str, password: str) -> Account | None:
        """The account if ``password`` is its password, else ``None`` (an unknown login costs
        the same hashing time, so timing does not tell which logins exist)."""
        with self._open(write=False) as store:
            found = store.login_of(login.casefold())
        try:
            _HASHER.verify(found[1] if found else _DUMMY_HASH, password)
        except (VerificationError, InvalidHashError):
            return None
        if found is None:
            return None
        account = Account(*found[0])
        if _HASHER.check_needs_rehash(found[1]):
            with self._open() as store:
                store.set_password_hash(account.id, _HASHER.hash(password))
        return account

    def account(self, account_id: str) -> Account | None:
        """The account with that id."""
        with self._open(write=False) as store:
            row = store.account_row(account_id)
        return None if row is None else Account(*row)

    # --- login sessions ------------------------------------------------------------------------

    def start_session(self, account: Account) -> str:
        """A new login session for ``account``; returns its token (kept here only hashed)."""
        token = secrets.token_urlsafe(32)
        now = datetime.now(UTC)
        with self._open() as store:
            store.add_login(_digest(token), account.id, now.isoformat(),
                            (now + timedelta(days=SESSION_DAYS)).isoformat())
        return token

    def session_account(self, token: str) -> Account | None:
        """The account logged in by ``token``, if the session is current."""
        found = self.session(token)
        return None if found is None or found[1] < datetime.now(UTC) else found[0]

    def session(self, token: str) -> tuple[Account, datetime] | None:
        """The account of a login session and when the session expires (``None``: no such
        session, or it was ended)."""
        with self._open(write=False) as store:
            found = store.login_session(_digest(token))
        if found is None:
            return None
        return Account(*found[0]), datetime.fromisoformat(found[1])

    def end_session(self, token: str) -> None:
        """Log out: the token stops working at once."""
        with self._open() as store:
            store.end_login(_digest(token))

    def web_key(self) -> bytes:
        """The database's key for signing cookies (made on first use)."""
        with self._open() as store:
            # Every worker offers a key; the store keeps the first (see SeatsMixin.web_key).
            return bytes.fromhex(store.web_key("cookies", secrets.token_hex(32)))

    # --- seats ---------------------------------------------------------------------------------

    def open_seats(self, campaign_id: str, seats: Sequence[str],
                   creator: str | None = None) -> dict[str, str]:
        """Give a campaign its seats; return each seat's invite token (shown once: only its
        hash is kept). The referee's seat exists only if ``seats`` names it: this is the one
        moment it can be opened.

        Args:
            campaign_id: The campaign.
            seats: Its side ids, and :data:`REFEREE_SEAT` if it has a referee.
            creator: The account opening it (``None``: no creator's powers, only a referee's).

        Raises:
            IllegalNowError: The campaign has seats already.
        """
        invites = {seat: secrets.token_urlsafe(24) for seat in seats}
        with self._open() as store:
            digests = {seat: _digest(token) for seat, token in invites.items()}
            if not store.add_seats(campaign_id, digests, creator):
                raise IllegalNowError("this campaign has its seats already",
                                      fix="Send the invites you have, or make new ones.")
        return invites

    def creator_of(self, campaign_id: str) -> str | None:
        """The account that opened the campaign (``None``: unknown, or not shared)."""
        with self._open(write=False) as store:
            return store.creator_of(campaign_id)

    def standings(self, campaign_id: str, account_id: str | None) -> frozenset[Standing]:
        """What ``account_id`` is to the campaign (none: a stranger to it)."""
        if account_id is None:
            return frozenset()
        found: set[Standing] = set()
        if self.creator_of(campaign_id) == account_id:
            found.add(Standing.CREATOR)
        seat = self.seat_of(campaign_id, account_id)
        if seat is not None:
            found.add(Standing.REFEREE if seat.seat == REFEREE_SEAT else Standing.SIDE)
        return frozenset(found)

    def powers(self, campaign_id: str, account_id: str | None) -> frozenset[Power]:
        """Every power ``account_id`` has over the campaign now (:func:`granted`)."""
        seats = self.seats(campaign_id)
        others = any(s.account_id not in (None, account_id) for s in seats)
        return granted(self.standings(campaign_id, account_id), others_seated=others,
                       revealed=_revealed(seats))

    def require(self, campaign_id: str, account_id: str | None, power: Power) -> None:
        """Refuse unless ``account_id`` has ``power`` over the campaign.

        Raises:
            NotYourSeatError: It has not (the message says who has).
        """
        if power not in self.powers(campaign_id, account_id):
            raise refusal(power)

    def new_invite(self, campaign_id: str, seat: str, by: str | None) -> str:
        """A new invite token for a seat no one has joined (the old one stops working), made by
        the account ``by``: the creator or the referee (:data:`POWERS`).

        Raises:
            NotYourSeatError: ``by`` may not make invites.
            UnknownIdError: No such seat.
            IllegalNowError: Someone holds the seat.
        """
        self.require(campaign_id, by, Power.INVITE)
        found = {s.seat: s for s in self.seats(campaign_id)}
        if seat not in found:
            raise UnknownIdError(f"this campaign has no seat {seat!r}",
                                 fix=f"Use one of: {', '.join(found) or 'none'}.")
        if found[seat].account_id is not None:
            raise IllegalNowError(f"seat {seat!r} is taken", fix="Invite to a free seat.")
        token = secrets.token_urlsafe(24)
        with self._open() as store:
            store.replace_invite(campaign_id, seat, _digest(token))
        return token

    def seats(self, campaign_id: str) -> list[Seat]:
        """Every seat of a campaign (none: it is not shared), sides first, in id order."""
        with self._open(write=False) as store:
            rows = store.seat_rows(campaign_id)
        seats = [Seat(r.campaign_id, r.seat, r.account_id, r.holder, r.joined_at,
                      r.reveal_asked_at is not None) for r in rows]
        return sorted(seats, key=lambda s: (s.seat == REFEREE_SEAT, s.seat))

    def seated_campaigns(self, account_id: str) -> dict[str, str]:
        """Campaign id → the seat ``account_id`` holds there."""
        with self._open(write=False) as store:
            return store.seats_held(account_id)

    def campaigns_of(self, account_id: str) -> frozenset[str]:
        """The campaigns ``account_id`` holds a seat in or opened."""
        with self._open(write=False) as store:
            return store.campaigns_of(account_id)

    def join(self, token: str, account: Account) -> Seat:
        """Take the seat an invite token opens.

        Raises:
            UnknownIdError: The token opens no free seat (wrong, used, or replaced).
            IllegalNowError: The account holds another seat of that campaign.
        """
        with self._open() as store:
            taken = store.take_seat(_digest(token), account.id)
        if taken is None:
            raise UnknownIdError("this invite opens no free seat (it is wrong, was used, or "
                                 "was replaced)", fix="Ask for a new invite.")
        if taken.held is not None:
            raise IllegalNowError(f"you hold seat {taken.held!r} of this campaign already",
                                  fix="Pass the invite to the player it is for.")
        return next(s for s in self.seats(taken.campaign_id) if s.seat == taken.seat)

    def invited(self, token: str) -> Seat | None:
        """The free seat an invite token opens, without taking it (the join page names the
        campaign and seat before the player accepts); ``None``: the token opens no free seat
        (wrong, used, or replaced)."""
        with self._open(write=False) as store:
            found = store.free_seat(_digest(token))
        if found is None:
            return None
        campaign_id, seat = found
        return next((s for s in self.seats(campaign_id) if s.seat == seat), None)

    def seat_of(self, campaign_id: str, account_id: str) -> Seat | None:
        """The seat an account holds in a campaign."""
        return next((s for s in self.seats(campaign_id) if s.account_id == account_id), None)

    def viewer(self, campaign_id: str, account_id: str | None) -> Viewer | None:
        """How an account sees a campaign: as its seat (shown everything once revealed, still
        acting only for its side); its creator holding no seat sees what is public (and makes
        its invites); ``None``: a stranger to it."""
        seats = self.seats(campaign_id)
        mine = next((s for s in seats if account_id and s.account_id == account_id), None)
        if mine is None:
            if account_id is not None and self.creator_of(campaign_id) == account_id:
                return PUBLIC
            return None
        if _revealed(seats):
            return REFEREE if mine.seat == REFEREE_SEAT else Viewer.of_side(mine.seat,
                                                                           revealed=True)
        return mine.viewer

    def ask_reveal(self, campaign_id: str, account_id: str) -> bool:
        """The seat's holder asks for everything to be shown; returns whether it now is (the
        referee's word, or every side's).

        Raises:
            UnknownIdError: The account holds no seat there.
        """
        seat = self.seat_of(campaign_id, account_id)
        if seat is None:
            raise UnknownIdError("you hold no seat in this campaign", fix="Join it first.")
        with self._open() as store:
            store.ask_reveal(campaign_id, seat.seat)
        revealed = _revealed(self.seats(campaign_id))
        if revealed:
            # The dice secret too (docs/dice.md): from now on every roll can be re-derived.
            with open_store(self.location) as store, contextlib.suppress(StoreError):
                store.reveal_dice_secret(campaign_id)
        return revealed

    def revealed(self, campaign_id: str) -> bool:
        """Whether the campaign shows everything to every seat now."""
        return _revealed(self.seats(campaign_id))

    # --- who made what, and consent to undo ------------------------------------------------------

    def record_action(self, campaign_id: str, seq: int, seat: str) -> None:
        """Note that ``seat`` made the event at ``seq``."""
        with self._open() as store:
            store.record_action(campaign_id, seq, seat)

    def author_of(self, campaign_id: str, seq: int) -> str | None:
        """The seat that made the event at ``seq`` (``None``: not made through a seat)."""
        with self._open(write=False) as store:
            return store.author_of(campaign_id, seq)

    def consent_to_undo(self, campaign_id: str, target_seq: int, seat: str) -> None:
        """``seat`` agrees that the event at ``target_seq`` may be undone."""
        with self._open() as store:
            store.consent_to_undo(campaign_id, target_seq, seat)

    def undo_consents(self, campaign_id: str, target_seq: int) -> frozenset[str]:
        """The seats that agreed to undo the event at ``target_seq``."""
        with self._open(write=False) as store:
            return store.undo_consents(campaign_id, target_seq)


def _revealed(seats: Sequence[Seat]) -> bool:
    """The referee asked, or every side did."""
    sides = [s for s in seats if s.seat != REFEREE_SEAT]
    return any(s.reveal_asked for s in seats if s.seat == REFEREE_SEAT) or (
        bool(sides) and all(s.reveal_asked for s in sides))
