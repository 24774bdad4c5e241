"""``dice-v1``: dice neither side can bias, predict or quietly re-roll, and anyone can re-check.

Every roll of a command is drawn from a :class:`~rallypoint.dice.rollers.SeededRoller` whose key
is secret material and whose stream names *where* and *what* is being resolved::

    stream = "dice-v1/" + position + "/" + command digest

* **position** — the seq of the campaign's latest *effective* event when the command is decided
  (the ``created`` event counts; undone events and ``undone`` events do not). Undo returns the
  campaign to an earlier position, so a retried command sees the same dice; the raw version,
  which grows with every undo, is not used.
* **command digest** — SHA-256 of the canonical JSON of the command (its fields without the
  version it was made against), so dice drawn for one command cannot be replayed for another.

The key comes from one of two sources (``docs/dice.md`` has the full derivation and vectors):

* :attr:`DiceMode.SERVER` — a 32-byte per-campaign secret held by the store (solo play, or a
  server both players trust). Its commitment ``SHA-256(COMMIT_TAG || secret)`` is published in the
  ``created`` event; the secret itself is revealed only at the end (or when the players ask),
  after which every roll can be re-derived.
* :attr:`DiceMode.PAIR` — no trusted party: each seat publishes the anchor of a hash chain and
  reveals one link per round, the acting seat with its command, the other after seeing it. The
  key is ``SHA-256(PAIR_TAG || link of seat 1 || link of seat 2 || …)`` in seat-name order.

Physical dice typed in are :attr:`DiceMode.TYPED`: recorded on the same tape, never re-derived.
This module is pure: it never draws randomness (the store makes secrets and chain seeds).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from rallypoint.dice.nodes import ChanceNode
from rallypoint.dice.rollers import Roller, SeededRoller
from rallypoint.errors import IntegrityError, MalformedInputError

SCHEME: Final = "dice-v1"
COMMIT_TAG: Final = b"rallypoint dice-v1 commit\x00"
"""Prefix of the hashed secret in a server commitment (domain separation from every other hash)."""
LINK_TAG: Final = b"rallypoint dice-v1 link\x00"
"""Prefix of every step of a seat's hash chain."""
PAIR_TAG: Final = b"rallypoint dice-v1 pair\x00"
"""Prefix of the hashed links that make a pair round's key."""
SEAL_TAG: Final = b"rallypoint dice-v1 seal\x00"
"""Prefix of the hashed command digest and nonce that make a sealed request's commitment."""
SEALED_TAG: Final = b"rallypoint dice-v1 sealed dice\x00"
"""Prefix of the hashed command digest and nonce that name a sealed round's stream."""
CHAIN_LENGTH: Final = 10_000
"""Links per seat chain: one per round that rolls; a new anchor is published when it runs out."""
SECRET_BYTES: Final = 32


class DiceMode(StrEnum):
    """Where the key of a command's dice came from."""

    SERVER = "server"
    """A per-campaign secret, committed in ``created`` and revealed at the end."""
    PAIR = "pair"
    """One hash-chain link from every seat, revealed round by round."""
    TYPED = "typed"
    """Physical dice, typed in by the players (both seats agreed); nothing to re-derive."""


def _hex(data: bytes) -> str:
    return data.hex()


def unhex(text: str, what: str, size: int = SECRET_BYTES) -> bytes:
    """Parse ``size`` bytes of lower-case hex, refusing anything else with the field named."""
    try:
        data = bytes.fromhex(text)
    except (ValueError, TypeError):
        data = b""
    if len(data) != size or data.hex() != text:
        raise MalformedInputError(f"{what} is not {size} bytes of lower-case hex",
                                  where=what, fix="copy it exactly from the file it came from")
    return data


def commitment(secret: bytes) -> str:
    """The published commitment to a server secret: ``SHA-256(COMMIT_TAG || secret)`` as hex."""
    return hashlib.sha256(COMMIT_TAG + secret).hexdigest()


