"""The rows a shared server notes per account and campaign beside the seats: the version each
account last saw (``seen_marks``, migration ``0011``) and where it asked to be mailed when it is
its move (``seat_mail``, ``0012``).

Both backends mix :class:`SeatNotesMixin` in (``_write()``/``_read()`` and the placeholder);
what the notes mean is :class:`rallypoint.session.seat_notes.SeatNotes`'.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, ClassVar

from rallypoint.core.events import now_text


class SeatNotesMixin:
    """Seen marks and mail addresses, on any store with ``_write``/``_read``."""

    _PLACEHOLDER: ClassVar[str] = "?"

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _sql(self, text: str) -> str:
        return text.replace("?", self._PLACEHOLDER)

    def seen_mark(self, campaign_id: str, account_id: str) -> int | None:
        """The seq ``account_id`` was last shown of the campaign (``None``: none is noted)."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT seq FROM seen_marks WHERE campaign_id = ? "
                                         "AND account_id = ?"),
                               (campaign_id, account_id)).fetchone()
        return None if row is None else int(row[0])

    def seen_marks(self, account_id: str) -> dict[str, int]:
        """Campaign id → the seq ``account_id`` was last shown there."""
        with self._read() as conn:
            rows = conn.execute(self._sql("SELECT campaign_id, seq FROM seen_marks "
                                          "WHERE account_id = ?"), (account_id,)).fetchall()
        return {str(r[0]): int(r[1]) for r in rows}

    def raise_seen_mark(self, campaign_id: str, account_id: str, seq: int) -> None:
        """Move the seen mark to ``seq`` if that is beyond it (a mark never moves back)."""
        with self._write() as conn:
            conn.execute(self._sql(
                "INSERT INTO seen_marks (campaign_id, account_id, seq, seen_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (campaign_id, account_id) DO UPDATE SET "
                "seq = excluded.seq, seen_at = excluded.seen_at "
                "WHERE excluded.seq > seen_marks.seq"),
                (campaign_id, account_id, seq, now_text()))

    def set_seat_mail(self, campaign_id: str, account_id: str, address: str) -> bool:
        """Keep ``address`` (empty: none) as where the account is mailed in the campaign;
        ``False`` (nothing written): the account holds no seat there."""
        with self._write() as conn:
            if conn.execute(self._sql("SELECT 1 FROM seats WHERE campaign_id = ? AND "
                                      "account_id = ?"),
                            (campaign_id, account_id)).fetchone() is None:
                return False
            conn.execute(self._sql("DELETE FROM seat_mail WHERE campaign_id = ? AND "
                                   "account_id = ?"), (campaign_id, account_id))
            if address:
                conn.execute(self._sql("INSERT INTO seat_mail (campaign_id, account_id, "
                                       "address) VALUES (?, ?, ?)"),
                             (campaign_id, account_id, address))
        return True

    def seat_mail(self, campaign_id: str, account_id: str) -> str | None:
        """The address the account is mailed at in the campaign (``None``: none)."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT address FROM seat_mail WHERE campaign_id = ? "
                                         "AND account_id = ?"),
                               (campaign_id, account_id)).fetchone()
        return None if row is None else str(row[0])

    def seat_mails(self, campaign_id: str) -> list[tuple[str, str, int | None]]:
        """(account, address, seq of the last mail sent) of every address kept for the
        campaign."""
        with self._read() as conn:
            rows = conn.execute(self._sql("SELECT account_id, address, mailed_seq FROM "
                                          "seat_mail WHERE campaign_id = ?"),
                                (campaign_id,)).fetchall()
        return [(str(r[0]), str(r[1]), None if r[2] is None else int(r[2])) for r in rows]

    def set_mailed(self, campaign_id: str, account_id: str, seq: int) -> None:
        """Note that a mail about ``seq`` went to the account."""
        with self._write() as conn:
            conn.execute(self._sql("UPDATE seat_mail SET mailed_seq = ? WHERE campaign_id = ? "
                                   "AND account_id = ?"), (seq, campaign_id, account_id))
