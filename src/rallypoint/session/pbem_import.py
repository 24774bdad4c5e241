"""Importing a turn file: the checks, as named rule steps in one transaction, then the store.

:func:`import_turn` refuses, with one line and nothing written, a file that is edited (even
re-hashed), cut, reordered, replayed, addressed to someone else, forked from the reader's own
history (a fork can be kept as a new campaign instead), whose events are not what their commands
decide, or whose dice rounds do not check (docs/two-player.md). The steps, in order:
:func:`_trust` (whom it comes from, what is new), :func:`_rederive` (every new event decided
again), :func:`_rounds` (the dice rounds it carries), :func:`_store_turn` (what it writes).

A file is first checked and stored in one streaming pass (:func:`_import_streamed`,
:mod:`rallypoint.session.turn_stream`; a hidden game's, and a file kept as a new campaign,
too), so a long log is never held in memory; any file that pass does not accept is rolled back
and checked whole as above.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from rallypoint.core.campaign import Campaign
from rallypoint.core.events import EventRecord
from rallypoint.core.playcheck import fold_stored
from rallypoint.dice.sealed import AnyRequest, PairAnswer, parse_request, public_commitment
from rallypoint.session import ownership, pair, rederive, sealed, sealed_answers, snapshots, stall
from rallypoint.session import pbem_checks as checks
from rallypoint.session.handle import Handle
from rallypoint.session.import_stream import streaming
from rallypoint.session.importing import check_import
from rallypoint.session.owed import owed_events, store_owed
from rallypoint.session.results import Executed
from rallypoint.session.spool import spooled
from rallypoint.session.turn_stream import TurnWalk, Walked
from rallypoint.store import CampaignInfo, EventStore, exchange
from rallypoint.store.exchange import (
    ExportedCampaign,
    check_header,
    check_importable,
    check_signed,
    read_export,
)
from rallypoint.store.location import exists
from rallypoint.store.signing import SeatCard, fingerprint, seat_cards, seat_keys
from rallypoint.store.visibility import withheld

__all__ = ["Imported", "import_turn"]


@dataclass(frozen=True)
class Imported:
    """What :func:`import_turn` stored."""

    info: CampaignInfo
    new_events: int
    sender: str | None
    fingerprint: str | None
    request: AnyRequest | None
    """The sender's dice request, now waiting for ``rallypoint dice answer``."""
    forked: bool
    note: str | None = None
    """What became of this seat's own waiting dice request, if anything did."""
    withheld: int = 0
    """New events of the file redacted for this seat (the sender's secrets): stored so, and
    folded by their public parts; their hashes are checked at the reveal (``rallypoint
    reveal``)."""
    owed: int = 0
    """Events this database appended after the file's, for its own hidden bookkeeping (TCS: the
    accrual of this seat's pending sheets for the turns the other seat advanced)."""
    resolved: Executed | None = None
    """This seat's sealed command, decided with the link the file's answer brought."""


def import_turn(session: Handle, path: Path, *, name: str | None = None,
                as_name: str | None = None) -> Imported:
    """Check a turn file whole, then store what is new in it (nothing at all if a check fails).

    The checks run as four named steps, in this order, inside one transaction: whom the file
    comes from and what is new in it (:func:`_trust`), every new event decided again
    (:func:`_rederive`), the dice rounds it opens, answers or voids (:func:`_rounds`), and
    only then what it brings is written (:func:`_store_turn`).

    Args:
        session: The reader's database.
        path: The file.
        name: Name for a campaign new to this database (default: the exported name).
        as_name: Keep the file as a *new* campaign of this name (a fork of one you have, or a
            copy): its events are sealed again under a new id, after every check.

    Raises:
        DataFileError: Not a readable export.
        IntegrityError: Edited, cut, reordered, re-hashed, replayed, forked (without
            ``as_name``), addressed to another seat, signed by a stranger, or its dice fail.
    """
    # A pipe is read once, into a private copy both checks read (session/spool.py).
    with spooled(Path(path), exchange.EXPORT_LIMITS.max_bytes) as source:
        return _import_turn(session, source, name, as_name)


def _import_turn(session: Handle, path: Path, name: str | None,
                 as_name: str | None) -> Imported:
    """:func:`import_turn` of a file that can be read twice (into a database not made yet:
    made beside it, :func:`_import_staged`)."""
    if not exists(session.location) and Path(session.location).parent.is_dir():
        return _import_staged(session, lambda here: _import_here(here, path, name, as_name))
    return _import_here(session, path, name, as_name)


