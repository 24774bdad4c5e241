"""Pair-mode dice in play: the round of a command, from this player's chain and the other seat's
request or answer (docs/dice.md, "Pair mode in play by e-mail").

A command that rolls in a pair-mode campaign needs one link from every seat. The acting seat
fixes its command with its own link (a :class:`~rallypoint.dice.v1.PairRequest`, kept in the
store and sent in its next signed turn file) before it can know the other's; the other seat,
having imported it, answers with its link (``rallypoint dice answer``), which fixes the dice, and
appends the event. A retry at the same position after an undo reuses that round's public links.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, IntegrityError
from rallypoint.dice.audit import PROOF_KEY, LoggedEvent, WalkedLog
from rallypoint.dice.sealed import (
    NONCE_BYTES,
    AnyRequest,
    SealedRequest,
    parse_request,
    sealed_roller,
)
from rallypoint.dice.v1 import (
    CHAIN_LENGTH,
    ChainTracker,
    DiceMode,
    DiceProof,
    PairRequest,
    ProofHead,
    ProvenRoller,
    chain_link,
    command_digest,
    command_json,
    pair_roller,
    proof_head,
)
from rallypoint.errors import Hint
from rallypoint.store import EventStore

if TYPE_CHECKING:
    from rallypoint.store.signing import SeatCard


class AwaitingDice(IllegalNowError):
    """The command rolls in a pair round, and the other seat's link has not come back yet.

    Nothing is written to the log; this seat's request is kept and goes out with its next
    ``rallypoint export --for SIDE``.
    """

    code = "awaiting-dice"


def pair_proofs(log: Sequence[LoggedEvent]) -> list[tuple[int, DiceProof]]:
    """``(seq, proof)`` of every event of ``log`` that rolled in a pair round and whose proof
    is whole (a proof partly withheld from this reader is in :func:`pair_rounds` only)."""
    found = []
    for event in log:
        raw = event.payload.get(PROOF_KEY)
        head = proof_head(raw)
        if head is not None and head.mode is DiceMode.PAIR and head.whole:
            try:
                found.append((event.seq, DiceProof.model_validate(raw)))
            except ValidationError:
                continue  # the audit reports it; here it only cannot be a round
    return found


def pair_rounds(log: Sequence[LoggedEvent]) -> list[tuple[int, ProofHead]]:
    """``(seq, public head)`` of every pair round of ``log``, whole or partly withheld."""
    found = []
    for event in log:
        head = proof_head(event.payload.get(PROOF_KEY))
        if head is not None and head.mode is DiceMode.PAIR and head.round is not None:
            found.append((event.seq, head))
    return found


def last_round(log: Sequence[LoggedEvent]) -> int:
    """The highest round any event of ``log`` used (0: none yet), withheld proofs included."""
    if isinstance(log, WalkedLog):
        return log.last_round
    return max((h.round or 0 for _, h in pair_rounds(log)), default=0)


def burnt_round(store: EventStore, campaign_id: str) -> int:
    """The highest round a stall made void (0: none): its answer's link is public, so no
    command may use it, and the next round is the one after (docs/dice.md, "Stalled rounds").

    Both databases hold the void: the answerer's own, and the requester's copy from the
    answerer's signed ``turn.voids``.
    """
    burnt = 0
    for round_, _, text in store.dice_answers(campaign_id):
        if json.loads(text).get("void") is not None:
            burnt = max(burnt, round_)
    return burnt


def round_after(log: Sequence[LoggedEvent], burnt: int) -> int:
    """The round the next rolling command takes: after every round ``log`` used and after
    ``burnt``, the highest round a stall made void (docs/dice.md, "Stalled rounds")."""
    return max(last_round(log), burnt) + 1


def next_round(store: EventStore, campaign_id: str, log: Sequence[LoggedEvent]) -> int:
    """:func:`round_after` the log, with the rounds this store holds void."""
    return round_after(log, burnt_round(store, campaign_id))


@dataclass
class PairSeat:
    """This store's part in a pair-mode campaign, read once for one command.

    ``sealed``: the campaign's ruleset hides secrets, so its rounds are sealed (a request
    carries a commitment, not the command; docs/dice.md "Sealed pair rounds"); ``nonce`` is the
    128 random bits a new sealed request of this command would commit with (drawn here, by the
    session, never by rule code).
    """

    store: EventStore
    campaign_id: str
    cards: dict[str, SeatCard]
    seeds: dict[str, bytes]
    """Seat → chain seed, for the seats whose keys this store holds."""
    length: int
    sealed: bool = False
    nonce: bytes = b""
    _log: Sequence[LoggedEvent] | None = None

    @classmethod
    def read(cls, store: EventStore, campaign_id: str, spec: Mapping[str, Any],
             cards: dict[str, SeatCard], *, sealed: bool = False) -> PairSeat:
        """Read this store's seats (the rounds and requests are read when a die is needed)."""
        seeds = {}
        for seat, card in cards.items():
            kept = store.seat_key(card.key)
            if kept is not None:
                seeds[seat] = bytes.fromhex(kept.chain_seed)
        return cls(store, campaign_id, cards, seeds, int(spec.get("chain_length", CHAIN_LENGTH)),
                   sealed, secrets.token_bytes(NONCE_BYTES) if sealed else b"")

    @property
    def log(self) -> Sequence[LoggedEvent]:
        """The whole log (read once, when the command first rolls)."""
        if self._log is None:
            self._log = self.store.events(self.campaign_id)
        return self._log

    @property
    def proofs(self) -> list[tuple[int, DiceProof]]:
        """Every whole pair-round proof of the log."""
        return pair_proofs(self.log)

    @property
    def requests(self) -> dict[int, AnyRequest]:
        """The kept requests, by round."""
        return {r: parse_request(text)
                for r, _, text in self.store.dice_requests(self.campaign_id)}

    def roller(self, position: int, command: dict[str, Any]) -> ProvenRoller:
        """The roller of ``command`` at ``position``, or :class:`AwaitingDice` (request kept).

        Raises:
            AwaitingDice: This seat's request is kept; the other seat must answer it.
            IllegalNowError: Another request waits (this seat's or the other's), or this store
                holds none of the campaign's seat keys.
        """
        digest = command_digest(command)
        for _, proof in self.proofs:
            if proof.position == position and proof.digest == digest:
                # A retry after an undo: the round's links are public, the dice the same.
                return _again(proof, command)
        round_ = next_round(self.store, self.campaign_id, self.log)
        if set(self.seeds) == set(self.cards):
            # Every seat's chain is here (one screen at the table): the round is immediate.
            links = {s: chain_link(seed, round_, self.length).hex()
                     for s, seed in self.seeds.items()}
            if self.sealed:
                return sealed_roller(links, round_, position, command, self.nonce)
            return pair_roller(links, round_, position, command)
        if not self.seeds:
            raise IllegalNowError("this database holds no seat key of this two-seat campaign, "
                                  "so it cannot take part in its dice rounds",
                                  fix="Play it from the database your `rallypoint seat new` used",
                                  instead=Hint.BY_MAIL)
        me = next(iter(self.seeds))
        waiting = self.requests.get(round_)
        if isinstance(waiting, SealedRequest) and waiting.withdrawn and waiting.seat == me:
            # Withdrawn with `dice stall`: this seat may ask again (the round was not answered
            # here; an answer that crossed it binds it, and the other seat refuses a new one).
            self.store.drop_dice_request(self.campaign_id, round_)
            waiting = None
        if waiting is not None:
            return self._answer(waiting, me, round_, position, command, digest)
        link = chain_link(self.seeds[me], round_, self.length).hex()
        request: AnyRequest
        if self.sealed:
            request = SealedRequest.make(me, position, round_, command, self.nonce, link)
        else:
            request = PairRequest(seat=me, position=position, round=round_,
                                  command=command_json(command), link=link)
        self.store.put_dice_request(self.campaign_id, round_, me, request.model_dump_json())
        raise self._awaiting(request)

    def _answer(self, waiting: AnyRequest, me: str, round_: int, position: int,
                command: dict[str, Any], digest: str) -> ProvenRoller:
        """Resolve a kept open request, if ``command`` is the one it asked for at ``position``
        (a sealed one is resolved by :func:`rallypoint.session.sealed_answers.resolve_answer`)."""
        same = waiting.position == position and waiting.digest == digest
        if waiting.seat == me:
            if same:
                raise self._awaiting(waiting)
            raise IllegalNowError(
                f"your dice request for round {round_} (another command) is waiting for "
                f"{self._other(me)}'s link; nothing else can be decided until it comes back",
                fix=f"Send it with `rallypoint export --for {self._other(me)} FILE`, then "
                    "import their answer", instead=Hint.BY_MAIL)
        if not same or isinstance(waiting, SealedRequest):
            raise IllegalNowError(
                f"{waiting.seat}'s command is waiting for your dice (round {round_}); it must "
                "be resolved before anything else", fix="Answer it: `rallypoint dice answer`",
                instead=Hint.BY_MAIL)
        links = {waiting.seat: waiting.link,
                 me: chain_link(self.seeds[me], round_, self.length).hex()}
        return pair_roller(links, round_, position, waiting.command, waiting.seat)

    def _other(self, me: str) -> str:
        return next((s for s in sorted(self.cards) if s != me), me)

    def _awaiting(self, request: AnyRequest) -> AwaitingDice:
        other = self._other(request.seat)
        what = ("your sealed command (only its commitment goes out) and your link are"
                if isinstance(request, SealedRequest) else "your command and your link are")
        return AwaitingDice(
            f"dice round {request.round} needs {other}'s link: {what} kept, and nothing was "
            "written to the log",
            fix=f"Send them with `rallypoint export --for {other} FILE`; when {other} has "
                "answered (`rallypoint dice answer`), import the file they send back",
                instead=Hint.BY_MAIL)


