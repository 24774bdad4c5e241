"""Re-check every roll of a campaign log offline (``rallypoint verify FILE``).

The audit walks the log once, tracking the logical position (the latest effective event) and
each seat's hash chain, and for every event that rolled:

1. its :class:`~rallypoint.dice.v1.DiceProof` names the position the log says it was decided at;
2. the faces on the proof's tape are the faces ``dice-v1`` derives from the key (the revealed
   server secret, or every seat's revealed link) — or the proof says they were typed in;
3. the faces stored in the event's rolls are exactly the faces on the tape.

Campaigns made before ``dice-v1`` carry their seed in plain text; their rolls are re-derived
from it (``SeededRoller(seed, "v<version>")``), and a roll that does not reproduce is reported
— before ``dice-v1``, typed-in dice were not marked, so that is all the audit can say.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Mapping, MutableSequence, Sequence
from typing import Any, Final, Protocol, runtime_checkable

from pydantic import ValidationError

from rallypoint.dice.nodes import Roll
from rallypoint.dice.report import DiceReport, DiceTally, EventDice, Tallies, Verdict
from rallypoint.dice.rollers import SeededRoller
from rallypoint.dice.v1 import (
    ChainTracker,
    DiceMode,
    DiceProof,
    PairAnchors,
    ServerCommitment,
    check_reveal,
    pair_key,
    proof_head,
)
from rallypoint.errors import IntegrityError, MalformedInputError

PROOF_KEY: Final = "dice_proof"
"""The payload key under which an event carries its :class:`DiceProof`."""
DICE_KEY: Final = "dice"
"""The ``created`` payload key holding the commitment or the seats' anchors."""
_CREATED, _UNDONE = "created", "undone"
_REDACTED: Final = "$redacted"
"""The payload key of an event redacted for the reader before issue 18 (``core.visibility``)."""
_WITHHELD: Final = "$withheld"
"""The payload key of an event redacted for the reader: one opaque part per owner."""


def _is_redacted(payload: Mapping[str, Any]) -> bool:
    """Whether a payload was redacted for the reader, in either format."""
    return _REDACTED in payload or isinstance(payload.get(_WITHHELD), Mapping)


