"""The rows of shared campaigns: accounts, login sessions, cookie keys, seats, who made which
event, and consent to undo (migrations ``0005_seats`` and ``0008_seat_creators``).

Both backends mix :class:`SeatsMixin` in; it needs only their ``_write()``/``_read()``
transactions and the driver's placeholder. It stores and reads rows and keeps each check-then-write
inside one transaction; what the rows mean (who may do what, when a campaign is revealed, what a
token is) is decided by :class:`rallypoint.session.seats.SeatBook`. Tokens and passwords reach
it only as digests and hashes.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, ClassVar, NamedTuple

from rallypoint.core.events import now_text


class AccountRow(NamedTuple):
    """An account as stored (its password hash is read only by :meth:`SeatsMixin.login_of`)."""

    id: str
    login: str
    """Case-folded: logins are unique whatever their case."""
    display: str
    """The login as its owner typed it."""


class SeatRow(NamedTuple):
    """One seat of a shared campaign, with its holder's display name."""

    campaign_id: str
    seat: str
    account_id: str | None
    holder: str | None
    joined_at: str | None
    reveal_asked_at: str | None


class Taking(NamedTuple):
    """What an invite opened: the seat, and the seat of that campaign the account already held
    (then nothing was written)."""

    campaign_id: str
    seat: str
    held: str | None


