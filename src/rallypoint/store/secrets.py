"""What a store keeps that no export may carry: dice secrets and this player's seat keys.

Both backends mix :class:`SecretsMixin` in; it needs only their ``_write()``/``_read()``
transactions and the driver's placeholder. Deleting a campaign removes its dice secret (the row is
keyed by ``campaign_id``); seat keys belong to the player, not to a campaign, and stay.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, ClassVar, NamedTuple

from rallypoint.core.errors import StoreError
from rallypoint.core.events import now_text


class KeptSecret(NamedTuple):
    """A campaign's dice secret as the store keeps it."""

    secret: str
    """32 bytes, hex."""
    revealed_at: str | None
    """When the players asked for it to be revealed (exports carry it from then on)."""


class KeptSeat(NamedTuple):
    """One of this player's seat keys."""

    public: str
    seat: str
    private: str
    chain_seed: str


class SecretsMixin:
    """Dice secrets and seat keys, on any store with ``_write``/``_read`` transactions."""

    _PLACEHOLDER: ClassVar[str] = "?"
    path: str

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _sql(self, text: str) -> str:
        return text.replace("?", self._PLACEHOLDER)

    def put_dice_secret(self, campaign_id: str, secret_hex: str) -> None:
        """Keep a campaign's server-mode dice secret (once: it never changes)."""
        with self._write() as conn:
            conn.execute(self._sql("INSERT INTO dice_secrets (campaign_id, secret) VALUES (?, ?)"),
                         (campaign_id, secret_hex))

    def dice_secret(self, campaign_id: str) -> KeptSecret | None:
        """The campaign's dice secret, or ``None`` if this store does not hold it."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT secret, revealed_at FROM dice_secrets "
                                         "WHERE campaign_id = ?"), (campaign_id,)).fetchone()
        return None if row is None else KeptSecret(str(row[0]), row[1])

    def reveal_dice_secret(self, campaign_id: str) -> str:
        """Mark the secret revealed (every later export carries it); return it.

        Raises:
            StoreError: This store does not hold the campaign's secret.
        """
        with self._write() as conn:
            conn.execute(self._sql("UPDATE dice_secrets SET revealed_at = COALESCE(revealed_at, ?) "
                                   "WHERE campaign_id = ?"), (now_text(), campaign_id))
            row = conn.execute(self._sql("SELECT secret FROM dice_secrets WHERE campaign_id = ?"),
                               (campaign_id,)).fetchone()
        if row is None:
            raise StoreError("this database holds no dice secret for the campaign",
                             where=self.path, fix="reveal it where the campaign was created")
        return str(row[0])

    def put_seat_key(self, seat: KeptSeat) -> None:
        """Keep one of this player's seat keys (with its dice chain seed)."""
        with self._write() as conn:
            conn.execute(self._sql("INSERT INTO seat_keys (public, seat, private, chain_seed, "
                                   "created_at) VALUES (?, ?, ?, ?, ?)"),
                         (seat.public, seat.seat, seat.private, seat.chain_seed, now_text()))

    def seat_key(self, public: str) -> KeptSeat | None:
        """This player's seat key with public half ``public``, or ``None``."""
        with self._read() as conn:
            row = conn.execute(self._sql("SELECT public, seat, private, chain_seed FROM seat_keys "
                                         "WHERE public = ?"), (public,)).fetchone()
        return None if row is None else KeptSeat(*(str(v) for v in row))

    def put_revealed_secret(self, campaign_id: str, secret_hex: str) -> None:
        """Keep a dice secret that arrived already revealed (an imported turn file's); the
        caller has checked it against the campaign's commitment."""
        with self._write() as conn:
            found = conn.execute(self._sql("SELECT 1 FROM dice_secrets WHERE campaign_id = ?"),
                                 (campaign_id,)).fetchone()
            if found is None:
                conn.execute(self._sql("INSERT INTO dice_secrets (campaign_id, secret, "
                                       "revealed_at) VALUES (?, ?, ?)"),
                             (campaign_id, secret_hex, now_text()))

    def put_dice_request(self, campaign_id: str, round_: int, seat: str, request: str) -> None:
        """Keep a pair-mode dice request (JSON); the same round asked again is ignored."""
        with self._write() as conn:
            found = conn.execute(self._sql("SELECT 1 FROM dice_requests WHERE campaign_id = ? "
                                           "AND round = ?"), (campaign_id, round_)).fetchone()
            if found is None:
                conn.execute(self._sql("INSERT INTO dice_requests (campaign_id, round, seat, "
                                       "request, made_at) VALUES (?, ?, ?, ?, ?)"),
                             (campaign_id, round_, seat, request, now_text()))

    def dice_requests(self, campaign_id: str) -> list[tuple[int, str, str]]:
        """Every pair-mode request kept for a campaign as ``(round, seat, request JSON)``."""
        with self._read() as conn:
            rows = conn.execute(self._sql("SELECT round, seat, request FROM dice_requests "
                                          "WHERE campaign_id = ? ORDER BY round"),
                                (campaign_id,)).fetchall()
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    def drop_dice_request(self, campaign_id: str, round_: int) -> None:
        """Forget a pair-mode request that can no longer be answered (its position passed, or
        it yielded to the other seat's request for the same round)."""
        with self._write() as conn:
            conn.execute(self._sql("DELETE FROM dice_requests WHERE campaign_id = ? AND "
                                   "round = ?"), (campaign_id, round_))

    def put_dice_answer(self, campaign_id: str, round_: int, seat: str, answer: str) -> None:
        """Keep this seat's answer to a sealed dice request (JSON); a round answered again is
        ignored (a chain gives one link per round, so the answer cannot change)."""
        with self._write() as conn:
            found = conn.execute(self._sql("SELECT 1 FROM dice_answers WHERE campaign_id = ? "
                                           "AND round = ?"), (campaign_id, round_)).fetchone()
            if found is None:
                conn.execute(self._sql("INSERT INTO dice_answers (campaign_id, round, seat, "
                                       "answer, made_at) VALUES (?, ?, ?, ?, ?)"),
                             (campaign_id, round_, seat, answer, now_text()))

    def dice_answers(self, campaign_id: str) -> list[tuple[int, str, str]]:
        """Every sealed-round answer kept for a campaign as ``(round, seat, answer JSON)``."""
        with self._read() as conn:
            rows = conn.execute(self._sql("SELECT round, seat, answer FROM dice_answers "
                                          "WHERE campaign_id = ? ORDER BY round"),
                                (campaign_id,)).fetchall()
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    def drop_dice_answer(self, campaign_id: str, round_: int) -> None:
        """Forget an answer once its round is resolved in the log (or the log moved past it)."""
        with self._write() as conn:
            conn.execute(self._sql("DELETE FROM dice_answers WHERE campaign_id = ? AND "
                                   "round = ?"), (campaign_id, round_))