def _import_here(session: Handle, path: Path, name: str | None,
                 as_name: str | None) -> Imported:
    """:func:`import_turn` into ``session``'s database: streamed, else checked whole."""
    streamed = _import_streamed(session, path, name, as_name)
    if streamed is not None:
        return streamed
    exported = _read_turn(path)
    # One transaction: a file refused at any step, however late, leaves nothing written.
    with session.transaction() as store:
        turn = _trust(store, path, exported, as_name)
        _rederive(turn)
        rounds = _rounds(turn)
        info, request, note, owed = _store_turn(turn, rounds, name)
        resolved = (None if rounds.answer is None
                    else sealed_answers.resolve_answer(session, info.id, rounds.answer))
    signer, records = turn.signer, exported.events
    return Imported(info, turn.new, signer,
                    fingerprint(turn.cards[signer].key) if signer else None,
                    request, as_name is not None, note,
                    len([s for s in turn.hidden if s > len(records) - turn.new]), owed,
                    resolved)


def _import_streamed(session: Handle, path: Path, name: str | None,
                     as_name: str | None = None) -> Imported | None:
    """The file checked and stored in one streaming pass (:mod:`rallypoint.session
    .turn_stream`: memory holds the running state, not the log), then its dice rounds and
    requests as :func:`_rounds` and :func:`_store_turn` take them, in one transaction.

    Returns:
        ``None`` when that pass does not decide the file (it fails any check, or asks what
        the pass leaves to the whole check): the transaction is rolled back, nothing is
        written, and the caller checks the file whole, whose answer or one-line refusal
        stands.
    """
    if not Path(path).is_file():
        # A pipe can be read only once, and the whole check may have to read it again.
        return None
    return _walk_file(session, path, name, as_name)


def _import_staged(session: Handle, run: Callable[[Handle], Imported]) -> Imported:
    """An import into a database that does not exist yet: ``run`` fills a new database beside
    it, put in its place only once the file is accepted, and removed however it ends, so a
    refusal at any step (the stream's or the whole check's, even one that needs the database,
    such as a seat key it does not hold) leaves no file.

    Falls back to ``run`` in place when the new database cannot be linked into place (no hard
    links here) or left a journal beside it, and imports into the database when one was made
    there meanwhile (a link never replaces a file).
    """
    target = Path(session.location)
    staged = target.with_name(f".{target.name}.{uuid.uuid4().hex}.importing")
    try:
        done = run(Handle(staged))
        if _journal_left(staged):
            return run(session)
        try:
            os.link(staged, target)
        except OSError:  # made here meanwhile (FileExistsError), or no hard links here
            return run(session)
        return done
    finally:
        for suffix in _SQLITE_FILES:
            Path(f"{staged}{suffix}").unlink(missing_ok=True)


_SQLITE_FILES = ("", "-wal", "-shm", "-journal")
"""A SQLite database's file and the files its journal may leave beside it."""


