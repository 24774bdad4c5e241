"""What a shared server notes per account and campaign beside the seats: the version each
account last saw (issue 22, "what changed since you last looked"; table ``seen_marks``,
migration ``0011``) and where it asked to be mailed when it is its move (``seat_mail``,
``0012``). Reading aids and mail, not evidence: deleting a campaign deletes their rows.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager

from rallypoint.core.errors import MalformedInputError, UnknownIdError
from rallypoint.store import EventStore

MAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
"""One plain e-mail address (no display name, no comments, nothing a header could break on)."""


class SeatNotes:
    """The notes part of :class:`~rallypoint.session.seats.SeatBook` (which gives ``_open``)."""

    def _open(self, write: bool = True) -> AbstractContextManager[EventStore]:
        raise NotImplementedError

    # --- what each account last saw ------------------------------------------------------------

    def seen(self, campaign_id: str, account_id: str) -> int | None:
        """The seq of the latest event of the campaign that ``account_id`` was last shown
        (``None``: never)."""
        with self._open(write=False) as store:
            return store.seen_mark(campaign_id, account_id)

    def seen_by(self, account_id: str) -> dict[str, int]:
        """Campaign id → the seq ``account_id`` last saw there (campaigns it never looked at
        are left out)."""
        with self._open(write=False) as store:
            return store.seen_marks(account_id)

    def mark_seen(self, campaign_id: str, account_id: str, seq: int) -> None:
        """Note that ``account_id`` was shown the campaign up to ``seq``. The mark only moves
        forward (a page drawn before a newer one, answered later, does not move it back); a
        mark already there costs a read, not a write, so looking again changes nothing in the
        database (and keeps every page cache keyed on it)."""
        if (self.seen(campaign_id, account_id) or 0) >= seq:
            return
        with self._open() as store:
            store.raise_seen_mark(campaign_id, account_id, seq)

    # --- e-mail when it is your move --------------------------------------------------------------

    def set_mail(self, campaign_id: str, account_id: str, address: str | None) -> None:
        """Ask for a mail at ``address`` when it is the account's move in the campaign
        (``None`` or empty: no more mail). Only an account holding a seat there may ask.

        Raises:
            UnknownIdError: The account holds no seat there.
            MalformedInputError: ``address`` is not one plain e-mail address.
        """
        address = (address or "").strip()
        with self._open() as store:
            # A stranger hears that it holds no seat before anything about its address.
            if not any(row.account_id == account_id for row in store.seat_rows(campaign_id)) \
                    or not store.set_seat_mail(campaign_id, account_id,
                                               mail_address(address) if address else ""):
                raise UnknownIdError("you hold no seat in this campaign", fix="Join it first.")

    def mail_of(self, campaign_id: str, account_id: str) -> str | None:
        """The address the account asked for mail at in the campaign (``None``: none)."""
        with self._open(write=False) as store:
            return store.seat_mail(campaign_id, account_id)

    def mail_wanted(self, campaign_id: str) -> list[tuple[str, str, int | None]]:
        """(account, address, version of the last mail sent) of every account that asked for
        mail in the campaign."""
        with self._open(write=False) as store:
            return store.seat_mails(campaign_id)

    def mailed(self, campaign_id: str, account_id: str, seq: int) -> None:
        """Note that a mail about version ``seq`` went to the account."""
        with self._open() as store:
            store.set_mailed(campaign_id, account_id, seq)


def mail_address(text: str) -> str:
    """``text`` as one plain e-mail address (it goes into a mail header as it is).

    Raises:
        MalformedInputError: Not a single ``name@domain.tld`` address: empty parts, spaces,
            line breaks or other control characters (a header injection), several ``@``, or
            longer than 254 characters.
    """
    if len(text) > 254 or not MAIL.fullmatch(text):
        raise MalformedInputError(f"{text[:80]!r} is not one e-mail address", where="address",
                                  fix="Give one address such as ann@example.org.")
    return text
