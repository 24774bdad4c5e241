"""Stalled dice rounds by mail: what ``show`` says about a round, and ``rallypoint dice stall``.

A round by mail needs both seats (docs/dice.md, "Stalled rounds"): the requester's commitment,
the answerer's link, then the requester's resolution. A seat that stops can hold the other's
database for good, so the waiting side has a way out, and it can never be used to escape a
round whose dice the staller could know:

- **The requester, no answer imported** (``withdraw``): its request is withdrawn and it may
  play on. It knows no face: it never had the answerer's link of the round. If the answerer
  had answered (the answer crossed the withdrawal, or was read on a copy of the database), the
  answerer's import refuses every file that does not resolve the round
  (:func:`rallypoint.session.sealed.check_resolves`), so a withdrawal never beats an answer.
- **The answerer, its answer unresolved** (``void``): the round is void, forfeited by the
  requester (which stopped after the answer), and burnt: the answer's link is public, so no
  command may use the round again; both databases count it (``turn.voids``). The answerer never
  knew a face (it has neither the requester's link nor its nonce).

The requester's import also refuses a file that moved past its waiting request without a void
(:func:`check_moved_past`): nobody may play on past a round they were asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from rallypoint.core.errors import IllegalNowError, IntegrityError
from rallypoint.dice.audit import LoggedEvent, logical_position
from rallypoint.dice.sealed import PairAnswer, SealedRequest, parse_request
from rallypoint.errors import Hint
from rallypoint.session import sealed
from rallypoint.session.pair import burnt_round, chain_tracker, last_round, next_round

if TYPE_CHECKING:
    from rallypoint.session.handle import Handle
    from rallypoint.store import EventStore
    from rallypoint.store.exchange import ExportedCampaign
    from rallypoint.store.signing import SeatCard

_DISTRUST = "Do not trust this file; ask the sender to export it again"


class RoundKind(StrEnum):
    """Where a dice round by mail stands, seen from this database."""

    ASKED = "asked"
    """This seat's request waits for the other seat's answer."""
    TO_ANSWER = "to_answer"
    """The other seat's request waits for this seat's answer."""
    ANSWERED = "answered"
    """This seat answered; the requester has not resolved the round yet."""
    WITHDRAWN = "withdrawn"
    """This seat withdrew its request (``dice stall``); it may play on."""
    VOID = "void"
    """A stall made the round void; nobody may use it."""


@dataclass(frozen=True)
class RoundState:
    """One dice round by mail as ``show`` reports it.

    Attributes:
        kind: Where it stands.
        round: The chain index.
        position: The logical position the command is decided at.
        requester: The seat whose command it is.
        waiting_for: The seat that must act next (``None``: nobody, the round is over).
        forfeited_by: A void round: the seat that stopped.
    """

    kind: RoundKind
    round: int
    position: int
    requester: str
    waiting_for: str | None
    forfeited_by: str | None = None

    def line(self) -> str:
        """One line for ``show``."""
        what = {
            RoundKind.ASKED: f"your request waits for {self.waiting_for}'s answer",
            RoundKind.TO_ANSWER: f"{self.requester}'s request waits for your answer "
                                 "(`rallypoint dice answer`)",
            RoundKind.ANSWERED: f"you answered; {self.waiting_for} has not resolved it",
            RoundKind.WITHDRAWN: "you withdrew your request (`dice stall`)",
            RoundKind.VOID: f"void, forfeited by {self.forfeited_by} (`dice stall`)",
        }[self.kind]
        stalled = ("; if they have stopped: `rallypoint dice stall`"
                   if self.kind in (RoundKind.ASKED, RoundKind.ANSWERED) else "")
        return f"dice round {self.round}: {what}{stalled}"

    def to_json(self) -> dict[str, Any]:
        """The ``show --json`` form."""
        return {"kind": self.kind.value, "round": self.round, "position": self.position,
                "requester": self.requester, "waiting_for": self.waiting_for,
                "forfeited_by": self.forfeited_by}


def _mine(store: EventStore, cards: Mapping[str, SeatCard]) -> list[str]:
    return [s for s, c in cards.items() if store.seat_key(c.key) is not None]


def _other(cards: Mapping[str, SeatCard], me: str) -> str:
    return next((s for s in sorted(cards) if s != me), me)


def round_states(store: EventStore, campaign_id: str,
                 log: Sequence[LoggedEvent]) -> tuple[RoundState, ...]:
    """Every round by mail this database has open, withdrawn or void (not yet used by the
    log), oldest first."""
    from rallypoint.store.signing import seat_cards

    cards = seat_cards(log[0].payload)
    mine = _mine(store, cards)
    if len(cards) < 2 or len(mine) != 1:
        return ()
    me, used = mine[0], last_round(log)
    found: list[RoundState] = []
    answers = sealed.all_answers(store, campaign_id)
    for round_, answer_ in answers.items():
        requester = _other(cards, answer_.seat)
        if answer_.void is not None:
            if round_ > used:  # a void that crossed the round's resolution is moot
                found.append(RoundState(RoundKind.VOID, round_, answer_.position, requester,
                                        None, answer_.void))
        elif round_ > used and answer_.seat == me:
            found.append(RoundState(RoundKind.ANSWERED, round_, answer_.position, requester,
                                    requester))
    for round_, seat, text in store.dice_requests(campaign_id):
        request = parse_request(text)
        if round_ <= used or round_ in answers:
            continue
        if seat == me:
            withdrawn = isinstance(request, SealedRequest) and request.withdrawn
            found.append(RoundState(RoundKind.WITHDRAWN if withdrawn else RoundKind.ASKED,
                                    round_, request.position, me,
                                    None if withdrawn else _other(cards, me)))
        else:
            found.append(RoundState(RoundKind.TO_ANSWER, round_, request.position, seat, me))
    return tuple(sorted(found, key=lambda r: r.round))


def rounds_of(session: Handle, ref: str) -> tuple[RoundState, ...]:
    """:func:`round_states` of a campaign, for ``show``."""
    with session._store() as store:
        info = store.find(ref)
        if not store.dice_requests(info.id) and not store.dice_answers(info.id):
            return ()  # nothing kept: no need to read the log (one-player campaigns, mostly)
        return round_states(store, info.id, store.events(info.id))


@dataclass(frozen=True)
class Stalled:
    """What ``rallypoint dice stall`` did."""

    kind: RoundKind
    """``withdrawn`` (this seat's unanswered request) or ``void`` (its unresolved answer)."""
    round: int
    position: int
    forfeited_by: str


def stall(session: Handle, ref: str) -> Stalled:
    """Give up waiting on a stalled dice round (``rallypoint dice stall``).

    This seat's request with no answer imported is withdrawn; this seat's answer that the
    requester has not resolved makes the round void, forfeited by the requester, and burns it.

    Raises:
        IllegalNowError: Nothing of this seat's waits (or it is the one asked: it must answer).
    """
    from rallypoint.store.signing import seat_cards

    with session._store(write=True) as store:
        info = store.find(ref)
        log = store.events(info.id)
        cards = seat_cards(log[0].payload)
        mine = _mine(store, cards)
        position, round_ = logical_position(log), next_round(store, info.id, log)
        own = sealed.own_requests(store, info.id, mine).get(round_)
        if own is not None and own.position == position:
            store.drop_dice_request(info.id, round_)
            store.put_dice_request(info.id, round_, own.seat, own.model_copy(
                update={"withdrawn": True}).model_dump_json())
            return Stalled(RoundKind.WITHDRAWN, round_, position, _other(cards, own.seat))
        answered = sealed.kept_answers(store, info.id).get(round_)
        if answered is not None and answered.seat in mine and answered.position == position:
            requester = _other(cards, answered.seat)
            store.drop_dice_answer(info.id, round_)
            store.put_dice_answer(info.id, round_, answered.seat, answered.model_copy(
                update={"void": requester}).model_dump_json())
            return Stalled(RoundKind.VOID, round_, position, requester)
        asked = [s for r, s, _ in store.dice_requests(info.id) if r == round_ and s not in mine]
    if asked:
        raise IllegalNowError(f"{asked[0]}'s dice request (round {round_}) waits for you: the "
                              "stalled side is yours", fix="Answer it: `rallypoint dice answer`",
                              instead=Hint.BY_MAIL)
    raise IllegalNowError(f"no dice round of {info.name!r} waits on the other seat",
                          fix="`rallypoint show` says where its rounds stand", instead=Hint.BY_MAIL)


def checked_voids(exported: ExportedCampaign, signer: str | None, store: EventStore,
                  campaign_id: str, stored: Sequence[LoggedEvent],
                  cards: Mapping[str, SeatCard]) -> list[PairAnswer]:
    """The file's new voids (``turn.voids``), checked before anything is written: signed by
    the seat that answered, for the round open in this log (or one burnt already), with that
    round's link on the answerer's chain.

    Raises:
        IntegrityError: A void is malformed, unsigned, another seat's, or for another round.
    """
    turn = exported.turn
    raw = None if turn is None else turn.voids
    if not raw or not stored:
        return []
    burnt, open_round = burnt_round(store, campaign_id), next_round(store, campaign_id, stored)
    new: list[PairAnswer] = []
    for item in raw:
        try:
            void = PairAnswer.model_validate(item)
        except ValueError:
            raise IntegrityError("a void dice round in the file is malformed",
                                 where="turn.voids", fix=_DISTRUST) from None
        if (void.round <= burnt or void.round <= last_round(stored)) and void.void is not None:
            # Known already (a file carries every void its sender knows), or a void that
            # crossed the round's resolution in the mail: the log used the round, nothing to do.
            continue
        if signer is None or void.seat != signer or void.void is None or void.void == signer:
            raise IntegrityError(f"a void of round {void.round} that is not {signer}'s to make",
                                 where="turn.voids", fix=_DISTRUST)
        if void.round != open_round:
            raise IntegrityError(f"{signer} voids round {void.round}, but the round open here is "
                                 f"{open_round}", where="turn.voids", fix=_DISTRUST)
        chain_tracker(stored, cards, sealed.chain_length(stored[0].payload), signer).accept(
            signer, void.round, void.link)
        new.append(void)
    return new


def check_moved_past(store: EventStore, campaign_id: str, mine: Sequence[str],
                     stored: Sequence[LoggedEvent], records: Sequence[LoggedEvent],
                     voids: Sequence[PairAnswer]) -> None:
    """Refuse a file that moved the log past this seat's waiting request, unless it voids
    the round (issue 18: nobody may play on past a round they were asked for).

    Raises:
        IntegrityError: The file's new events leave the request's position, unanswered.
    """
    if len(records) <= len(stored) or not stored:
        return
    round_ = next_round(store, campaign_id, stored)
    kept = [parse_request(t) for r, s, t in store.dice_requests(campaign_id)
            if r == round_ and s in mine]
    waiting = [r for r in kept if not (isinstance(r, SealedRequest) and r.withdrawn)]
    if not waiting or waiting[0].position != logical_position(stored):
        return
    if logical_position(records) == waiting[0].position or any(
            v.round == round_ for v in voids):
        return
    seq = records[len(stored)].seq
    raise IntegrityError(
        f"#{seq} moves the log past your dice request (round {round_}), which the sender "
        "has not answered: nobody may play on past a round they were asked for",
        where=f"seq {seq}",
        fix="If your request and their file crossed in the mail, withdraw it (`rallypoint dice "
            "stall`) and import again; otherwise ask them to answer it", instead=Hint.BY_MAIL)


def keep_voids(store: EventStore, campaign_id: str, voids: Sequence[PairAnswer],
               mine: Sequence[str]) -> str | None:
    """Store the file's new voids (each burns its round here too) and drop this seat's
    request for a void round; the note says so."""
    note = None
    for void in voids:
        store.put_dice_answer(campaign_id, void.round, void.seat, void.model_dump_json())
        for round_, seat, _ in store.dice_requests(campaign_id):
            if round_ == void.round:
                store.drop_dice_request(campaign_id, round_)
                if seat in mine:
                    note = (f"{void.seat} made dice round {void.round} void (`dice stall`): "
                            "your command there was not resolved after their answer, so it "
                            "is forfeited; the round is burnt")
    return note


def check_not_replacing(request: object, store: EventStore, campaign_id: str,
                        mine: Sequence[str]) -> None:
    """Refuse a request that replaces one this seat answered: the answer binds its round to the
    commitment it answered (the requester, knowing the answer's link, could otherwise choose a
    command and nonce whose dice it likes).

    Raises:
        IntegrityError: This seat answered the request's round for another commitment.
    """
    if not isinstance(request, SealedRequest):
        return
    answered = sealed.kept_answers(store, campaign_id).get(request.round)
    if answered is not None and answered.seat in mine and (
            answered.commitment != request.commitment):
        raise IntegrityError(
            f"{request.seat} asks again for dice round {request.round}, which you answered for "
            "another command: an answered round must be resolved as it was asked",
            where="turn.request",
            fix="Keep waiting for their resolution, or void the round: `rallypoint dice stall`",
            instead=Hint.BY_MAIL)


def burnt_rounds(store: EventStore, campaign_id: str) -> frozenset[int]:
    """Every round this database knows a stall made void (its own voids and the other
    seat's)."""
    return frozenset(r for r, a in sealed.all_answers(store, campaign_id).items()
                     if a.void is not None)


def file_voids(exported: ExportedCampaign) -> frozenset[int]:
    """The rounds a file's ``turn.voids`` names (for the audit's round order only: a void
    round is skipped, never used; :func:`checked_voids` checks the voids themselves)."""
    turn = exported.turn
    raw = () if turn is None or turn.voids is None else turn.voids
    return frozenset(v["round"] for v in raw
                     if isinstance(v, Mapping) and isinstance(v.get("round"), int))


def fresh_void(exported: ExportedCampaign, store: EventStore, campaign_id: str) -> bool:
    """Whether a file voids a round this database has not seen void: news, not a replay
    (:func:`checked_voids` then checks it)."""
    known = [c.id for c in store.campaigns() if c.id == campaign_id]
    return bool(known) and bool(file_voids(exported) - burnt_rounds(store, campaign_id))