def _journal_left(staged: Path) -> bool:
    """Whether the closed database left a journal behind (its file alone is then not the
    database: not linked into place)."""
    for suffix in ("-wal", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            if Path(f"{staged}{suffix}").stat().st_size:
                return True
    return False


def _walk_file(session: Handle, path: Path, name: str | None,
               as_name: str | None) -> Imported | None:
    """:func:`_import_streamed` into ``session``'s database (see there)."""
    try:
        with ExitStack() as stack:
            walk = TurnWalk(stack, session.transaction, name, as_name)
            with streaming():
                exported = read_export(path, walk)
            if walk.exported is None:
                return None  # the header came after the events: read whole (nothing opened)
            return _after_walk(session, path, walk.finish(exported), as_name)
    except Exception:  # rolled back: the whole check decides (see above)
        return None


def _after_walk(session: Handle, path: Path, walked: Walked, as_name: str | None) -> Imported:
    """What :func:`_trust`, :func:`_rederive`, :func:`_rounds` and :func:`_store_turn` check and
    write beyond one event at a time, on the log the walk read (its rows, read back).

    Raises:
        IntegrityError: A check fails (the caller rolls back and checks the file whole).
    """
    store, exported, records, stored = (walked.store, walked.exported, walked.records,
                                        walked.stored)
    campaign_id, signer, fork_id = exported.campaign.id, walked.signer, walked.fork_id
    if walked.cards:
        checks.check_reader(exported, walked.cards, walked.mine, signer,
                            as_copy=fork_id is not None)
    new = len(records) if fork_id is not None else _count_new(walked)
    checks.check_report(walked.dice)
    if walked.cards and signer is not None:
        sealed.check_resolves(store, campaign_id, walked.mine, stored, records)
    turn = _Turn(store, path, exported.model_copy(update={"events": records}),
                 as_name, stored, walked.cards, signer, walked.mine,
                 frozenset(), new)
    rounds = _rounds(turn)
    if fork_id is not None:
        checks.keep_fork_secret(store, campaign_id, fork_id)
    info, request, note, owed = _keep_rounds(turn, rounds, store.campaign(fork_id or campaign_id),
                                             walked.hidden, walked.campaign)
    resolved = (None if rounds.answer is None
                else sealed_answers.resolve_answer(session, info.id, rounds.answer))
    return Imported(info, new, signer,
                    fingerprint(walked.cards[signer].key) if signer else None,
                    request, fork_id is not None, note, walked.withheld, owed, resolved)


def _count_new(walked: Walked) -> int:
    """How many of the walked file's events are new here (:func:`checks.new_events` beyond the
    walk's check of every held event's hash: a replay is refused).

    Raises:
        IntegrityError: The file is a replay.
    """
    store, exported, records, stored = (walked.store, walked.exported, walked.records,
                                        walked.stored)
    campaign_id = exported.campaign.id
    known = {(r, s, public_commitment(parse_request(t)))
             for r, s, t in store.dice_requests(campaign_id)}
    # As checks.fresh_answer and stall.fresh_void, against the log as it was before the file.
    answered = sealed.answer_is_fresh(exported.turn.answer if exported.turn else None, stored) or (
        bool(stored) and bool(stall.file_voids(exported) - stall.burnt_rounds(store, campaign_id)))
    return checks.count_new(len(stored), len(records), len(records), exported, known, answered)


def _read_turn(path: Path) -> ExportedCampaign:
    """The file read, its header and chain whole, and (filtered for its reader) signed, with
    its redacted payloads the ones the signed header hashes; before the database is opened."""
    exported = read_export(path)
    hidden = bool(withheld(exported.events))
    check_importable(exported.campaign.id, exported.events, redacted=hidden)
    check_header(exported)
    if hidden:
        checks.check_filtered(path, exported)
    return exported


@dataclass(frozen=True)
class _Turn:
    """A turn file being imported, and what the reader's database knows of its campaign.

    Attributes:
        stored: This database's events of the campaign (empty: new here).
        cards: The seats' cards, from this database's own ``created`` when it has one.
        signer: The seat whose key signed the file (``None``: unsigned).
        mine: The seats whose keys this database holds.
        hidden: Seqs of the file's events redacted for this reader.
        new: How many of the file's events are new here.
    """

    store: EventStore
    path: Path
    exported: ExportedCampaign
    as_name: str | None
    stored: Sequence[EventRecord]
    cards: dict[str, SeatCard]
    signer: str | None
    mine: list[str]
    hidden: frozenset[int]
    new: int

    @property
    def records(self) -> Sequence[EventRecord]:
        """The file's log."""
        return self.exported.events

    @property
    def campaign_id(self) -> str:
        """The campaign's id (the file's, which a stored campaign shares)."""
        return self.exported.campaign.id


def _trust(store: EventStore, path: Path, exported: ExportedCampaign,
           as_name: str | None) -> _Turn:
    """Whom the file comes from and what is new in it: signed by one of the campaign's seats
    (this database's own copy of ``created`` names them), addressed to a seat held here, and
    no replay, cut or fork of this database's history (a fork only ``as_name``).

    Raises:
        IntegrityError: Any of these fails.
    """
    header, records = exported.campaign, exported.events
    stored = store.events(header.id) if checks.exists(store, header.id) else []
    trusted = (stored or records)[0].payload  # our own copy of `created`, when we have one
    cards = seat_cards(trusted)
    signer = check_signed(exported, seat_keys(trusted))
    mine = checks.held_seats(store, trusted)
    if cards:
        checks.check_reader(exported, cards, mine, signer, as_copy=as_name is not None)
    known = {(r, s, public_commitment(parse_request(t)))
             for r, s, t in store.dice_requests(header.id)}
    answered = (checks.fresh_answer(exported, store, header.id)
                or stall.fresh_void(exported, store, header.id))
    new = checks.new_events(path, stored, records, exported, as_name, known, answered)
    return _Turn(store, path, exported, as_name, stored, cards, signer, mine,
                 frozenset(withheld(records)), new)


def _rederive(turn: _Turn) -> None:
    """Every new event as the rules give it: the file's log folds (a partial one through the
    ruleset's public parts), every roll checks, and every foreign event is decided again from
    its command (:mod:`rallypoint.session.rederive`).

    Raises:
        IntegrityError: A fold, a roll or a re-derivation fails.
    """
    records, store = turn.records, turn.store
    check_import(turn.exported.campaign, records)
    checks.check_dice(turn.exported, turn.cards, turn.signer, turn.mine, turn.stored, records,
                      store, turn.campaign_id, turn.hidden)
    rederive.check_file(store, turn.stored, records,
                        sender=turn.signer if turn.cards else None, mine=turn.mine,
                        whole=turn.as_name is not None)


@dataclass(frozen=True)
class _Rounds:
    """The dice rounds a turn file carries, each checked (docs/dice.md).

    Attributes:
        request: The sender's dice request, for this seat to answer.
        answer: The sender's answer to this seat's sealed request.
        voids: The rounds the sender made void (a stall).
    """

    request: AnyRequest | None
    answer: PairAnswer | None
    voids: list[PairAnswer]


def _rounds(turn: _Turn) -> _Rounds:
    """The file's dice request, answer and voids, checked before anything is written: each
    on the sender's chain, for the log's position and next round; a request may not replace
    one this seat answered, and the log may not move past this seat's waiting request unless
    the file voids it.

    Raises:
        IntegrityError: Any of these fails.
    """
    store, exported, cards, signer = turn.store, turn.exported, turn.cards, turn.signer
    campaign_id, stored = turn.campaign_id, turn.stored
    request = checks.checked_request(exported, cards, signer,
                                     pair.burnt_round(store, campaign_id) if stored else 0)
    answer_ = checks.checked_answer(exported, cards, signer, turn.mine, store, stored,
                                    turn.records)
    stall.check_not_replacing(request, store, campaign_id, turn.mine)
    voids = stall.checked_voids(exported, signer, store, campaign_id, stored, cards)
    stall.check_moved_past(store, campaign_id, turn.mine, stored, turn.records, voids)
    return _Rounds(request, answer_, voids)


def _store_turn(turn: _Turn, rounds: _Rounds,
                name: str | None) -> tuple[CampaignInfo, AnyRequest | None, str | None, int]:
    """Write what the checked file brings: its events (or a fork under a new id), its voids,
    the sender's request, a revealed dice secret, and this seat's owed hidden bookkeeping.

    Returns:
        The campaign; the sender's request as kept (``None``: it crossed this seat's, which
        goes first); the note on this seat's own request; the owed events appended.
    """
    store, exported = turn.store, turn.exported
    header = exported.campaign
    if turn.as_name is not None:
        info = checks.store_fork(store, exported, turn.as_name)
    else:
        info = store.import_records(header.id, name or header.name, header.ruleset,
                                    header.created_at, turn.records)
    return _keep_rounds(turn, rounds, info)


def _keep_rounds(turn: _Turn, rounds: _Rounds, info: CampaignInfo, hidden: bool | None = None,
                 campaign: Campaign | None = None,
                 ) -> tuple[CampaignInfo, AnyRequest | None, str | None, int]:
    """After the file's events are written: its voids, the sender's request, a revealed dice
    secret, and this seat's owed hidden bookkeeping (as :func:`_store_turn` returns them).

    ``hidden``: whether the file withholds events (default: ``turn.hidden``); ``campaign``:
    the campaign as stored now, when the caller folded it already (a streamed import)."""
    hidden = bool(turn.hidden) if hidden is None else hidden
    store, exported, records, mine = turn.store, turn.exported, turn.records, turn.mine
    void_note = stall.keep_voids(store, info.id, rounds.voids, mine)
    note = checks.tidy_requests(store, info.id, records, mine) or void_note
    request = rounds.request
    if request is not None:
        request, note = checks.keep_request(store, info.id, request, mine)
    sent = exported.turn
    if sent is not None and sent.revealed_secret is not None:
        store.put_revealed_secret(info.id, sent.revealed_secret)
    owed = (_settle(store, info, campaign) if hidden and request is None
            and rounds.answer is None and mine else 0)
    if owed:
        info = store.campaign(info.id)
    return info, request, note, owed


def _settle(store: EventStore, info: CampaignInfo, folded: Campaign | None = None) -> int:
    """Bring this seat's hidden bookkeeping up to date after the other seat's events (a partial
    log: e.g. TCS accrues this seat's pending sheets for the turns the file advanced).

    Not while a dice request waits, nor when the file answers this seat's sealed round: the
    round must be decided at the request's position. ``folded``: the campaign as stored,
    folded already (a streamed import's, whose log is not read again).
    """
    if folded is not None and folded.version == info.version:
        campaign = folded
    else:
        # From the state snapshot on when one matches (the import checked the file already).
        resumed = snapshots.resume(store, info)
        campaign = resumed[0] if resumed is not None else fold_stored(store.events(info.id))
    owed = owed_events(campaign, ownership.deciding_seat(store, campaign))
    store_owed(store, campaign, owed)
    return len(owed)