class SeatsMixin:
    """Accounts, login sessions, keys and seats, on any store with ``_write``/``_read``."""

    _PLACEHOLDER: ClassVar[str] = "?"

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _sql(self, text: str) -> str:
        return text.replace("?", self._PLACEHOLDER)

    # --- accounts and login sessions -------------------------------------------------------------

    def add_account(self, account: AccountRow, password_hash: str) -> bool:
        """Store a new account; ``False`` (nothing written): its login is taken."""
        with self._write() as conn:
            taken = conn.execute(self._sql("SELECT 1 FROM accounts WHERE login = ?"),
                                 (account.login,)).fetchone()
            if taken is not None:
                return False
            conn.execute(self._sql("INSERT INTO accounts (id, login, display, password_hash, "
                                   "created_at) VALUES (?, ?, ?, ?, ?)"),
                         (*account, password_hash, now_text()))
        return True

    def login_of(self, login: str) -> tuple[AccountRow, str] | None:
        """The account with that (case-folded) login and its password hash."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT id, login, display, password_hash FROM accounts "
                                         "WHERE login = ?"), (login,)).fetchone()
        return None if row is None else (_account(row), str(row[3]))

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        """Replace an account's password hash (a rehash with newer parameters)."""
        with self._write() as conn:
            conn.execute(self._sql("UPDATE accounts SET password_hash = ? WHERE id = ?"),
                         (password_hash, account_id))

    def account_row(self, account_id: str) -> AccountRow | None:
        """The account with that id."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT id, login, display FROM accounts WHERE id = ?"),
                               (account_id,)).fetchone()
        return None if row is None else _account(row)

    def add_login(self, token_hash: str, account_id: str, created_at: str,
                  expires_at: str) -> None:
        """Store a login session by its token's digest."""
        with self._write() as conn:
            conn.execute(self._sql("INSERT INTO web_sessions (token_hash, account_id, "
                                   "created_at, expires_at) VALUES (?, ?, ?, ?)"),
                         (token_hash, account_id, created_at, expires_at))

    def login_session(self, token_hash: str) -> tuple[AccountRow, str] | None:
        """The account of a login session and its ``expires_at``."""
        with self._read() as conn:
            row = conn.execute(self._sql(
                "SELECT a.id, a.login, a.display, s.expires_at FROM web_sessions AS s "
                "JOIN accounts AS a ON a.id = s.account_id WHERE s.token_hash = ?"),
                (token_hash,)).fetchone()
        return None if row is None else (_account(row), str(row[3]))

    def end_login(self, token_hash: str) -> None:
        """Delete a login session."""
        with self._write() as conn:
            conn.execute(self._sql("DELETE FROM web_sessions WHERE token_hash = ?"),
                         (token_hash,))

    def web_key(self, name: str, offered: str) -> str:
        """The key stored under ``name``; ``offered`` is stored first if none is."""
        with self._write() as conn:
            # Several worker processes start at once on a fresh database: each offers a key and
            # the first one stored wins (no read-then-insert race); all then read that one.
            conn.execute(self._sql("INSERT INTO web_keys (name, secret) VALUES (?, ?) "
                                   "ON CONFLICT (name) DO NOTHING"), (name, offered))
            row = conn.execute(self._sql("SELECT secret FROM web_keys WHERE name = ?"),
                               (name,)).fetchone()
        return str(row[0])

    # --- seats --------------------------------------------------------------------------------

    def add_seats(self, campaign_id: str, invite_hashes: Mapping[str, str],
                  creator: str | None) -> bool:
        """Store a campaign's seats (seat → its invite's digest) and its creator, if any;
        ``False`` (nothing written): it has seats already."""
        with self._write() as conn:
            if conn.execute(self._sql("SELECT 1 FROM seats WHERE campaign_id = ?"),
                            (campaign_id,)).fetchone() is not None:
                return False
            for seat, invite_hash in invite_hashes.items():
                conn.execute(self._sql("INSERT INTO seats (campaign_id, seat, invite_hash) "
                                       "VALUES (?, ?, ?)"), (campaign_id, seat, invite_hash))
            if creator is not None:
                conn.execute(self._sql("INSERT INTO seat_campaigns (campaign_id, creator_id, "
                                       "opened_at) VALUES (?, ?, ?)"),
                             (campaign_id, creator, now_text()))
        return True

    def creator_of(self, campaign_id: str) -> str | None:
        """The account that opened the campaign's seats (``None``: none is stored)."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT creator_id FROM seat_campaigns "
                                         "WHERE campaign_id = ?"), (campaign_id,)).fetchone()
        return None if row is None else str(row[0])

    def replace_invite(self, campaign_id: str, seat: str, invite_hash: str) -> None:
        """Give a seat no one holds a new invite digest (the old invite stops working)."""
        with self._write() as conn:
            conn.execute(self._sql("UPDATE seats SET invite_hash = ? WHERE campaign_id = ? "
                                   "AND seat = ? AND account_id IS NULL"),
                         (invite_hash, campaign_id, seat))

    def seat_rows(self, campaign_id: str) -> list[SeatRow]:
        """Every seat of a campaign, in no particular order."""
        with self._read() as conn:
            rows = conn.execute(self._sql(
                "SELECT s.campaign_id, s.seat, s.account_id, a.display, s.joined_at, "
                "s.reveal_asked_at FROM seats AS s LEFT JOIN accounts AS a "
                "ON a.id = s.account_id WHERE s.campaign_id = ?"), (campaign_id,)).fetchall()
        return [SeatRow(str(r[0]), str(r[1]), r[2], r[3], r[4], r[5]) for r in rows]

    def seats_held(self, account_id: str) -> dict[str, str]:
        """Campaign id → the seat ``account_id`` holds there."""
        with self._read() as conn:
            rows = conn.execute(self._sql("SELECT campaign_id, seat FROM seats "
                                          "WHERE account_id = ?"), (account_id,)).fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def campaigns_of(self, account_id: str) -> frozenset[str]:
        """The campaigns ``account_id`` holds a seat in or opened."""
        with self._read() as conn:
            rows = conn.execute(self._sql(
                "SELECT campaign_id FROM seats WHERE account_id = ? UNION "
                "SELECT campaign_id FROM seat_campaigns WHERE creator_id = ?"),
                (account_id, account_id)).fetchall()
        return frozenset(str(r[0]) for r in rows)

    def take_seat(self, invite_hash: str, account_id: str) -> Taking | None:
        """Seat ``account_id`` in the free seat an invite digest opens, unless it holds another
        seat of that campaign (:attr:`Taking.held`, nothing written); ``None``: the digest opens
        no free seat."""
        with self._write() as conn:
            row = conn.execute(self._sql("SELECT campaign_id, seat, account_id FROM seats "
                                         "WHERE invite_hash = ?"), (invite_hash,)).fetchone()
            if row is None or row[2] is not None:
                return None
            campaign_id, seat = str(row[0]), str(row[1])
            held = conn.execute(self._sql("SELECT seat FROM seats WHERE campaign_id = ? AND "
                                          "account_id = ?"), (campaign_id, account_id)).fetchone()
            if held is not None:
                return Taking(campaign_id, seat, str(held[0]))
            conn.execute(self._sql("UPDATE seats SET account_id = ?, joined_at = ? "
                                   "WHERE campaign_id = ? AND seat = ? AND account_id IS NULL"),
                         (account_id, now_text(), campaign_id, seat))
        return Taking(campaign_id, seat, None)

    def free_seat(self, invite_hash: str) -> tuple[str, str] | None:
        """(campaign id, seat) of the free seat an invite digest opens."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT campaign_id, seat FROM seats WHERE "
                                         "invite_hash = ? AND account_id IS NULL"),
                               (invite_hash,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def ask_reveal(self, campaign_id: str, seat: str) -> None:
        """Note that the seat asked for everything to be shown (its first asking is kept)."""
        with self._write() as conn:
            conn.execute(self._sql("UPDATE seats SET reveal_asked_at = COALESCE("
                                   "reveal_asked_at, ?) WHERE campaign_id = ? AND seat = ?"),
                         (now_text(), campaign_id, seat))

    # --- who made what, and consent to undo ------------------------------------------------------

    def record_action(self, campaign_id: str, seq: int, seat: str) -> None:
        """Note that ``seat`` made the event at ``seq``."""
        with self._write() as conn:
            conn.execute(self._sql("INSERT INTO seat_actions (campaign_id, seq, seat) "
                                   "VALUES (?, ?, ?)"), (campaign_id, seq, seat))

    def author_of(self, campaign_id: str, seq: int) -> str | None:
        """The seat that made the event at ``seq`` (``None``: none is noted)."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT seat FROM seat_actions WHERE campaign_id = ? "
                                         "AND seq = ?"), (campaign_id, seq)).fetchone()
        return None if row is None else str(row[0])

    def consent_to_undo(self, campaign_id: str, target_seq: int, seat: str) -> None:
        """Note that ``seat`` agrees to undoing the event at ``target_seq`` (once)."""
        with self._write() as conn:
            done = conn.execute(self._sql(
                "SELECT 1 FROM undo_consents WHERE campaign_id = ? AND target_seq = ? AND "
                "seat = ?"), (campaign_id, target_seq, seat)).fetchone()
            if done is None:
                conn.execute(self._sql("INSERT INTO undo_consents (campaign_id, target_seq, "
                                       "seat, given_at) VALUES (?, ?, ?, ?)"),
                             (campaign_id, target_seq, seat, now_text()))

    def undo_consents(self, campaign_id: str, target_seq: int) -> frozenset[str]:
        """The seats that agreed to undoing the event at ``target_seq``."""
        with self._read() as conn:
            rows = conn.execute(self._sql("SELECT seat FROM undo_consents WHERE campaign_id = ? "
                                          "AND target_seq = ?"),
                                (campaign_id, target_seq)).fetchall()
        return frozenset(str(r[0]) for r in rows)


def _account(row: Any) -> AccountRow:
    return AccountRow(str(row[0]), str(row[1]), str(row[2]))