def command_json(command: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a command that names *what* is resolved: every field but the version."""
    return {k: v for k, v in command.items() if k != "expected_version"}


def canonical(value: Any) -> str:
    """Canonical JSON (sorted keys, no spaces, UTF-8 kept), as the event hashes use."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def command_digest(command: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of :func:`command_json`."""
    return hashlib.sha256(canonical(command_json(command)).encode("utf-8")).hexdigest()


def stream(position: int, digest: str) -> str:
    """The roller stream of a command at a logical position: ``dice-v1/<position>/<digest>``."""
    return f"{SCHEME}/{position}/{digest}"


def link_step(value: bytes) -> bytes:
    """One step down a seat's hash chain: ``SHA-256(LINK_TAG || value)``."""
    return hashlib.sha256(LINK_TAG + value).digest()


def chain_link(seed: bytes, index: int, length: int = CHAIN_LENGTH) -> bytes:
    """Link ``index`` of the chain grown from ``seed``: ``link_step`` applied ``length - index``
    times. Link 0 is the anchor; revealing link ``i`` lets anyone compute links ``< i`` and
    nobody compute links ``> i``."""
    if not 0 <= index <= length:
        raise MalformedInputError(f"chain link {index} is outside 0..{length}",
                                  fix="publish a new anchor when a chain runs out")
    value = seed
    for _ in range(length - index):
        value = link_step(value)
    return value


def chain_anchor(seed: bytes, length: int = CHAIN_LENGTH) -> str:
    """The published anchor (link 0) of the chain grown from ``seed``, as hex."""
    return _hex(chain_link(seed, 0, length))


def link_reaches(link: bytes, steps: int, target: bytes) -> bool:
    """Whether ``steps`` applications of :func:`link_step` take ``link`` to ``target``."""
    value = link
    for _ in range(steps):
        value = link_step(value)
    return value == target


def pair_key(links: Mapping[str, bytes]) -> bytes:
    """The key of a pair round: ``SHA-256(PAIR_TAG || links in seat-name order)``."""
    if len(links) < 2:
        raise MalformedInputError(f"a pair round needs a link from every seat, got {len(links)}",
                                  fix="wait for the other seat to reveal its link")
    return hashlib.sha256(PAIR_TAG + b"".join(links[s] for s in sorted(links))).digest()


class TapeRoller:
    """A roller that records every face it hands out, as ``(sides, face)``, in order.

    The tape is what a proof stores: verification regenerates it from the key without knowing
    how the ruleset arranged the rolls in its event.
    """

    def __init__(self, inner: Roller) -> None:
        self._inner = inner
        self.tape: list[tuple[int, int]] = []

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        """The inner roller's faces for ``node``, recorded on the tape."""
        faces = self._inner.faces(node)
        self.tape.extend((node.dice.sides, f) for f in faces)
        return faces


class ProvenRoller(TapeRoller):
    """A tape roller that knows where its key came from, and so can write the event's proof.

    Args:
        inner: The roller that picks the faces (seeded from the key, or the typed-in script).
        mode: Where the key came from.
        position: The logical position the command is decided at.
        command: The command's JSON (its version is dropped).
        round: Pair mode: the chain index of the links.
        links: Pair mode: seat → revealed link (hex).
        agreed: Typed mode: the seats that agreed to physical dice.
        seat: Two-seat play: the seat whose command it is.
        sealed: A sealed round (:mod:`rallypoint.dice.sealed`): its commitment and nonce (hex).
    """

    def __init__(self, inner: Roller, mode: DiceMode, position: int,
                 command: Mapping[str, Any], round: int | None = None,
                 links: Mapping[str, str] | None = None, agreed: Sequence[str] = (),
                 seat: str | None = None, sealed: tuple[str, str] | None = None) -> None:
        super().__init__(inner)
        self._proof: dict[str, Any] = {
            "mode": mode, "position": position, "command": command_json(command),
            "round": round, "links": dict(links or {}), "agreed": tuple(agreed)}
        if seat is not None:
            self._proof["seat"] = seat
        if sealed is not None:
            self._proof["commitment"], self._proof["nonce"] = sealed

    def proof(self) -> DiceProof | None:
        """The proof of every die rolled so far, or ``None`` if none was."""
        if not self.tape:
            return None
        return DiceProof.model_validate({**self._proof, "tape": tuple(self.tape)})


def server_roller(secret: bytes, position: int, command: Mapping[str, Any]) -> ProvenRoller:
    """The roller of a command in a server-mode campaign."""
    inner = SeededRoller(secret, stream(position, command_digest(command)))
    return ProvenRoller(inner, DiceMode.SERVER, position, command)


def pair_roller(links: Mapping[str, str], round: int, position: int,
                command: Mapping[str, Any], seat: str | None = None) -> ProvenRoller:
    """The roller of a command in a pair round, once every seat has revealed its link.

    ``seat`` names the seat whose command it is (kept in the proof: only the *other* seat may
    undo the event, which is how its consent is given).
    """
    key = pair_key({s: unhex(link, f"link of {s}") for s, link in links.items()})
    inner = SeededRoller(key, stream(position, command_digest(command)))
    return ProvenRoller(inner, DiceMode.PAIR, position, command, round=round, links=links,
                        seat=seat)


def typed_roller(script: Roller, position: int, command: Mapping[str, Any],
                 agreed: Sequence[str] = (), seat: str | None = None) -> ProvenRoller:
    """Physical dice typed in (``--dice``): the same tape, marked :attr:`DiceMode.TYPED`."""
    return ProvenRoller(script, DiceMode.TYPED, position, command, agreed=agreed, seat=seat)


def regenerate(key: bytes, position: int, digest: str, sides: Sequence[int]) -> list[int]:
    """The faces ``dice-v1`` gives for dice of ``sides``, in order, at a position and command."""
    roller = SeededRoller(key, stream(position, digest))
    return [roller.face(s) for s in sides]


class DiceProof(BaseModel):
    """How one event's dice were drawn: stored with the event, covered by its hash.

    Attributes:
        scheme: Always ``dice-v1``.
        mode: Where the key came from.
        position: The logical position the command was decided at.
        command: The command's JSON (without its version); its digest keys the stream.
        tape: Every die rolled, in order, as ``[sides, face]``.
        round: Pair mode: the chain index every seat revealed.
        links: Pair mode: seat → revealed link (hex).
        agreed: Typed mode: the seats that agreed to physical dice.
        seat: Two-seat play: the seat whose command it was (absent in one-player campaigns).
        commitment: A sealed round: the commitment its request carried
            (:func:`rallypoint.dice.sealed.seal` of the digest and the nonce).
        nonce: A sealed round: the requester's nonce (hex); the stream names
            :func:`rallypoint.dice.sealed.sealed_digest` in place of the digest.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheme: str = SCHEME
    mode: DiceMode
    position: int = Field(ge=1)
    command: dict[str, Any]
    tape: tuple[tuple[int, int], ...]
    round: int | None = None
    links: dict[str, str] = Field(default_factory=dict)
    agreed: tuple[str, ...] = ()
    seat: str | None = None
    commitment: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    nonce: str | None = Field(default=None, pattern=r"^[0-9a-f]{32}$")

    @property
    def digest(self) -> str:
        """The command digest (of an open round, also what the stream names)."""
        return command_digest(self.command)

    @property
    def sealed(self) -> bool:
        """Whether the round was sealed (its request carried a commitment, not the command)."""
        return self.commitment is not None or self.nonce is not None

    @property
    def stream_digest(self) -> str:
        """What the stream names: the digest, or a sealed round's hash of digest and nonce."""
        if self.nonce is None:
            return self.digest
        return sealed_digest(self.digest, bytes.fromhex(self.nonce))

    def check_seal(self) -> str | None:
        """A sealed proof: ``None`` if command and nonce open the commitment, else the problem."""
        if self.commitment is None or self.nonce is None:
            return "a sealed round's proof needs both its commitment and its nonce"
        if seal(self.digest, bytes.fromhex(self.nonce)) != self.commitment:
            return (f"round {self.round}'s command and nonce do not open the commitment its "
                    "request carried (the command or the nonce was changed after the request)")
        return None

    def check_faces(self, key: bytes) -> str | None:
        """Regenerate the tape from ``key``; ``None`` if it matches, else what differs."""
        sides = [s for s, _ in self.tape]
        expected = regenerate(key, self.position, self.stream_digest, sides)
        got = [f for _, f in self.tape]
        for index, (want, have) in enumerate(zip(expected, got, strict=True)):
            if want != have:
                return (f"die {index + 1} (d{sides[index]}) is {have}, dice-v1 gives {want} "
                        f"at position {self.position}")
        return None


@dataclass(frozen=True)
class ProofHead:
    """The public parts of a dice proof, readable when the rest is withheld from the reader
    (a redacted event of a partial log keeps ``mode``, ``position``, ``round``, ``seat``,
    ``scheme``; TCS withholds ``command``, ``tape``, ``links`` and ``nonce``).

    Attributes:
        mode: Where the key came from.
        position: The logical position the command was decided at.
        round: Pair mode: the round used.
        seat: Two-seat play: whose command it was.
        commitment: A sealed round's commitment, when it is shown.
        whole: Nothing of the proof is withheld.
    """

    mode: DiceMode
    position: int
    round: int | None
    seat: str | None
    commitment: str | None
    whole: bool


def _withholds(value: Any) -> bool:
    """Whether a JSON value holds a ``{"$withheld": side}`` marker anywhere."""
    if isinstance(value, Mapping):
        return "$withheld" in value or any(_withholds(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_withholds(v) for v in value)
    return False


def proof_head(raw: Any) -> ProofHead | None:
    """The public parts of a stored proof (``None``: not a proof, or its head is withheld)."""
    if not isinstance(raw, Mapping):
        return None
    mode, position, round_ = raw.get("mode"), raw.get("position"), raw.get("round")
    seat, commitment_ = raw.get("seat"), raw.get("commitment")
    if mode not in tuple(DiceMode) or type(position) is not int:
        return None
    if round_ is not None and type(round_) is not int:
        return None
    return ProofHead(DiceMode(mode), position, round_, seat if isinstance(seat, str) else None,
                     commitment_ if isinstance(commitment_, str) else None, not _withholds(raw))


class PairRequest(BaseModel):
    """The acting seat's half of a pair round: its command, fixed before the other seat's link
    is known, with its own link of the round. Travels in a signed turn file.

    Attributes:
        seat: The acting seat.
        position: The logical position the command is decided at.
        round: The chain index both seats reveal for this command.
        command: The command's JSON (without its version).
        link: The acting seat's link ``round`` (hex).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheme: str = SCHEME
    seat: str = Field(min_length=1, max_length=100)
    position: int = Field(ge=1)
    round: int = Field(ge=1)
    command: dict[str, Any]
    link: str = Field(pattern=r"^[0-9a-f]{64}$")

    @property
    def digest(self) -> str:
        """The command digest the round's dice are keyed by."""
        return command_digest(self.command)


class ServerCommitment(BaseModel):
    """What the ``created`` event publishes about a server-mode campaign's dice."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheme: str = SCHEME
    mode: DiceMode = DiceMode.SERVER
    commitment: str


class PairAnchors(BaseModel):
    """What the ``created`` event publishes about a pair-mode campaign: each seat's anchor."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheme: str = SCHEME
    mode: DiceMode = DiceMode.PAIR
    anchors: dict[str, str]
    chain_length: int = CHAIN_LENGTH


def check_reveal(commitment_hex: str, secret_hex: str) -> bytes:
    """The secret of a reveal, if it opens the commitment.

    Raises:
        IntegrityError: The revealed secret does not hash to the published commitment.
    """
    secret = unhex(secret_hex, "revealed secret")
    if commitment(secret) != commitment_hex:
        raise IntegrityError("the revealed dice secret does not match the commitment published "
                             "when the campaign was created",
                             fix="the reveal was forged or belongs to another campaign; "
                                 "do not trust this file's rolls")
    return secret


class ChainTracker:
    """Checks the links a seat reveals against its anchor, in O(total chain walked).

    Each seat's latest verified ``(index, link)`` is kept: a later index must hash down to it, an
    equal index (a retry after an undo) must repeat it, and an earlier index must be reachable
    from it (it was already implied by the later link).
    """

    def __init__(self, anchors: Mapping[str, str], length: int) -> None:
        self._length = length
        self._known = {seat: (0, unhex(a, f"anchor of {seat}")) for seat, a in anchors.items()}

    @property
    def seats(self) -> tuple[str, ...]:
        """Seats with an anchor, in name order."""
        return tuple(sorted(self._known))

    def accept(self, seat: str, index: int, link_hex: str) -> bytes:
        """Check one revealed link; return it as bytes.

        Raises:
            IntegrityError: Unknown seat, index out of range, or a link that is not on the chain.
        """
        if seat not in self._known:
            raise IntegrityError(f"a link from seat {seat!r}, which published no anchor",
                                 fix="only the seats named in 'created' take part in rounds")
        if not 1 <= index <= self._length:
            raise IntegrityError(f"round {index} is outside 1..{self._length}",
                                 fix="publish new anchors when a chain runs out")
        link = unhex(link_hex, f"link {index} of {seat}")
        known_index, known = self._known[seat]
        if index >= known_index:
            ok = link_reaches(link, index - known_index, known)
        else:
            ok = link_reaches(known, known_index - index, link)
        if not ok:
            raise IntegrityError(f"link {index} of seat {seat!r} is not on the chain its anchor "
                                 "committed to", fix="the link was forged or mistyped")
        if index > known_index:
            self._known[seat] = (index, link)
        return link


def seal(digest: str, nonce: bytes) -> str:
    """A sealed round's commitment (:mod:`rallypoint.dice.sealed`) to a command digest (hex)
    and a nonce: ``SHA-256(SEAL_TAG || d || n)``."""
    return hashlib.sha256(SEAL_TAG + unhex(digest, "command digest") + nonce).hexdigest()


def sealed_digest(digest: str, nonce: bytes) -> str:
    """What a sealed round's stream names in place of the command digest (hex)."""
    return hashlib.sha256(SEALED_TAG + unhex(digest, "command digest") + nonce).hexdigest()
