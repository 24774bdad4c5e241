"""Seat keys: Ed25519 signatures over a turn file's header, checked against the campaign's seats."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from rallypoint.core.errors import IntegrityError
from rallypoint.store.signing import (
    SeatCard,
    SeatKey,
    check_signatures,
    fingerprint,
    seat_keys,
    signed_message,
)

HEADER = "ab" * 32


@pytest.fixture(scope="module")
def keys() -> dict[str, SeatKey]:
    return {"axis": SeatKey.generate("axis"), "soviet": SeatKey.generate("soviet")}


def seats(keys: dict[str, SeatKey]) -> dict[str, str]:
    return {seat: key.public for seat, key in keys.items()}


def test_a_signature_verifies_with_the_library_itself(keys: dict[str, SeatKey]) -> None:
    sig = keys["axis"].sign(HEADER, "soviet")
    # An independent check: the raw public key and message, straight through cryptography.
    Ed25519PublicKey.from_public_bytes(bytes.fromhex(sig.key_id)).verify(
        bytes.fromhex(sig.signature), signed_message(HEADER, "axis", "soviet"))
    assert check_signatures(HEADER, [sig], seats(keys), reader="soviet") == "axis"


def test_rfc8032_test_vector() -> None:
    # RFC 8032 §7.1, TEST 1: the empty message.
    key = SeatKey("x", bytes.fromhex(
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
    assert key.public == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    sig = Ed25519PrivateKey.from_private_bytes(key.private).sign(b"").hex()
    assert sig.startswith("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155")


def test_any_change_breaks_the_signature(keys: dict[str, SeatKey]) -> None:
    sig = keys["axis"].sign(HEADER, "soviet")
    with pytest.raises(IntegrityError, match="does not match the file's contents"):
        check_signatures("cd" * 32, [sig], seats(keys))
    readdressed = sig.model_copy(update={"for_seat": None})
    with pytest.raises(IntegrityError, match="does not match"):
        check_signatures(HEADER, [readdressed], seats(keys))


def test_only_the_campaigns_own_seat_keys_count(keys: dict[str, SeatKey]) -> None:
    stranger = SeatKey.generate("axis").sign(HEADER, "soviet")
    with pytest.raises(IntegrityError, match="not that seat's key"):
        check_signatures(HEADER, [stranger], seats(keys))
    as_other = keys["soviet"].sign(HEADER, "soviet").model_copy(update={"seat": "axis"})
    with pytest.raises(IntegrityError, match="not that seat's key"):
        check_signatures(HEADER, [as_other], seats(keys))


def test_unsigned_and_misaddressed_files(keys: dict[str, SeatKey]) -> None:
    with pytest.raises(IntegrityError, match="not signed"):
        check_signatures(HEADER, [], seats(keys))
    assert check_signatures(HEADER, [], {}) is None  # a one-player backup
    with pytest.raises(IntegrityError, match="addressed to seat 'soviet'"):
        check_signatures(HEADER, [keys["axis"].sign(HEADER, "soviet")], seats(keys),
                         reader="axis")


def test_seat_keys_and_cards(keys: dict[str, SeatKey]) -> None:
    created = {"seats": {s: {"key": k.public} for s, k in keys.items()}}
    assert seat_keys(created) == seats(keys)
    assert seat_keys({"seed": "x"}) == {}
    card = SeatCard(seat="soviet", key=keys["soviet"].public)
    assert SeatCard.model_validate_json(card.model_dump_json()) == card
    assert len(fingerprint(card.key)) == 19
