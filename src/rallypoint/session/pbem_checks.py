"""What ``import`` checks in a turn file beyond its header and chain, and how it keeps the
sender's dice request: the reader, replays and forks, every roll, undo consent, the rounds
resolving this seat's commands, and requests that crossed in the mail (docs/two-player.md)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rallypoint.core.campaign import stored_rolls
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import GENESIS_HASH, EventRecord, NewEvent
from rallypoint.core.registry import get_ruleset
from rallypoint.dice.audit import DICE_KEY, audit, logical_position
from rallypoint.dice.report import DiceReport, Verdict
from rallypoint.dice.sealed import (
    AnyRequest,
    PairAnswer,
    SealedRequest,
    parse_request,
    public_commitment,
)
from rallypoint.dice.v1 import CHAIN_LENGTH, DiceProof, PairRequest
from rallypoint.errors import Hint
from rallypoint.session import pair, sealed, stall
from rallypoint.store import CampaignInfo, EventStore
from rallypoint.store.exchange import (
    ExportedCampaign,
    TurnHeader,
    check_redacted,
)
from rallypoint.store.signing import SeatCard, seat_cards
from rallypoint.store.visibility import withheld

_DISTRUST = "Do not trust this file; ask the sender to export it again"


def check_filtered(path: Path, exported: ExportedCampaign) -> None:
    """A file filtered for its reader: signed (an unsigned digest proves nothing), and its
    redacted payloads the ones the signed header hashes (``turn.redacted``).

    Raises:
        IntegrityError: Unsigned, or a redacted event changed after signing.
    """
    if not exported.signatures:
        raise IntegrityError(
            f"the file withholds {len(withheld(exported.events))} event(s) and is not signed, so "
            "nothing proves what it withholds", where=str(path),
            fix="Ask the other seat for `rallypoint export --for YOUR-SIDE FILE` from their own "
                "database (a shared server's filtered export is for reading: `rallypoint verify`)",
                instead=Hint.BY_MAIL)
    check_redacted(exported)


def held_seats(store: EventStore, created: dict[str, object]) -> list[str]:
    """The seats of a ``created`` payload whose private keys this store holds."""
    return [s for s, c in seat_cards(created).items() if store.seat_key(c.key) is not None]


def exists(store: EventStore, campaign_id: str) -> bool:
    """Whether ``store`` has the campaign (by exact id)."""
    return any(c.id == campaign_id for c in store.campaigns())


def check_reader(exported: ExportedCampaign, cards: dict[str, SeatCard], mine: list[str],
                  signer: str | None, as_copy: bool = False) -> None:
    """The file is for a seat this database holds, and not this seat's own file come back
    (``as_copy``: kept as a new campaign, e.g. the whole log ``rallypoint reveal`` wrote, so
    one's own file is no replay)."""
    if not mine:
        raise IntegrityError(f"this database holds no seat key of this campaign (seats "
                             f"{', '.join(sorted(cards))})",
                             fix="Import it into your own database (--db), the one your "
                                 "`rallypoint seat new` used", instead=Hint.BY_MAIL)
    reader = exported.turn.reader if exported.turn else None
    if reader is not None and reader not in mine:
        raise IntegrityError(f"the turn file is addressed to seat {reader!r}, and this database "
                             f"holds {', '.join(mine)}", fix="Import the file meant for your seat")
    if signer in mine and len(mine) == 1 and not as_copy:
        raise IntegrityError(f"this is your own turn file (signed by {signer}, you): replayed "
                             "back to you", fix="Import the file your opponent sent")


def new_events(path: Path, stored: Sequence[EventRecord], records: Sequence[EventRecord],
                exported: ExportedCampaign, as_name: str | None,
                known: set[tuple[int, str, str | None]], answered: bool = False) -> int:
    """How many events the file adds; a fork or a replay of a two-seat file is refused (a
    file at your head is new only if it brings a dice request you have not seen, or the
    answer to your sealed request: ``answered``)."""
    if not stored or as_name is not None:
        return len(records)
    for mine, theirs in zip(stored, records, strict=False):
        if mine.hash != theirs.hash:
            raise IntegrityError(
                f"the file forks from your log at #{mine.seq}: from there your history and the "
                "sender's differ", where=f"seq {mine.seq}",
                fix=f"Keep theirs as a new campaign: `rallypoint import {path} --as NAME`",
                instead=Hint.BY_MAIL)
    return count_new(len(stored), len(records), records[-1].seq, exported, known, answered)


def count_new(stored: int, count: int, head: int, exported: ExportedCampaign,
              known: set[tuple[int, str, str | None]], answered: bool = False) -> int:
    """How many of the file's ``count`` events (its last at seq ``head``) are new beyond the
    ``stored`` ones of a log they extend; a signed file that brings nothing new is a replay.

    Raises:
        IntegrityError: The replay.
    """
    request = exported.turn.request if exported.turn else None
    fresh = answered or (request is not None and (
        request.get("round"), request.get("seat"), request.get("commitment")) not in known)
    if exported.signatures and (count < stored or (count == stored and not fresh)):
        what = ("is your head" if head == stored else f"is behind yours (#{stored})")
        raise IntegrityError(f"replayed: the file's head #{head} {what}, so it holds nothing new",
                             fix="Ask the sender for their latest turn file")
    return max(0, count - stored)


def check_dice(exported: ExportedCampaign, cards: dict[str, SeatCard], signer: str | None,
                mine: list[str], stored: Sequence[EventRecord], records: Sequence[EventRecord],
                store: EventStore, campaign_id: str, hidden: frozenset[int] = frozenset()) -> None:
    """Every roll checks (chains, commitment, tape); the sender undid no roll of its own; any
    round resolving this seat's command is the command this seat asked for.

    ``hidden``: seqs redacted for this seat; their dice are checked at the reveal."""
    turn = exported.turn or TurnHeader()
    burnt = stall.file_voids(exported) | (stall.burnt_rounds(store, campaign_id) if stored
                                          else frozenset())
    check_report(audit(records, stored_rolls(get_ruleset(exported.campaign.ruleset)),
                       turn.revealed_secret, withheld=hidden, burnt=burnt))
    if not cards or signer is None:
        return
    sealed.check_resolves(store, campaign_id, mine, stored, records)
    asked = {r: parse_request(t) for r, s, t in store.dice_requests(campaign_id) if s in mine}
    for record in records[len(stored):]:
        if record.type == "undone":
            target = record.payload.get("target")
            if isinstance(target, int) and pair.acting_seat(records, target) == signer:
                raise IntegrityError(
                    f"#{record.seq} undoes #{target}, a resolved roll of {signer}'s own "
                    "command: that needs the other seat's consent", where=f"seq {record.seq}",
                    fix=f"Ask {signer} for a turn file without it (you may undo it yourself)")
        for seq, proof in pair.pair_proofs([record]):
            if proof.seat in mine and not asked_for(asked, proof):
                raise IntegrityError(
                    f"#{seq} resolves round {proof.round} as your command, but it is not the "
                    "command you asked for", where=f"seq {seq}", fix=_DISTRUST)


def check_report(report: DiceReport) -> None:
    """The file's dice audit found no failed roll.

    Raises:
        IntegrityError: Naming the first that failed.
    """
    failed = next((e for e in report.events if e.verdict is Verdict.FAILED), None)
    # A log from before dice-v1 did not mark typed-in dice, so its misses prove nothing.
    if failed is not None and report.scheme == "dice-v1":
        raise IntegrityError(f"the dice of #{failed.seq} do not check: {failed.reason}",
                             where=f"seq {failed.seq}", fix=_DISTRUST)


def asked_for(asked: dict[int, AnyRequest], proof: DiceProof) -> bool:
    """Whether ``proof`` resolves the request this seat made for its round (a sealed one is
    resolved only here, never in the other seat's file)."""
    request = asked.get(proof.round or 0)
    return isinstance(request, PairRequest) and (request.position, request.digest) == (
        proof.position, proof.digest)


def wire(request: AnyRequest) -> dict[str, Any]:
    """A request as the turn header carries it (a sealed one: no command, nonce or link)."""
    if isinstance(request, SealedRequest):
        return request.public()
    return request.model_dump(mode="json")


def fresh_answer(exported: ExportedCampaign, store: EventStore, campaign_id: str) -> bool:
    """Whether the file's answer is for a round this log has not resolved yet."""
    turn = exported.turn
    return turn is not None and sealed.fresh_answer(turn.answer, store, campaign_id)


def checked_answer(exported: ExportedCampaign, cards: dict[str, SeatCard], signer: str | None,
                   mine: list[str], store: EventStore, stored: Sequence[EventRecord],
                   records: Sequence[EventRecord]) -> PairAnswer | None:
    """The file's answer to this seat's sealed request, checked before anything is written
    (:func:`rallypoint.session.sealed.checked_answer`)."""
    turn = exported.turn
    if turn is None or turn.answer is None:
        return None
    return sealed.checked_answer(turn.answer, signer, store, exported.campaign.id, mine,
                                 stored or records, cards,
                                 sealed.is_sealed(exported.campaign.ruleset, cards))


def checked_request(exported: ExportedCampaign, cards: dict[str, SeatCard],
                     signer: str | None, burnt: int = 0) -> AnyRequest | None:
    """The sender's dice request, checked against its chain, the log's position and round
    (after ``burnt``, the highest round a stall made void here)."""
    turn = exported.turn
    if turn is None or turn.request is None:
        return None
    try:
        request = parse_request(turn.request)
    except ValueError:
        raise IntegrityError("the turn file's dice request is malformed", where="turn.request",
                             fix=_DISTRUST) from None
    if signer is None:
        raise IntegrityError("an unsigned file carries a dice request", where="turn.request",
                             fix=_DISTRUST)
    spec = exported.events[0].payload.get(DICE_KEY) or {}
    pair.check_request(request, signer, exported.events, cards,
                       int(spec.get("chain_length", CHAIN_LENGTH)),
                       logical_position(exported.events),
                       sealed.is_sealed(exported.campaign.ruleset, cards), burnt)
    return request


def tidy_requests(store: EventStore, campaign_id: str, records: Sequence[EventRecord],
                   mine: list[str]) -> str | None:
    """Forget this seat's unanswered requests that the log has moved past (the other seat
    played on, or undid, instead of answering): that command must be made again."""
    sealed.tidy(store, campaign_id, records)
    position, answered = logical_position(records), pair.last_round(records)
    note = None
    for round_, seat, text in store.dice_requests(campaign_id):
        request = parse_request(text)
        if round_ > answered and request.position != position:
            # The other seat's too: a request it withdrew (`dice stall`) and played on past no
            # longer holds this seat (sealed.hold).
            store.drop_dice_request(campaign_id, round_)
            withdrawn = isinstance(request, SealedRequest) and request.withdrawn
            if seat in mine and not withdrawn:
                note = (f"your dice request (round {round_}) was not answered before the log "
                        "moved on; make that command again")
    return note


def keep_request(store: EventStore, campaign_id: str, request: AnyRequest,
                  mine: list[str]) -> tuple[AnyRequest | None, str | None]:
    """Keep the sender's request for ``dice answer``. When it crossed this seat's own request
    for the same round in the mail, the seat whose name sorts first goes first: both databases
    decide the same way, so neither answers the other and the logs cannot fork."""
    kept = {r: (s, parse_request(t)) for r, s, t in store.dice_requests(campaign_id)}
    if request.round in kept:
        seat, own = kept[request.round]
        if seat == request.seat:
            if public_commitment(own) != public_commitment(request):
                # The sender withdrew its request (`dice stall`) and made another; a round this
                # seat answered is refused before this (the answer binds its commitment).
                store.drop_dice_request(campaign_id, request.round)
                store.put_dice_request(campaign_id, request.round, request.seat,
                                       request.model_dump_json())
            return request, None
        withdrawn = isinstance(own, SealedRequest) and own.withdrawn
        if seat in mine and own.position == request.position:
            if seat < request.seat and not withdrawn:
                return None, (f"{request.seat}'s dice request crossed yours in the mail; yours "
                              f"(round {request.round}) goes first, as {seat} sorts first: "
                              f"{request.seat} answers it")
            store.drop_dice_request(campaign_id, request.round)
            store.put_dice_request(campaign_id, request.round, request.seat,
                                   request.model_dump_json())
            return request, (f"your dice request crossed {request.seat}'s in the mail; theirs "
                             f"goes first ({request.seat} sorts first): answer it, then make "
                             "your command again")
    store.put_dice_request(campaign_id, request.round, request.seat, request.model_dump_json())
    return request, None


def store_fork(store: EventStore, exported: ExportedCampaign, as_name: str) -> CampaignInfo:
    """The file's log sealed again under a new id (same payloads and times), as a new campaign."""
    new_id = uuid.uuid4().hex
    resealed: list[EventRecord] = []
    prev = GENESIS_HASH
    for record in exported.events:
        sealed = EventRecord.seal(new_id, record.seq, NewEvent(type=record.type,
                                                               payload=record.payload),
                                  prev, record.recorded_at)
        resealed.append(sealed)
        prev = sealed.hash
    header = exported.campaign
    info = store.import_records(new_id, as_name, header.ruleset, header.created_at, resealed)
    keep_fork_secret(store, header.id, new_id)
    return info


def keep_fork_secret(store: EventStore, campaign_id: str, fork_id: str) -> None:
    """A fork rolls on with the dice secret this database keeps for the campaign it forks
    (a server secret not yet revealed), when it keeps one."""
    kept = store.dice_secret(campaign_id)
    if kept is not None and kept[1] is None:
        store.put_dice_secret(fork_id, kept[0])


