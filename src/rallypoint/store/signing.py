"""Seat keys and signed turn files (Ed25519, via the ``cryptography`` package, imported only
when a key signs or checks: a command at the table does neither).

A two-player campaign names its seats in its ``created`` event, each with the public half of an
Ed25519 key (``created.seats.<seat>.key``). A turn file (``rallypoint export --for SIDE``) is signed
by the sender's seat key over its hashed header, which binds the campaign, the head of the log
(so every event, through the hash chain), who sent it and for whom. A receiver accepts only a
signature by a seat key that the campaign's own ``created`` event names.

Editing any event (even re-hashing the chain after it), cutting the tail, reordering events or
re-addressing the file changes what was signed, and the signature no longer checks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from rallypoint.core.errors import IntegrityError, MalformedInputError
from rallypoint.core.events import canonical_json
from rallypoint.errors import Hint

ALGORITHM: Final = "ed25519"
PURPOSE: Final = "rallypoint turn file v1"
CARD_PURPOSE: Final = "rallypoint seat card v1"
SEATS_KEY: Final = "seats"
"""The ``created`` payload key naming each seat and its public key."""
_HEX64 = r"^[0-9a-f]{64}$"


class TurnSignature(BaseModel):
    """One signature on a turn file.

    Attributes:
        algorithm: Always ``ed25519``.
        key_id: The signer's public key (32 bytes, hex).
        seat: The seat that signed (the sender).
        for_seat: The seat the file is for (``None``: a backup, for anyone).
        signature: The Ed25519 signature (64 bytes, hex) of :func:`signed_message`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    algorithm: str = ALGORITHM
    key_id: str = Field(pattern=_HEX64)
    seat: str = Field(min_length=1, max_length=100)
    for_seat: str | None = Field(default=None, max_length=100)
    signature: str = Field(pattern=r"^[0-9a-f]{128}$")


class SeatCard(BaseModel):
    """The public half of a seat: what a player sends the opponent before a campaign starts.

    A card is signed by its own key (:meth:`SeatKey.card`), so the campaign's ``created`` event,
    which carries both cards, shows that each seat itself chose its anchor and its consent to
    physical dice: the seat that creates the campaign cannot change the other's.

    Attributes:
        seat: The side it is for (``soviet``).
        key: Ed25519 public key (hex).
        anchor: The dice-v1 hash-chain anchor (hex) for play without a trusted server.
        physical_dice: This seat agrees to typed-in physical dice (``--dice``); they are allowed
            in the campaign only when every seat's card says so.
        signature: Ed25519 signature by ``key`` of :meth:`message` (``None``: an unsigned card,
            refused when a campaign is made from it).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_-]+$")
    key: str = Field(pattern=_HEX64)
    anchor: str | None = Field(default=None, pattern=_HEX64)
    physical_dice: bool = False
    signature: str | None = Field(default=None, pattern=r"^[0-9a-f]{128}$")

    def message(self) -> bytes:
        """What the card's key signs: every field but the signature, in canonical JSON."""
        body = self.model_dump(exclude={"signature"})
        return canonical_json({"purpose": CARD_PURPOSE, **body}).encode("utf-8")

    def check(self) -> None:
        """Refuse a card that is unsigned or whose signature is not its own key's.

        Raises:
            IntegrityError: Naming the seat, with the fix.
        """
        if self.signature is None:
            raise IntegrityError(f"the seat card of {self.seat!r} is not signed",
                                 where=f"seats.{self.seat}",
                                 fix="make it with `rallypoint seat new SIDE`",
                                 instead=Hint.BY_MAIL)
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(bytes.fromhex(self.key)).verify(
                bytes.fromhex(self.signature), self.message())
        except (InvalidSignature, ValueError):
            raise IntegrityError(f"the seat card of {self.seat!r} is not signed by its own key "
                                 "(edited after it was made?)", where=f"seats.{self.seat}",
                                 fix="ask that player for a fresh card") from None


def signed_message(header_hash: str, seat: str, for_seat: str | None) -> bytes:
    """What a seat signs: the purpose, the file's header hash, sender and addressee (canonical
    JSON, so the same file always gives the same bytes)."""
    return canonical_json({"purpose": PURPOSE, "header_hash": header_hash, "from": seat,
                           "for": for_seat}).encode("utf-8")


@dataclass(frozen=True)
class SeatKey:
    """A seat's private Ed25519 key (kept in the player's own store, never exported).

    Attributes:
        seat: The seat it signs for.
        private: The 32-byte private key.
    """

    seat: str
    private: bytes

    @classmethod
    def generate(cls, seat: str) -> SeatKey:
        """A fresh key from the operating system's randomness (via ``cryptography``)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import (
            Encoding,
            NoEncryption,
            PrivateFormat,
        )

        raw = Ed25519PrivateKey.generate().private_bytes(
            Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return cls(seat=seat, private=raw)

    @property
    def public(self) -> str:
        """The public key as hex (the ``key_id`` of its signatures)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        key = Ed25519PrivateKey.from_private_bytes(self.private).public_key()
        return key.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()

    def sign(self, header_hash: str, for_seat: str | None) -> TurnSignature:
        """Sign a turn file's header hash, addressed to ``for_seat``."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        key = Ed25519PrivateKey.from_private_bytes(self.private)
        signature = key.sign(signed_message(header_hash, self.seat, for_seat))
        return TurnSignature(key_id=self.public, seat=self.seat, for_seat=for_seat,
                             signature=signature.hex())

    def sign_bytes(self, message: bytes) -> str:
        """An Ed25519 signature (hex) of ``message`` by this key."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return Ed25519PrivateKey.from_private_bytes(self.private).sign(message).hex()

    def card(self, anchor: str | None, physical_dice: bool = False) -> SeatCard:
        """This seat's card, signed by this key."""
        unsigned = SeatCard(seat=self.seat, key=self.public, anchor=anchor,
                            physical_dice=physical_dice)
        return unsigned.model_copy(update={"signature": self.sign_bytes(unsigned.message())})