def _again(proof: DiceProof, command: dict[str, Any]) -> ProvenRoller:
    """The roller of a retry at a proof's position after an undo: the same round, links (and
    a sealed round's nonce), so the same dice."""
    if proof.nonce is not None:
        return sealed_roller(proof.links, proof.round or 0, proof.position, command,
                             bytes.fromhex(proof.nonce), proof.seat)
    return pair_roller(proof.links, proof.round or 0, proof.position, command, proof.seat)


def check_request(request: AnyRequest, sender: str, records: Sequence[LoggedEvent],
                  cards: Mapping[str, SeatCard], chain_length: int, position: int,
                  sealed: bool = False, burnt: int = 0) -> None:
    """A received request: the sender's own, for the file's position and next round (after
    ``burnt``, the highest round a stall made void), sealed exactly when the campaign's rounds
    are, and (open) its link on the sender's chain.

    Raises:
        IntegrityError: Any of these fails.
    """
    expected_round = round_after(records, burnt)
    if request.seat != sender:
        raise IntegrityError(f"the turn file's dice request is {request.seat!r}'s, not the "
                             f"sender's ({sender!r})", where="turn.request",
                             fix="Do not trust this file; ask for a fresh export")
    if (request.position, request.round) != (position, expected_round):
        raise IntegrityError(
            f"the dice request is for position {request.position}, round {request.round}; the "
            f"file's log is at position {position}, next round {expected_round}",
            where="turn.request", fix="Do not trust this file; ask for a fresh export")
    leaks = isinstance(request, SealedRequest) and (request.command, request.nonce,
                                                    request.link) != (None, None, None)
    if isinstance(request, SealedRequest) != sealed or leaks:
        what = ("must be sealed (a commitment only): this campaign's commands are secret"
                if sealed else "is sealed, but this campaign's rounds are open")
        raise IntegrityError(f"the turn file's dice request {what}", where="turn.request",
                             fix="Do not trust this file; ask for a fresh export")
    if isinstance(request, PairRequest):
        chain_tracker(records, cards, chain_length, sender).accept(sender, request.round,
                                                                   request.link)


