"""Play by e-mail: seat cards, two-seat campaigns, signed turn files, and what import refuses.

A player makes a seat (:func:`new_seat`: an Ed25519 key and a dice chain, kept in their own
database) and sends its public card; one player starts the campaign from both cards
(:func:`create_seated`, pair-mode dice). Each turn, the mover writes a turn file for the other
seat (:func:`export_turn`), signed by the mover's seat key and holding none of the mover's secrets;
the other imports it (:func:`import_turn`, in :mod:`rallypoint.session.pbem_import`), which
refuses, with one line and nothing written, a file that is edited (even re-hashed), cut,
reordered, replayed, addressed to someone else, or forked from the reader's own history — a fork
can be kept as a new campaign instead (``as_name``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rallypoint.core.campaign import created_event, stored_rolls
from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.core.events import EventRecord, NewEvent
from rallypoint.core.registry import get_ruleset, ruleset_line_fix
from rallypoint.core.visibility import declaration_of
from rallypoint.dice.audit import DICE_KEY, audit, logical_position
from rallypoint.dice.sealed import (
    AnyRequest,
    PairAnswer,
    SealedRequest,
    parse_request,
)
from rallypoint.dice.v1 import (
    CHAIN_LENGTH,
    PairAnchors,
    ServerCommitment,
    chain_anchor,
    check_reveal,
)
from rallypoint.errors import Hint
from rallypoint.session import commands, pair, rederive, sealed, stall
from rallypoint.session import pbem_checks as checks
from rallypoint.session.handle import Handle
from rallypoint.session.importing import check_import
from rallypoint.session.pbem_import import Imported, import_turn
from rallypoint.session.results import Executed
from rallypoint.session.verify_stream import Verified, verify_streamed
from rallypoint.store import CampaignInfo, EventStore, clean_name
from rallypoint.store.exchange import (
    TurnHeader,
    check_header,
    check_importable,
    check_redacted,
    check_signed,
    export_text,
    exported_log,
    read_export,
    write_atomically,
)
from rallypoint.store.pages import events_between
from rallypoint.store.secrets import KeptSeat
from rallypoint.store.signing import SeatCard, SeatKey, fingerprint, seat_cards, seat_keys
from rallypoint.store.visibility import redacted_digest, visible_records, withheld

__all__ = ["Exported", "Imported", "SeatCard", "Verified", "answer", "create_seated",
           "export_turn", "fingerprint", "import_turn", "new_seat", "reveal", "verify_file"]


def new_seat(session: Handle, seat: str, *, physical_dice: bool = False) -> SeatCard:
    """Make this player's key and dice chain for one campaign's seat; return its signed card.

    The private key and the chain seed stay in this database (``seat_keys``); the card (public
    key, chain anchor, consent to physical dice) is what the opponent needs. Make a new seat for
    every campaign: a chain's links must never serve two campaigns.
    """
    card = SeatCard(seat=seat, key="0" * 64)  # validates the seat name before any key is made
    key = SeatKey.generate(card.seat)
    seed = os.urandom(32)
    with session._store(write=True) as store:
        store.put_seat_key(KeptSeat(key.public, seat, key.private.hex(), seed.hex()))
    return key.card(chain_anchor(seed, CHAIN_LENGTH), physical_dice)


def create_seated(session: Handle, scenario: Path, cards: Sequence[SeatCard], *,
                  name: str | None = None) -> CampaignInfo:
    """Start a two-seat campaign from every seat's card, with pair-mode dice (no trusted server).

    Raises:
        MalformedInputError: Fewer than two cards, a seat twice, or a card without an anchor.
        IntegrityError: A card is not signed by its own key.
        IllegalNowError: This database holds none of the cards' keys (you must hold a seat).
    """
    seats = sorted(c.seat for c in cards)
    if len(cards) < 2 or len(set(seats)) != len(seats):
        raise MalformedInputError(f"a two-seat campaign needs one card per seat, got {seats}",
                                  fix="Pass each seat's card once: --card axis.json "
                                      "--card soviet.json", instead=Hint.BY_MAIL)
    for card in cards:
        card.check()
        if card.anchor is None:
            raise MalformedInputError(f"the card of {card.seat!r} has no dice chain anchor",
                                      fix="Make it with `rallypoint seat new SIDE`",
                                      instead=Hint.BY_MAIL)
    ruleset = get_ruleset(_ruleset_of(scenario))
    label = clean_name(name if name is not None else scenario.stem)
    created = created_event(ruleset, scenario, label)
    sides = declaration_of(ruleset.name).sides(created.payload.get("scenario") or {})
    if sides and sorted(sides) != seats:
        raise MalformedInputError(
            f"the scenario's sides are {', '.join(sorted(sides))}, but the cards are for "
            f"{', '.join(seats)}", where=str(scenario),
            fix="Make one card per side: `rallypoint seat new SIDE` with the scenario's side ids",
            instead=Hint.BY_MAIL)
    # The created event's JSON as built, without the public seed: pair mode rolls from both
    # seats' chains, and the seats' cards (keys, anchors, dice answers) are fixed in it.
    payload = {**{k: v for k, v in created.payload.items() if k != "seed"},
               DICE_KEY: PairAnchors(anchors={c.seat: c.anchor for c in cards if c.anchor}
                                     ).model_dump(mode="json"),
               "seats": {c.seat: c.model_dump() for c in cards}}
    with session._store(write=True) as store:
        if not checks.held_seats(store, payload):
            raise IllegalNowError("this database holds none of these seats' keys",
                                  fix="Make your own card here first: `rallypoint seat new SIDE`",
                                  instead=Hint.BY_MAIL)
        new_id = uuid.uuid4().hex
        store.create_campaign(new_id, label, ruleset.name, NewEvent(type=created.type,
                                                                     payload=payload))
        return store.campaign(new_id)


def _ruleset_of(scenario: Path) -> str:
    from rallypoint.core.errors import DataFileError
    from rallypoint.core.tomlfile import read_toml

    data, _ = read_toml(scenario)
    if "ruleset" not in data:
        raise DataFileError("the scenario does not say which ruleset it is for",
                            where=f"{scenario}:1", fix=ruleset_line_fix())
    return str(data["ruleset"])


@dataclass(frozen=True)
class Exported:
    """What :func:`export_turn` wrote."""

    events: int
    sender: str | None
    reader: str | None
    request: AnyRequest | None
    revealed: bool
    withheld: int = 0
    """Events of this seat redacted for the reader (its secret parts withheld, hashes kept)."""
    answered: int | None = None
    """The round of the reader's sealed dice request this file answers, if any."""
    partial: int = 0
    """Events this database holds redacted (the other seat's, in play with hidden parts), sent
    as they are held: the reader holds them whole, a reveal merges them."""


