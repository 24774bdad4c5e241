"""Sealed pair rounds in play by e-mail (docs/dice.md, "Sealed pair rounds").

Every campaign with two or more seats rolls in sealed rounds (so the answerer never sees a face
before it answers: issue 18, "open rounds can be vetoed"):

1. The acting seat's command needs dice: its :class:`~rallypoint.dice.sealed.SealedRequest`
   (command, nonce, its link) is kept in its store; only seat, position, round and commitment go
   out in its next turn file. Until the round is resolved that seat decides nothing else.
2. The other seat's ``rallypoint dice answer`` reveals only its own link of the round: a
   :class:`~rallypoint.dice.sealed.PairAnswer`, kept in its store and carried in its turn files
   (``turn.answer``) until the round is resolved. It appends and decides nothing, and may decide
   nothing else until the requester's next file resolves the round.
3. The requester's import checks the answer (:func:`check_answer`) and decides its kept command
   with both links (:func:`rallypoint.session.sealed_answers.resolve_answer`); the event's proof
   carries nonce and commitment.
4. The answerer's import of the requester's next file refuses a file that does not resolve the
   round it answered (:func:`check_resolves`): refusing to go on once the dice are known shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rallypoint.core.errors import IllegalNowError, IntegrityError
from rallypoint.dice.audit import DICE_KEY, PROOF_KEY, LoggedEvent, logical_position
from rallypoint.dice.sealed import PairAnswer, SealedRequest, parse_request
from rallypoint.dice.v1 import CHAIN_LENGTH, command_digest, proof_head
from rallypoint.errors import Hint
from rallypoint.session.pair import chain_tracker, last_round, next_round
from rallypoint.store import EventStore

if TYPE_CHECKING:
    from rallypoint.store.signing import SeatCard

_DISTRUST = "Do not trust this file; ask the sender to export it again"


def hides_secrets(declaration: object) -> bool:
    """Whether a ruleset's secrets declaration says it hides secrets from seats
    (``hides_secrets = True``, as TCS's does)."""
    return getattr(declaration, "hides_secrets", False) is True


def is_sealed(ruleset: str, cards: Mapping[str, object]) -> bool:
    """Whether a campaign's pair rounds are sealed: two or more seats, whatever the ruleset.

    Why every two-seat campaign (issue 18): in an open round the request carried the requester's
    link, so the answerer could compute the faces before answering, on a copy of its database,
    and then decline (a veto). A sealed round is answered first: the answerer sends its link
    without knowing the command's nonce or the requester's link, so nobody learns a face before
    both contributions are bound (docs/dice.md, "Nobody learns a roll first"). ``ruleset`` is
    kept for the callers: a ruleset that hides secrets needs it anyway.
    """
    del ruleset
    return len(cards) >= 2


def chain_length(created: Mapping[str, Any]) -> int:
    """The seats' chain length, from the ``created`` payload's dice spec."""
    spec = created.get(DICE_KEY)
    return int(spec.get("chain_length", CHAIN_LENGTH)) if isinstance(spec, Mapping) else 0


def own_requests(store: EventStore, campaign_id: str, mine: Sequence[str], *,
                 withdrawn: bool = False) -> dict[int, SealedRequest]:
    """This store's own sealed requests (whole: command, nonce and link kept), by round
    (``withdrawn``: those withdrawn with ``rallypoint dice stall`` too)."""
    found = {}
    for round_, seat, text in store.dice_requests(campaign_id):
        request = parse_request(text)
        if seat in mine and isinstance(request, SealedRequest) and request.whole and (
                withdrawn or not request.withdrawn):
            found[round_] = request
    return found


def kept_answers(store: EventStore, campaign_id: str) -> dict[int, PairAnswer]:
    """The answers this store gave (and has not seen resolved) and that no stall made void,
    by round."""
    return {r: a for r, a in all_answers(store, campaign_id).items() if a.void is None}


def all_answers(store: EventStore, campaign_id: str) -> dict[int, PairAnswer]:
    """Every answer row of this store, void ones included (a void is kept for good: it
    burns its round)."""
    return {r: PairAnswer.model_validate_json(text)
            for r, _, text in store.dice_answers(campaign_id)}


def hold(store: EventStore, campaign_id: str, mine: Sequence[str], position: int,
         command: Mapping[str, Any] | None) -> None:
    """Refuse a command (``None``: an undo) while this seat's part of a sealed round at
    ``position`` is open: its answer given, or its own request waiting (only that request's
    command may be decided, when the answer comes).

    Raises:
        IllegalNowError: A round is open here.
    """
    _hold_unanswered(store, campaign_id, mine, position)
    for answer in kept_answers(store, campaign_id).values():
        if answer.seat in mine and answer.position == position:
            raise IllegalNowError(
                f"you answered the other seat's sealed dice round {answer.round}; nothing can "
                "be decided until their next turn file resolves it",
                fix="Send your answer (`rallypoint export --for SIDE FILE`) and import the file "
                    "they send back", instead=Hint.BY_MAIL)
    digest = None if command is None else command_digest(command)
    for request in own_requests(store, campaign_id, mine).values():
        if request.position == position and request.digest != digest:
            raise IllegalNowError(
                f"your sealed dice request for round {request.round} waits for the other "
                "seat's answer; nothing else can be decided until it is resolved",
                fix="Send it (`rallypoint export --for SIDE FILE`) and import their answer: "
                    "your command is then decided with both links", instead=Hint.BY_MAIL)


def _hold_unanswered(store: EventStore, campaign_id: str, mine: Sequence[str],
                     position: int) -> None:
    """Refuse anything but the answer while the other seat's request waits here (issue 18:
    the answerer may not play on past a round it was asked for; its requester's import would
    refuse that file anyway, as it would any file that moved past its request).

    Raises:
        IllegalNowError: The other seat's request at ``position`` waits for this seat.
    """
    answered = set(all_answers(store, campaign_id))
    for round_, seat, text in store.dice_requests(campaign_id):
        if seat in mine or round_ in answered:
            continue
        if parse_request(text).position == position:
            raise IllegalNowError(
                f"{seat}'s dice request (round {round_}) waits for your answer; nothing else "
                "can be decided until you give it",
                fix="Answer it: `rallypoint dice answer` (your link only: it shows you no "
                    "dice), then send your turn file", instead=Hint.BY_MAIL)


def answer(store: EventStore, campaign_id: str, request: SealedRequest, me: str,
           seed: bytes, records: Sequence[LoggedEvent]) -> PairAnswer:
    """This seat's answer to a sealed request: its own link of the round, nothing else (kept,
    and sent in this seat's next turn files until the round is resolved)."""
    from rallypoint.dice.v1 import chain_link

    kept = kept_answers(store, campaign_id).get(request.round)
    if kept is not None:
        return kept  # answered already: a chain has one link per round
    if request.position != logical_position(records):
        raise IllegalNowError(
            f"{request.seat}'s sealed dice request (round {request.round}) is for position "
            f"{request.position}, and your log has moved on to {logical_position(records)}",
            fix="It can no longer be answered: send your turn file; they make it again")
    link = chain_link(seed, request.round, chain_length(records[0].payload)).hex()
    made = PairAnswer(seat=me, round=request.round, position=request.position,
                      commitment=request.commitment, link=link)
    store.put_dice_answer(campaign_id, request.round, me, made.model_dump_json())
    return made


def outgoing_answer(store: EventStore, campaign_id: str, sender: str,
                    records: Sequence[LoggedEvent]) -> dict[str, Any] | None:
    """The sender's answer still open at the log's position, as the turn header carries it."""
    position, round_next = logical_position(records), next_round(store, campaign_id, records)
    for round_, answer_ in kept_answers(store, campaign_id).items():
        if answer_.seat == sender and (round_, answer_.position) == (round_next, position):
            return answer_.wire()
    return None


def outgoing_voids(store: EventStore, campaign_id: str,
                   sender: str) -> list[dict[str, Any]] | None:
    """Every void round this database knows (``rallypoint dice stall``: the sender's own,
    and those the other seat sent), as ``turn.voids`` carries them, so that the file's round
    order checks offline (``rallypoint verify FILE``); ``None``: none."""
    del sender  # every void, whoever made it: the reader checks the new ones are the sender's
    voids = [a.wire() for a in all_answers(store, campaign_id).values() if a.void is not None]
    return voids or None


def check_answer(answer_: PairAnswer, own: SealedRequest, records: Sequence[LoggedEvent],
                 cards: Mapping[str, SeatCard]) -> None:
    """An answer answers this seat's kept request (round, position, commitment), from the
    other seat, with the link of that round on its chain.

    Raises:
        IntegrityError: Any of these fails, or the kept request no longer opens its commitment.
    """
    if not own.opens():
        raise IntegrityError(f"your kept sealed request for round {own.round} no longer opens "
                             "its commitment (the database was edited)",
                             fix="Do not resolve it; restore the database from a backup")
    if answer_.seat == own.seat or answer_.seat not in cards:
        raise IntegrityError(f"the dice answer is {answer_.seat!r}'s, not the other seat's",
                             where="turn.answer", fix=_DISTRUST)
    theirs = (answer_.round, answer_.position, answer_.commitment)
    if theirs != (own.round, own.position, own.commitment):
        raise IntegrityError(
            f"{answer_.seat}'s dice answer is for round {answer_.round} at position "
            f"{answer_.position}, commitment {answer_.commitment[:12]}…; your sealed request is "
            f"round {own.round} at position {own.position}, commitment {own.commitment[:12]}…",
            where="turn.answer", fix=_DISTRUST)
    length = chain_length(records[0].payload)
    chain_tracker(records, cards, length, answer_.seat).accept(answer_.seat, answer_.round,
                                                               answer_.link)


def checked_answer(turn_answer: Mapping[str, Any] | None, signer: str | None,
                   store: EventStore, campaign_id: str, mine: Sequence[str],
                   records: Sequence[LoggedEvent], cards: Mapping[str, SeatCard],
                   sealed: bool) -> PairAnswer | None:
    """A turn file's answer, checked against this seat's kept request before anything is
    written; ``None``: no answer, or one whose round this log has resolved already.

    Raises:
        IntegrityError: Malformed, unsigned, in an open campaign, from another seat, answering
            no request of this seat's, or failing :func:`check_answer`.
    """
    if turn_answer is None:
        return None
    try:
        answer_ = PairAnswer.model_validate(turn_answer)
    except ValueError:
        raise IntegrityError("the turn file's dice answer is malformed", where="turn.answer",
                             fix=_DISTRUST) from None
    if signer is None or answer_.seat != signer or not sealed:
        why = ("an unsigned file" if signer is None else
               "a campaign whose rounds are open" if not sealed else
               f"a file signed by {signer}, not by {answer_.seat}")
        raise IntegrityError(f"a dice answer in {why}", where="turn.answer", fix=_DISTRUST)
    own = own_requests(store, campaign_id, mine, withdrawn=True).get(answer_.round)
    if own is None:
        if answer_.round <= last_round(records):
            return None  # resolved already (the same answer came again)
        raise IntegrityError(f"{signer}'s dice answer (round {answer_.round}) answers no sealed "
                             "request of yours", where="turn.answer", fix=_DISTRUST)
    if own.withdrawn and own.position != logical_position(records):
        # The answer crossed this seat's withdrawal, and this seat has played on since.
        raise IntegrityError(
            f"{signer} answered your dice request (round {answer_.round}) after you withdrew "
            "it and played on: their database refuses your files until the round is resolved",
            where="turn.answer",
            fix=f"Ask {signer} to void the round (`rallypoint dice stall` on their side) and to "
                "import your turn file before playing on", instead=Hint.BY_MAIL)
    check_answer(answer_, own, records, cards)
    return answer_


def fresh_answer(turn_answer: Mapping[str, Any] | None, store: EventStore,
                 campaign_id: str) -> bool:
    """Whether a file's answer is for a round this log has not resolved (a file carrying only
    that is new, not a replay; :func:`checked_answer` then checks it answers this seat)."""
    if not isinstance(turn_answer, Mapping) or not isinstance(turn_answer.get("round"), int):
        return False
    known = [c.id for c in store.campaigns() if c.id == campaign_id]
    return bool(known) and answer_is_fresh(turn_answer, store.events(campaign_id))


def answer_is_fresh(turn_answer: Mapping[str, Any] | None,
                    stored: Sequence[LoggedEvent]) -> bool:
    """:func:`fresh_answer` against ``stored``, this database's log of the campaign before the
    file (empty: the campaign is new here)."""
    if not isinstance(turn_answer, Mapping) or not isinstance(turn_answer.get("round"), int):
        return False
    return bool(stored) and int(turn_answer["round"]) > last_round(stored)


def check_resolves(store: EventStore, campaign_id: str, mine: Sequence[str],
                   stored: Sequence[LoggedEvent], records: Sequence[LoggedEvent]) -> None:
    """The requester's next file after this seat's answer must resolve that round first.

    Raises:
        IntegrityError: The file brings new events that do not begin with the answered round's
            event (its round, position, requester, and commitment when shown).
    """
    if len(records) <= len(stored) or not stored:
        return
    position, round_next = logical_position(stored), next_round(store, campaign_id, stored)
    for answer_ in kept_answers(store, campaign_id).values():
        if answer_.seat not in mine or (answer_.round, answer_.position) != (round_next,
                                                                             position):
            continue
        first = records[len(stored)]
        head = proof_head(first.payload.get(PROOF_KEY))
        if head is None or (head.round, head.position) != (answer_.round, answer_.position) or (
                head.seat in mine) or head.commitment not in (None, answer_.commitment):
            raise IntegrityError(
                f"#{first.seq} does not resolve sealed dice round {answer_.round}, which you "
                "answered: the other seat must decide its committed command first (stopping "
                "once the dice are known is not allowed)", where=f"seq {first.seq}",
                fix="Ask for a turn file that resolves the round; keep this one as evidence")


def tidy(store: EventStore, campaign_id: str, records: Sequence[LoggedEvent]) -> None:
    """Forget answers whose round the log has resolved or moved past (a void one is kept: it
    burns its round)."""
    position, answered = logical_position(records), last_round(records)
    for round_, answer_ in kept_answers(store, campaign_id).items():
        if round_ <= answered or answer_.position != position:
            store.drop_dice_answer(campaign_id, round_)