class LoggedEvent(Protocol):
    """What the audit reads of a stored event (an ``EventRecord`` fits)."""

    @property
    def seq(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def payload(self) -> dict[str, Any]: ...


RollsOf = Callable[[LoggedEvent], Sequence[Roll]]
"""Reads the rolls stored in a logged event (its typed event's rolls, e.g. ``Campaign.rolls``:
a payload alone does not say which event type it is)."""


class _Walk:
    """State carried along the log: the effective stack, the key material, pair rounds."""

    def __init__(self, created: Mapping[str, Any], revealed: str | None,
                 burnt: Collection[int] = ()) -> None:
        self.stack: array[int] = array("q", [1])  # seqs in effect: 8 bytes each
        self.burnt = frozenset(burnt)  # rounds a stall made void: the next round skips them
        self.seed: str | None = None
        self.secret: bytes | None = None
        self.chains: ChainTracker | None = None
        self.rounds: dict[int, int] = {}  # position → round index used there
        self.last_round = 0
        self.gap = False  # a withheld event since the last round: it may have used rounds
        spec = created.get(DICE_KEY)
        if spec is None and "seed" in created:
            self.scheme, self.seed = "legacy seed", str(created["seed"])
            return
        self.scheme = "dice-v1"
        if not isinstance(spec, dict):
            raise IntegrityError("the 'created' event names no dice scheme",
                                 where="seq 1", fix="this is not a rallypoint campaign log")
        try:
            if spec.get("mode") == DiceMode.PAIR:
                anchors = PairAnchors.model_validate(spec)
                self.chains = ChainTracker(anchors.anchors, anchors.chain_length)
            else:
                server = ServerCommitment.model_validate(spec)
                if revealed is not None:
                    self.secret = check_reveal(server.commitment, revealed)
        except ValidationError as exc:
            raise IntegrityError(f"the dice scheme in 'created' is malformed: "
                                 f"{exc.errors()[0]['msg']}", where="seq 1",
                                 fix="ask for a fresh export") from None

    @property
    def position(self) -> int:
        return self.stack[-1]

    def advance(self, event: LoggedEvent) -> None:
        """Move the logical position past ``event``."""
        _advance(self.stack, event)


def audit(events: Sequence[LoggedEvent], rolls_of: RollsOf,
          revealed_secret: str | None = None, withheld: Collection[int] = (),
          burnt: Collection[int] = ()) -> DiceReport:
    """Re-check every roll of a log.

    Args:
        events: The whole log, ``created`` first.
        rolls_of: Reads an event's stored rolls (the campaign's ruleset).
        revealed_secret: A server-mode secret (hex) revealed with the file; checked against the
            commitment before any roll is derived from it.
        withheld: Seqs of events redacted for the file's reader (a turn file ``--for`` a
            seat): their dice are not checked (they are counted as withheld), and the pair
            rounds they used may be missing from the rounds the audit sees.
        burnt: Rounds made void by a stall (``rallypoint dice stall``; the ``turn.voids`` of a
            turn file, or a database's own): never used, so the round after one follows on.

    Raises:
        IntegrityError: The log has no ``created`` event, or a revealed secret does not open the
            commitment.
    """
    if not events or events[0].type != _CREATED:
        raise IntegrityError("the log does not start with a 'created' event",
                             fix="pass a whole campaign export")
    auditor = Auditor(events[0], rolls_of, revealed_secret, withheld, burnt)
    for event in events[1:]:
        auditor.add(event)
    return auditor.report()


class Auditor:
    """:func:`audit` one event at a time (``verify FILE`` in one streaming pass): what it keeps
    is the walk (the seqs in effect, 8 bytes each; the pair rounds used) and the verdicts of the
    events that rolled, which the report lists.

    Args:
        created: The ``created`` event.
        rolls_of: Reads an event's stored rolls.
        revealed_secret: As :func:`audit`.
        withheld: As :func:`audit`.
        burnt: As :func:`audit`.
        failures_only: Keep only the verdicts that failed (a streamed import asks whether any
            did, not for the list): memory then does not grow with the rolls that check.

    Raises:
        IntegrityError: A revealed secret does not open the commitment, or ``created`` names
            no dice scheme.
    """

    def __init__(self, created: LoggedEvent, rolls_of: RollsOf,
                 revealed_secret: str | None = None, withheld: Collection[int] = (),
                 burnt: Collection[int] = (), *, failures_only: bool = False) -> None:
        self._walk = _Walk(created.payload, revealed_secret, burnt)
        self._rolls_of = rolls_of
        self._withheld = withheld
        self._failures_only = failures_only
        self._results: list[EventDice] = []
        self._tallies = Tallies()

    @property
    def position(self) -> int:
        """The logical position after the events added so far (:func:`logical_position`)."""
        return self._walk.position

    def _keep(self, found: EventDice) -> None:
        self._tallies.add(found)
        if not self._failures_only or found.verdict is Verdict.FAILED:
            self._results.append(found)

    def add(self, event: LoggedEvent) -> None:
        """Audit the next event's dice and move past it."""
        walk = self._walk
        if event.seq in self._withheld or _is_redacted(event.payload):
            self._keep(_withheld(walk, event))
        elif event.type != _UNDONE:
            rolls = list(self._rolls_of(event))
            found = _check_event(walk, event, rolls)
            if found is not None:
                self._keep(found)
        walk.advance(event)

    def report(self) -> DiceReport:
        """Every rolling event's verdict so far (with ``failures_only``: the failed ones)."""
        return DiceReport(scheme=self._walk.scheme, events=tuple(self._results))

    def tally(self) -> DiceTally:
        """Every rolling event so far, counted by verdict (whatever ``failures_only`` keeps)."""
        return self._tallies.tally(self._walk.scheme)


def _withheld(walk: _Walk, event: LoggedEvent) -> EventDice:
    """An event redacted for the reader: its faces wait for the reveal, but a proof whose head
    is public (position, round, seat) still takes its round, in order."""
    raw = event.payload.get(PROOF_KEY)
    head = proof_head(raw)
    if head is None or head.mode is not DiceMode.PAIR or head.round is None:
        # A proof withheld whole may have used rounds the reader cannot see; no proof at all
        # rolled nothing. An old redaction kept a withheld key's marker and listed its path;
        # the current one leaves nothing in its place, but the declarations withhold a proof's
        # command, tape, links and nonce, never its head (position, round, seat), so a proof
        # the reader cannot see at all is no proof.
        paths = event.payload.get(_REDACTED)
        named = isinstance(paths, list) and any(
            isinstance(p, dict) and (p.get("path") or [None])[0] == PROOF_KEY for p in paths)
        walk.gap = walk.gap or raw is not None or named
        return EventDice(seq=event.seq, verdict=Verdict.WITHHELD, dice=0)
    problem = (_round_problem(walk, head.position, head.round)
               if head.position == walk.position else
               f"decided at position {head.position}, but the log puts it at {walk.position}")
    if problem is not None:
        return EventDice(seq=event.seq, verdict=Verdict.FAILED, dice=0, reason=problem)
    _take_round(walk, head.position, head.round)
    return EventDice(seq=event.seq, verdict=Verdict.WITHHELD, dice=0)


def _check_event(walk: _Walk, event: LoggedEvent, rolls: list[Roll]) -> EventDice | None:
    """The verdict on one event, or ``None`` when it neither rolled nor carries a proof."""
    raw = event.payload.get(PROOF_KEY)
    count = sum(len(r.faces) for r in rolls)
    if walk.seed is not None:
        return _legacy(walk.seed, event, rolls, raw) if rolls else None
    if raw is None:
        if not rolls:
            return None
        return EventDice(seq=event.seq, verdict=Verdict.FAILED, dice=count,
                         reason="rolled without a dice-v1 proof")
    try:
        proof = DiceProof.model_validate(raw)
    except ValidationError as exc:
        return EventDice(seq=event.seq, verdict=Verdict.FAILED, dice=count,
                         reason=f"malformed dice proof: {exc.errors()[0]['msg']}")
    dice = len(proof.tape)

    def failed(reason: str) -> EventDice:
        return EventDice(seq=event.seq, verdict=Verdict.FAILED, dice=dice, reason=reason)

    if proof.position != walk.position:
        return failed(f"decided at position {proof.position}, but the log puts it at "
                      f"{walk.position} (moved or replayed from elsewhere)")
    stored = _stored_tape(rolls)
    if stored is None:
        return failed(_BAD_LABEL)
    if stored != Counter(proof.tape):
        return failed("the faces stored in the event are not the faces on the proof's tape")
    if proof.mode is DiceMode.TYPED:
        return EventDice(seq=event.seq, verdict=Verdict.TYPED, dice=dice,
                         reason="agreed by " + (", ".join(proof.agreed) or "the player"))
    try:
        key = _key(walk, proof)
    except (IntegrityError, MalformedInputError) as exc:
        return failed(exc.what)
    if key is None:
        return EventDice(seq=event.seq, verdict=Verdict.COMMITTED, dice=dice)
    problem = proof.check_seal() if proof.sealed else None
    problem = problem or proof.check_faces(key)
    if problem is not None:
        return failed(problem)
    return EventDice(seq=event.seq, verdict=Verdict.VERIFIED, dice=dice)


_DICE: Final = re.compile(r"([1-9][0-9]*)?d([1-9][0-9]*)")
"""A roll's dice label: ``2d6``, or ``d66`` (a die per digit: tens and units)."""


def sides_of(roll: Roll) -> int:
    """Sides of each die of a stored roll: ``2d6`` → 6, ``d66`` (tens and units) → 6.

    Raises:
        ValueError: The label is neither (an edited roll: the audit fails its event).
    """
    found = _DICE.fullmatch(roll.dice)
    if found is not None and found[1] is not None:
        return int(found[2])
    digits = found[2] if found is not None else ""
    half = len(digits) // 2
    if not digits or len(digits) % 2 or digits[:half] != digits[half:]:
        raise ValueError(f"a stored roll's dice {roll.dice!r} are not NdS or dSS")
    return int(digits[:half])


def _stored_tape(rolls: Sequence[Roll]) -> Counter[tuple[int, int]] | None:
    """The stored faces with their dice's sides, as a proof's tape holds them; ``None`` when a
    roll's dice label reads as no dice (edited)."""
    try:
        return Counter((sides_of(r), f) for r in rolls for f in r.faces)
    except ValueError:
        return None


_BAD_LABEL: Final = "a stored roll's dice label reads as no dice (edited?)"


@runtime_checkable
class WalkedLog(Protocol):
    """A log whose logical position and highest pair round were taken as it was read once (a
    streamed import's rows, :mod:`rallypoint.session.row_log`): the functions that would walk
    it again (:func:`logical_position`, ``pair.last_round``) read them instead."""

    @property
    def position(self) -> int: ...
    @property
    def last_round(self) -> int: ...


def logical_position(events: Sequence[LoggedEvent]) -> int:
    """The seq of the latest effective event of a log (``created`` counts, undone ones do not):
    the position a command decided now is keyed by."""
    if isinstance(events, WalkedLog):
        return events.position
    walk = Positions()
    for event in events[1:]:
        walk.add(event)
    return walk.position


class Positions:
    """:func:`logical_position` taken one event at a time, as a log is read (a page of stored
    rows at a time): it keeps the seqs in effect, 8 bytes each."""

    def __init__(self) -> None:
        self._stack: array[int] = array("q", [1])

    @property
    def position(self) -> int:
        """The logical position after the events added so far."""
        return self._stack[-1]

    def add(self, event: LoggedEvent) -> None:
        """Move past the next event (``created`` moves nothing)."""
        _advance(self._stack, event)


def _advance(stack: MutableSequence[int], event: LoggedEvent) -> None:
    """Move an effective-event stack past ``event``: an undo pops its target, others push.

    The stack holds seqs in ascending order (events come in seq order), so a membership test is
    a bisection and a push compares with the top: the walk stays linear in the log's length.
    """
    if event.type == _UNDONE:
        target = event.payload.get("target")
        if type(target) is int:
            at = bisect.bisect_left(stack, target, 1)
            if at < len(stack) and stack[at] == target:
                del stack[at]
    elif event.type != _CREATED and (not stack or stack[-1] < event.seq):
        stack.append(event.seq)


def _key(walk: _Walk, proof: DiceProof) -> bytes | None:
    """The key of a proof's stream, or ``None`` while a server secret is unrevealed."""
    if proof.mode is DiceMode.SERVER:
        if walk.chains is not None:
            raise IntegrityError("a server-mode roll in a pair-mode campaign")
        return walk.secret
    if walk.chains is None:
        raise IntegrityError("a pair-mode roll in a server-mode campaign")
    if proof.round is None:
        raise IntegrityError("a pair-mode roll names no round")
    if set(proof.links) != set(walk.chains.seats):
        raise IntegrityError(f"round {proof.round} has links from {sorted(proof.links)}, "
                             f"not from every seat {list(walk.chains.seats)}")
    problem = _round_problem(walk, proof.position, proof.round)
    if problem is not None:
        raise IntegrityError(problem)
    links = {seat: walk.chains.accept(seat, proof.round, link)
             for seat, link in proof.links.items()}
    _take_round(walk, proof.position, proof.round)
    return pair_key(links)


def _round_problem(walk: _Walk, position: int, round_: int) -> str | None:
    """What is wrong with the round an event used, if it is out of order (a round is used once,
    or again only when the same position is retried after an undo)."""
    earlier = walk.rounds.get(position)
    skipped_unseen = walk.gap and round_ > walk.last_round
    expected = walk.last_round + 1
    allowed = {expected}
    while expected in walk.burnt:  # a void round is skipped, never used (docs/dice.md) ...
        expected += 1
        allowed.add(expected)  # ... unless its resolution won the race with the void
    if round_ != earlier and round_ not in allowed and not skipped_unseen:
        return (f"round {round_} is out of order (next is {expected}) — a round is "
                "used once, or again only when the same position is retried after an undo")
    return None


def _take_round(walk: _Walk, position: int, round_: int) -> None:
    """Record the round an event at ``position`` used."""
    walk.rounds[position] = round_
    walk.last_round = max(walk.last_round, round_)
    walk.gap = False


def _legacy(seed: str, event: LoggedEvent, rolls: list[Roll], raw: Any = None) -> EventDice:
    """A plain-seed event: its rolls, in stored order, from ``SeededRoller(seed, v<seq-1>)``,
    unless its proof marks them typed in (and holds exactly the faces stored)."""
    count = sum(len(r.faces) for r in rolls)
    if _stored_tape(rolls) is None:
        return EventDice(seq=event.seq, verdict=Verdict.FAILED, dice=count, reason=_BAD_LABEL)
    if raw is not None:
        try:
            proof = DiceProof.model_validate(raw)
        except ValidationError as exc:
            return EventDice(seq=event.seq, verdict=Verdict.FAILED, dice=count,
                             reason=f"malformed dice proof: {exc.errors()[0]['msg']}")
        if proof.mode is DiceMode.TYPED and _stored_tape(rolls) == Counter(proof.tape):
            return EventDice(seq=event.seq, verdict=Verdict.TYPED, dice=count,
                             reason="typed in by the player")
    roller = SeededRoller(seed, f"v{event.seq - 1}")
    for r in rolls:
        sides = sides_of(r)
        for face in r.faces:
            if roller.face(sides) != face:
                return EventDice(seq=event.seq, verdict=Verdict.FAILED, dice=count,
                                 reason=f"{r.purpose!r} does not reproduce from the public seed "
                                        "(typed-in dice were not marked before dice-v1)")
    return EventDice(seq=event.seq, verdict=Verdict.LEGACY, dice=count)
