"""Sealed pair rounds: dice-v1 pair mode for a campaign whose commands are secret.

In an open pair round the acting seat sends its command and its link; the other seat sees both.
A campaign whose ruleset hides secrets (TCS's Op Sheets) cannot do that: the command names the
sheet. A sealed round sends only a **commitment** to the command (``docs/dice.md``, "Sealed pair
rounds")::

    commitment = SHA-256(SEAL_TAG || digest || nonce)
    stream     = "dice-v1/" + position + "/" + hex(SHA-256(SEALED_TAG || digest || nonce))
    key        = SHA-256(PAIR_TAG || link of each seat, in seat-name order)   (as in pair mode)

``digest`` is the command digest's 32 bytes, ``nonce`` 16 random bytes the requester's session
draws and keeps. The other seat answers with its own link only (a :class:`PairAnswer`); the
requester decides its kept command with both links. The stream names the command through a hash
the other seat cannot compute (it never learns the nonce until the reveal), so even when later
links make this round's links public, the faces of a withheld event stay hidden. The two tags
keep the commitment, which the other seat holds, from being the stream's label.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from rallypoint.dice.rollers import SeededRoller
from rallypoint.dice.v1 import (
    SCHEME,
    DiceMode,
    PairRequest,
    ProvenRoller,
    command_digest,
    command_json,
    pair_key,
    stream,
    unhex,
)
from rallypoint.dice.v1 import seal as seal  # with the proof that checks it (no import circle)
from rallypoint.dice.v1 import sealed_digest as sealed_digest

NONCE_BYTES: Final = 16
"""128 random bits per sealed request, drawn by the session (never by rule code)."""
_HEX64 = r"^[0-9a-f]{64}$"


def sealed_roller(links: Mapping[str, str], round: int, position: int,
                  command: Mapping[str, Any], nonce: bytes,
                  seat: str | None = None) -> ProvenRoller:
    """The roller of a sealed round's command, once every seat's link is known.

    The proof carries the round, both links, the nonce and the commitment, so that once whole it
    re-derives like any pair round (and the commitment checks the command was fixed before).
    """
    digest = command_digest(command)
    key = pair_key({s: unhex(link, f"link of {s}") for s, link in links.items()})
    inner = SeededRoller(key, stream(position, sealed_digest(digest, nonce)))
    return ProvenRoller(inner, DiceMode.PAIR, position, command, round=round, links=links,
                        seat=seat, sealed=(seal(digest, nonce), nonce.hex()))


class SealedRequest(BaseModel):
    """The acting seat's half of a sealed round. What travels is only seat, position, round and
    commitment (:meth:`public`); the requester's own copy also keeps the command, the nonce and
    its link, fixed before the other seat answers.

    Attributes:
        seat: The acting seat.
        position: The logical position the command is decided at.
        round: The chain index both seats reveal for this command.
        commitment: :func:`seal` of the command's digest and the nonce.
        command: The requester's copy only: the command's JSON (without its version).
        nonce: The requester's copy only: the nonce (hex).
        link: The requester's copy only: its link ``round`` (hex).
        withdrawn: The requester's copy only: withdrawn with ``rallypoint dice stall`` (no
            answer had come). Kept whole, so that an answer that crossed the withdrawal in the
            mail still resolves it while the log has not moved (docs/dice.md, "Stalled rounds").
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheme: str = SCHEME
    seat: str = Field(min_length=1, max_length=100)
    position: int = Field(ge=1)
    round: int = Field(ge=1)
    commitment: str = Field(pattern=_HEX64)
    command: dict[str, Any] | None = None
    nonce: str | None = Field(default=None, pattern=r"^[0-9a-f]{32}$")
    link: str | None = Field(default=None, pattern=_HEX64)
    withdrawn: bool = False

    @classmethod
    def make(cls, seat: str, position: int, round: int, command: Mapping[str, Any],
             nonce: bytes, link: str) -> SealedRequest:
        """The requester's whole copy of a new request."""
        return cls(seat=seat, position=position, round=round,
                   commitment=seal(command_digest(command), nonce),
                   command=command_json(command), nonce=nonce.hex(), link=link)

    def public(self) -> dict[str, Any]:
        """What the turn file carries: no command, no nonce, no link."""
        return self.model_dump(mode="json", exclude={"command", "nonce", "link", "withdrawn"})

    @property
    def whole(self) -> bool:
        """Whether this is the requester's copy (command, nonce and link kept)."""
        return None not in (self.command, self.nonce, self.link)

    @property
    def digest(self) -> str | None:
        """The kept command's digest (``None`` on the other seat's copy)."""
        return None if self.command is None else command_digest(self.command)

    def opens(self) -> bool:
        """Whether the kept command and nonce open the commitment (an untouched copy)."""
        digest = self.digest
        return (digest is not None and self.nonce is not None
                and seal(digest, bytes.fromhex(self.nonce)) == self.commitment)


class PairAnswer(BaseModel):
    """The other seat's half of a sealed round: its own link, and which request it answers.
    Kept in its store and carried in its next signed turn file header (``turn.answer``).

    Attributes:
        seat: The answering seat.
        round: The round answered (the link's chain index).
        position: The request's position.
        commitment: The request's commitment.
        link: The answerer's link ``round`` (hex).
        void: Set by ``rallypoint dice stall`` on the answerer's side: the seat that forfeited
            the round (the requester, which did not resolve it after this answer). A void
            answer burns its round for good: its link is public, so no command may use it
            (docs/dice.md, "Stalled rounds"). Carried in ``turn.voids``, never as ``answer``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheme: str = SCHEME
    seat: str = Field(min_length=1, max_length=100)
    round: int = Field(ge=1)
    position: int = Field(ge=1)
    commitment: str = Field(pattern=_HEX64)
    link: str = Field(pattern=_HEX64)
    void: str | None = Field(default=None, min_length=1, max_length=100)

    def wire(self) -> dict[str, Any]:
        """The answer as a turn header carries it (``void`` only once the round is void, so
        an answer's JSON is what it was before voids existed)."""
        return self.model_dump(mode="json", exclude={"void"} if self.void is None else set())


AnyRequest = PairRequest | SealedRequest


def public_commitment(request: AnyRequest) -> str | None:
    """What tells two requests of one seat for one round apart on the wire: a sealed one's
    commitment (a request withdrawn with ``dice stall`` may be replaced by a new one)."""
    return request.commitment if isinstance(request, SealedRequest) else None


def parse_request(data: str | Mapping[str, Any]) -> AnyRequest:
    """A kept or received request, open (:class:`PairRequest`) or sealed (it has a commitment).

    Raises:
        pydantic.ValidationError: Neither shape.
    """
    if isinstance(data, str):
        data = json.loads(data)
        if not isinstance(data, dict):
            return PairRequest.model_validate(data)  # refused, with pydantic's message
    if "commitment" in data:
        return SealedRequest.model_validate(data)
    return PairRequest.model_validate(data)