def export_turn(session: Handle, ref: str, path: Path, *,
                for_seat: str | None = None) -> Exported:
    """Write a turn file for ``for_seat``: the log as that seat may see it, this seat's pending
    dice request and any revealed dice secret, all under one signature by this seat's key.

    Without ``for_seat`` it is a backup: a one-player campaign's plain export, or a two-seat
    campaign's log signed for anyone.

    Raises:
        MalformedInputError: ``for_seat`` is not one of the campaign's seats.
        IllegalNowError: ``for_seat`` on a one-player campaign, or this store holds no other seat.
    """
    with session._store() as store:
        info = store.find(ref)
        header, records = exported_log(store, info.id)
        created = records[0].payload
        cards = seat_cards(created)
        kept = store.dice_secret(info.id)
        revealed = kept[0] if kept is not None and kept[1] is not None else None
        if not cards:
            if for_seat is not None:
                raise IllegalNowError(f"{info.name!r} is a one-player campaign: it has no seats",
                                      fix="Export it without --for", instead=Hint.BY_MAIL)
            write_atomically(path, export_text(header, records, TurnHeader(
                revealed_secret=revealed)))
            return Exported(len(records), None, None, None, revealed is not None)
        if for_seat is not None and for_seat not in cards:
            raise MalformedInputError(f"{info.name!r} has no seat {for_seat!r}",
                                      fix=f"Use one of: {', '.join(sorted(cards))}")
        senders = [s for s in checks.held_seats(store, created) if s != for_seat]
        if not senders:
            raise IllegalNowError(f"this database holds no seat key of {info.name!r} to sign "
                                  "with" + (f" other than {for_seat!r}'s" if for_seat else ""),
                                  fix="Export from your own database (--db)", instead=Hint.BY_MAIL)
        sender = senders[0]
        kept_key = store.seat_key(cards[sender].key)
        assert kept_key is not None  # held above
        key = SeatKey(sender, bytes.fromhex(kept_key.private))
        request = _outgoing(store, info.id, sender, records)
        answered = sealed.outgoing_answer(store, info.id, sender, records)
        voids = sealed.outgoing_voids(store, info.id, sender)
        shown = visible_records(records, for_seat)  # the per-viewer filter: one call
    turn = TurnHeader(sender=sender, reader=for_seat, revealed_secret=revealed,
                      request=None if request is None else checks.wire(request),
                      redacted=redacted_digest(shown), answer=answered, voids=voids)
    write_atomically(path, export_text(header, shown, turn,
                                       sign=lambda hashed: [key.sign(hashed, for_seat)]))
    sent = None if request is None else parse_request(checks.wire(request))  # as it went out
    held = set(withheld(records))
    return Exported(len(shown), sender, for_seat, sent, revealed is not None,
                    len(set(withheld(shown)) - held),
                    None if answered is None else int(answered["round"]), len(held))