def verify_bytes(public_hex: str, message: bytes, signature_hex: str) -> bool:
    """Whether ``signature_hex`` is ``public_hex``'s Ed25519 signature of ``message``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex)).verify(
            bytes.fromhex(signature_hex), message)
    except (InvalidSignature, ValueError):
        return False
    return True


def seat_cards(created: Mapping[str, Any]) -> dict[str, SeatCard]:
    """Seat → its card, from a ``created`` payload (empty for a one-player campaign).

    Raises:
        IntegrityError: A card is malformed, or not signed by its own key.
    """
    from pydantic import ValidationError

    seats = created.get(SEATS_KEY)
    if not isinstance(seats, Mapping):
        return {}
    cards: dict[str, SeatCard] = {}
    for seat, info in seats.items():
        try:
            card = SeatCard.model_validate(info)
        except ValidationError as exc:
            raise IntegrityError(f"the seat card of {str(seat)!r} is malformed: "
                                 f"{exc.errors()[0]['msg']}", where=f"seats.{seat}",
                                 fix="ask for a fresh export") from None
        if card.seat != seat:
            raise IntegrityError(f"the card under seat {str(seat)!r} is for {card.seat!r}",
                                 where=f"seats.{seat}", fix="ask for a fresh export")
        card.check()
        cards[str(seat)] = card
    return cards


def seat_keys(created: Mapping[str, Any]) -> dict[str, str]:
    """Seat → public key (hex) from a ``created`` payload; empty for a one-player campaign."""
    seats = created.get(SEATS_KEY)
    if not isinstance(seats, Mapping):
        return {}
    return {str(seat): str(info.get("key")) for seat, info in seats.items()
            if isinstance(info, Mapping)}


def check_signatures(header_hash: str, signatures: Sequence[TurnSignature],
                     seats: Mapping[str, str], *, reader: str | None = None) -> str | None:
    """Check a turn file's signatures against the campaign's seat keys.

    Args:
        header_hash: The hash of the file's header, recomputed by the reader.
        signatures: The file's signatures.
        seats: Seat → public key, from the campaign's own ``created`` event.
        reader: The importing seat, if known: a file addressed to another seat is refused.

    Returns:
        The seat that signed, or ``None`` for a one-player campaign's unsigned file.

    Raises:
        IntegrityError: A two-player campaign's file is unsigned, signed by a key that is not
            one of its seats', addressed to another seat, or the signature does not match.
    """
    if not seats:
        if signatures:
            raise IntegrityError("the file is signed, but its campaign names no seat keys",
                                 fix="ask for a fresh export; the file was altered")
        return None
    if not signatures:
        raise IntegrityError(f"the turn file is not signed, but its campaign has seats "
                             f"{', '.join(sorted(seats))}",
                             fix="ask the sender for `rallypoint export --for SIDE`",
                             instead=Hint.BY_MAIL)
    for sig in signatures:
        _check_one(header_hash, sig, seats, reader)
    return signatures[0].seat


def _check_one(header_hash: str, sig: TurnSignature, seats: Mapping[str, str],
               reader: str | None) -> None:
    if sig.algorithm != ALGORITHM:
        raise IntegrityError(f"signature algorithm {sig.algorithm!r} is not supported",
                             fix="ask for a fresh export signed with ed25519")
    if seats.get(sig.seat) != sig.key_id:
        raise IntegrityError(f"the file is signed as seat {sig.seat!r} by a key that is not that "
                             "seat's key in this campaign",
                             fix="do not trust this file; ask the sender to export it again")
    if reader is not None and sig.for_seat not in (None, reader):
        raise IntegrityError(f"the turn file is addressed to seat {sig.for_seat!r}, not to you "
                             f"({reader!r})", fix="import the file meant for your seat")
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(sig.key_id))
        public.verify(bytes.fromhex(sig.signature),
                      signed_message(header_hash, sig.seat, sig.for_seat))
    except (InvalidSignature, ValueError):
        raise IntegrityError(
            f"the signature of seat {sig.seat!r} does not match the file's contents: it was "
            "edited, cut, reordered or re-hashed after it was signed",
            fix="do not trust this file; ask the sender to export it again") from None


def fingerprint(public_hex: str) -> str:
    """A short, readable fingerprint of a public key for players to compare by phone or chat."""
    try:
        raw = bytes.fromhex(public_hex)
    except ValueError:
        raise MalformedInputError(f"{public_hex[:20]!r} is not a public key",
                                  fix="copy the key from the seat card") from None
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))