def chain_tracker(records: Sequence[LoggedEvent], cards: Mapping[str, SeatCard],
                  chain_length: int, seat: str) -> ChainTracker:
    """A tracker of the campaign's chains that has seen every link of ``seat`` the log shows
    (proofs withheld from this reader show none; a later link still hashes down to them)."""
    anchors = {s: c.anchor for s, c in cards.items() if c.anchor is not None}
    tracker = ChainTracker(anchors, chain_length)
    for _, proof in pair_proofs(records):
        if seat in proof.links and proof.round is not None:
            tracker.accept(seat, proof.round, proof.links[seat])
    return tracker


def check_undo(store: EventStore, campaign: Campaign, target: int) -> None:
    """Refuse an undo of a resolved roll by the seat whose command it was (two-seat play).

    Raises:
        IllegalNowError: This store holds only the acting seat's key.
    """
    from rallypoint.store.signing import seat_cards  # only campaigns with seats need it

    cards = seat_cards(campaign.events[0].payload)
    mine = [s for s, c in cards.items() if store.seat_key(c.key) is not None]
    if len(mine) != 1:
        return  # one player, or every seat at one screen: nobody to ask
    acting = acting_seat(campaign.events, target) or acting_seat(
        store.events(campaign.campaign_id), target)
    if acting == mine[0]:
        other = next(s for s in sorted(cards) if s != mine[0])
        raise IllegalNowError(
            f"#{target} resolved a roll of your command; undoing it needs {other}'s consent",
            fix=f"Ask {other} to undo it (`rallypoint undo` on their side); it comes back in "
                "their turn file. A retry then sees the same dice.", instead=Hint.BY_MAIL)


def acting_seat(log: Sequence[LoggedEvent], seq: int) -> str | None:
    """The seat whose command the event at ``seq`` resolved, if its dice proof names one."""
    for event in log:
        if event.seq == seq:
            head = proof_head(event.payload.get(PROOF_KEY))
            return None if head is None else head.seat
    return None


class ActingSeats:
    """:func:`acting_seat` one event at a time (a streamed import): the seat each event's dice
    proof names, kept as one byte an event (an index into the seats met so far), so an undo is
    answered for any earlier event without the log, as the file showed that event.
    """

    def __init__(self) -> None:
        self._by_seq = bytearray()  # by seq - 1: 0 for no seat, else 1 + index into _seats
        self._seats: list[str] = []

    def add(self, event: LoggedEvent) -> None:
        """Note the next event (seqs in order from 1).

        Raises:
            LookupError: Its seq is not the next, or its proof names a 256th seat.
        """
        if event.seq != len(self._by_seq) + 1:
            raise LookupError(event.seq)
        head = proof_head(event.payload.get(PROOF_KEY))
        if head is None or head.seat is None:
            self._by_seq.append(0)
            return
        if head.seat not in self._seats:
            if len(self._seats) == 255:
                raise LookupError(head.seat)
            self._seats.append(head.seat)
        self._by_seq.append(self._seats.index(head.seat) + 1)

    def of(self, seq: int) -> str | None:
        """:func:`acting_seat` of an event added (``None``: its proof names no seat)."""
        at = self._by_seq[seq - 1]
        return self._seats[at - 1] if at else None