def _outgoing(store: EventStore, campaign_id: str, sender: str,
              records: Sequence[EventRecord]) -> AnyRequest | None:
    """The sender's dice request still waiting at the log's position, if any (a withdrawn one
    no longer goes out)."""
    position, next_round = logical_position(records), pair.next_round(store, campaign_id,
                                                                      records)
    for round_, seat, text in store.dice_requests(campaign_id):
        if round_ == next_round and seat == sender:
            request = parse_request(text)
            withdrawn = isinstance(request, SealedRequest) and request.withdrawn
            if request.position == position and not withdrawn:
                return request
    return None


def reveal(session: Handle, ref: str) -> str:
    """Reveal a server-mode campaign's dice secret (the end of the campaign): every later export
    carries it, and every roll then verifies. No new roll may use it afterwards.

    Raises:
        IllegalNowError: Not a server-mode campaign.
        StoreError: This database does not hold the secret.
    """
    with session._store(write=True) as store:
        info = store.find(ref)
        created = events_between(store, info.id, 1, 2)[0].payload  # not the whole log
        spec = created.get(DICE_KEY)
        if not isinstance(spec, dict) or spec.get("mode") != "server":
            raise IllegalNowError(f"{info.name!r} has no server dice secret to reveal (its dice "
                                  "are pair rounds, or from before dice-v1)",
                                  fix="Pair-mode rolls verify as they are made")
        secret = store.reveal_dice_secret(info.id)
        check_reveal(ServerCommitment.model_validate(spec).commitment, secret)
        return secret


def answer(session: Handle, ref: str) -> Executed | PairAnswer:
    """Answer the other seat's waiting dice request (``rallypoint dice answer``).

    An open request: reveal this seat's link, decide their command with both links, and append
    the event. A sealed one (docs/dice.md): reveal only this seat's link of the round, kept and
    sent in this seat's next turn file; nothing is decided or appended here.

    Raises:
        IllegalNowError: No request waits for this seat.
    """
    with session._store(write=True) as store:
        info = store.find(ref)
        records = store.events(info.id)
        mine = checks.held_seats(store, records[0].payload)
        next_round = pair.next_round(store, info.id, records)
        waiting = [parse_request(t) for r, s, t in
                   store.dice_requests(info.id) if r == next_round and s not in mine]
        first = waiting[0] if waiting else None
        if isinstance(first, SealedRequest):
            me = mine[0]
            kept = store.seat_key(seat_cards(records[0].payload)[me].key)
            assert kept is not None  # held above
            return sealed.answer(store, info.id, first, me, bytes.fromhex(kept.chain_seed),
                                 records)
    if first is None:
        raise IllegalNowError(f"no dice request waits for you in {info.name!r}",
                              fix="Import the turn file your opponent sent first")
    command = {**first.command, "expected_version": len(records)}
    return commands.execute(session, info.id, command)


def verify_file(path: Path) -> Verified:
    """Re-check an export file offline: header and head, signature (against the file's own
    seats), chain, a fold of every event, every event re-derived from the command it records
    (against the state its seat's database held), then every roll (with any revealed secret).

    A turn file filtered for its reader (events redacted) is checked as far as the reader can:
    every event shown whole against its hash, every redacted one by its links and the signed
    digest of what was withheld, every visible roll; it is not folded.

    Raises:
        DataFileError: The file is not a readable export.
        IntegrityError: The header, signature, chain, head or a fold fails.
    """
    # One streaming pass (memory: the running state; a hidden game's file too), and whatever
    # that pass does not answer for is verified whole below, as ever.
    read, verified = verify_streamed(path)
    if verified is not None:
        return verified
    exported = read or read_export(path)
    header = exported.campaign
    hidden = withheld(exported.events)
    check_importable(header.id, exported.events, redacted=bool(hidden))
    check_header(exported)
    created = exported.events[0].payload
    signer = check_signed(exported, seat_keys(created))
    if hidden:
        if exported.signatures or (exported.turn or TurnHeader()).redacted:
            check_redacted(exported)  # unsigned (the web's side export): damage, not forgery
    else:
        check_import(header, exported.events)
    again = rederive.check_log(exported.events)
    turn = exported.turn or TurnHeader()
    rolls = stored_rolls(get_ruleset(header.ruleset))
    report = audit(exported.events, lambda e: () if e.seq in hidden else rolls(e),
                   turn.revealed_secret, withheld=frozenset(hidden),
                   burnt=stall.file_voids(exported))
    cards = seat_cards(created)
    return Verified(len(exported.events), report, signer,
                    fingerprint(cards[signer].key) if signer else None, len(hidden),
                    turn.redacted if hidden else None, again.rederived, again.not_rederivable)
