"""A turn file's events checked and stored in one streaming pass (``rallypoint import``).

:func:`rallypoint.session.pbem_import.import_turn` checks a turn file whole: every record held
(about 5 times the file's size), this database's log read whole beside it, then each check a
pass over both. :class:`TurnWalk` takes the file's events one at a time as
:func:`rallypoint.store.exchange.read_export` validates them, inside the write transaction, and
puts each through every per-event check of that path before its row goes in: the campaign and
hash chain, the clock, the fold (:class:`~rallypoint.core.playcheck.PlayCheck`), the events
this database already holds (the same hash at each seq: no fork), each new event decided again
from its command against the fold's campaign (:mod:`rallypoint.session.rederive`), its dice
(:class:`~rallypoint.dice.audit.Auditor`), and the dice rounds of this seat's own commands it
resolves. What depends on the signer (known once the header's signature is checked, at the
end) is noted on the way and decided in :meth:`TurnWalk.finish`.

This pass may refuse more than the whole-file check (it folds every event the same way, so it
asks of an earlier event's command what the whole check asks only of a newer one); it never
accepts less. Its caller rolls back on any refusal and checks the file whole instead, so the
answer, or the one-line refusal, is always the whole-file check's.

A hidden game (a campaign whose ruleset can hide anything from a seat: events redacted for the
reader, blinds) is walked too, with what the whole check adds for it (``_read_turn``'s
``check_filtered``, ``rederive``'s seat views and ``check_public``): each redacted event is an
honest kind of redaction and summed into the withheld digest the signed header names, the chain
is checked by link where an event's hash cannot be recomputed, and every new event is decided
against this database's own log (its rows, which hold its own events whole, folded beside the
file's). Beyond this database's head, an event that is what its command decides only against
the log as the deciding seat's database held it (``rederive``'s seat view) is refused here and
left to the whole check: in a hidden game every event whose decision depends on a secret
arrives redacted, so an event shown whole is decided alike on both tables. A log new here (or
kept as a copy, below) is decided as ``check_log`` decides it, in that seat's view too.

A file kept as a new campaign (``import FILE --as NAME``, a fork of one this database has, or
a copy) is walked as a campaign new here, as the whole check takes it: every event decided
again against the file's own log, each row sealed again under the new campaign's id as it goes
in (``pbem_checks.store_fork``: same payloads and times). What the whole check still asks of
this database's own log of the file's campaign (whose ``created`` names the seats, the dice
rounds it resolved or burnt) reads that log back a page at a time
(:class:`~rallypoint.session.fork_rows.ForkRows`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rallypoint.core.campaign import Campaign, describe_event, read_event, stored_rolls
from rallypoint.core.declarations import OpenDeclaration
from rallypoint.core.differences import Difference
from rallypoint.core.events import (
    CREATED,
    UNDONE,
    EventModel,
    EventRecord,
)
from rallypoint.core.folding import LogFold
from rallypoint.core.playcheck import PlayCheck
from rallypoint.core.visibility import BLIND, declaration_of, is_redacted
from rallypoint.dice.audit import Auditor
from rallypoint.dice.report import DiceReport
from rallypoint.dice.sealed import AnyRequest, parse_request
from rallypoint.session import pair, stall
from rallypoint.session import pbem_checks as checks
from rallypoint.session.fork_rows import ForkRows
from rallypoint.session.import_stream import sweep
from rallypoint.session.made_by import check_carried, check_owner, commands_required, made_by
from rallypoint.session.rederive import check_public, decide_again, refusal
from rallypoint.session.rederive_undo import target_difference
from rallypoint.session.row_log import RowLog, Rows
from rallypoint.session.seat_views import ViewsOnDemand
from rallypoint.session.stream_secrets import kept_only
from rallypoint.store.importcheck import (
    IMPORT_FIX,
    ClockCheck,
    VisibleChainCheck,
    check_created,
    check_created_at,
)
from rallypoint.store.signing import SeatCard, seat_cards, seat_keys
from rallypoint.store.visibility import HonestRedactions, RedactedDigest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from rallypoint.store import EventStore
    from rallypoint.store.exchange import ExportedCampaign
    from rallypoint.store.import_rows import ImportRows


class Whole(Exception):
    """This pass does not decide the file (see the module docstring): check it whole."""


def may_hide(created: EventRecord) -> bool:
    """Whether a campaign's events may hide anything from a seat: two or more sides, and a
    ruleset whose secrets declaration is not the open one (or a plain dice seed, which the
    ``created`` of a shared campaign hides)."""
    declared = declaration_of(str(created.payload.get("ruleset", "")))
    if len(declared.sides(created.payload.get("scenario") or {})) < 2:
        return False
    return not isinstance(declared, OpenDeclaration) or created.payload.get("seed") is not None


@dataclass(frozen=True)
class Walked:
    """What one pass over a turn file found, its rows written in the open transaction.

    Attributes:
        store: The transaction's store.
        exported: The file's header (its ``events`` empty: see ``records``).
        records: The file's log, read back from the transaction's rows.
        stored: This database's log of the campaign before the file (empty: new here).
        cards: The seats' cards, from this database's own ``created`` when it has one.
        signer: The seat whose key signed the file (``None``: unsigned).
        mine: The seats whose keys this database holds.
        dice: The dice audit's failed verdicts (none: every roll checks).
        hidden: Whether the file withholds any event from its reader.
        withheld: How many of its new events it withholds.
        campaign: This database's campaign after the file (the fold of its rows).
        fork_id: The new campaign's id, when the file was kept as one (``import --as``):
            ``records`` are its rows, ``stored`` this database's log of the file's campaign.
    """

    store: EventStore
    exported: ExportedCampaign
    records: RowLog
    stored: RowLog
    cards: dict[str, SeatCard]
    signer: str | None
    mine: list[str]
    dice: DiceReport
    hidden: bool = False
    withheld: int = 0
    campaign: Campaign | None = None
    fork_id: str | None = None


class TurnWalk:
    """The running checks and rows of one turn file (an ``ExportStream``).

    Args:
        stack: Holds the transaction open until the caller is done with it.
        open_store: Opens the database's write transaction (once the header is read).
        name: Name for a campaign new here (default: the exported name).
        fork_as: Keep the file as a new campaign of this name (``import --as``; see the module
            docstring).
    """

    def __init__(self, stack: ExitStack,
                 open_store: Callable[[], AbstractContextManager[EventStore]],
                 name: str | None, fork_as: str | None = None) -> None:
        self._stack, self._open, self._name = stack, open_store, name
        self._fork_as = fork_as
        self._fork: ForkRows | None = None
        self._before = 0  # this database's events of the file's campaign
        self.exported: ExportedCampaign | None = None
        self._store: EventStore | None = None
        self._rows: ImportRows | None = None
        self._rows_open: ExitStack | None = None
        self._chain: VisibleChainCheck | None = None
        self._clocks = ClockCheck()
        self._play: PlayCheck | None = None
        self._audit: Auditor | None = None
        self._first: EventRecord | None = None
        self._last: EventRecord | None = None
        self._trusted: dict[str, object] = {}
        self._cards: dict[str, SeatCard] = {}
        self._mine: list[str] = []
        self._asked: dict[int, AnyRequest] = {}
        self._required = False
        self._made_seen = False
        self._round = 0
        self._stored_at = (1, 0)  # the position and last round at the stored head
        self._made_seats: set[object] = set()  # seats the new events say decided them
        self._undo_seats: set[str | None] = set()  # seats whose rolls new undos cancel
        self._acting = pair.ActingSeats()  # each event's proof seat, as the file shows it
        # A hidden game: this database's own log (its rows: its own events whole) beside the
        # file's, and what the whole check adds for a filtered file.
        self._hidden = True
        self._held: Iterator[EventRecord] | None = None  # this database's rows, to its head
        self._base: LogFold | None = None  # their fold, then the new events'
        self._digest = RedactedDigest()
        self._honest: HonestRedactions | None = None
        self._sender_used = False  # the turn header's sender taken before its signature
        self._withheld = 0
        # A log new here: each seat's view, folded from the first event decided only in one
        # (``rederive.check_log``'s second view), and whether any event hides anything.
        self._views: ViewsOnDemand | None = None
        self._hides = False

    def header(self, exported: ExportedCampaign) -> bool:
        """Open the transaction and the campaign's rows (a new campaign's name is checked)."""
        header = exported.campaign
        self.exported = exported
        self._chain = VisibleChainCheck(header.id)
        self._store = self._stack.enter_context(self._open())
        self._rows_open = self._stack.enter_context(ExitStack())
        rows_id, rows_name = header.id, self._name or header.name
        if self._fork_as is not None:
            self._fork = ForkRows(self._store, header.id)
            rows_id, rows_name = self._fork.id, self._fork_as
        self._rows = self._rows_open.enter_context(self._store.importing(
            rows_id, rows_name, header.ruleset, header.created_at))
        self._before = self._rows.stored if self._fork is None else self._fork.held
        return True

    @property
    def _stored(self) -> int:
        assert self._rows is not None
        return self._rows.stored

    def event(self, record: EventRecord) -> None:
        """Every per-event check of the whole-file import, then the row.

        Raises:
            Whole: The file hides something from a seat of a campaign this pass does not
                walk so, or the pass cannot decide an event (the whole check does).
            IntegrityError: A check fails (the caller checks the file whole instead).
        """
        assert self._chain is not None and self._rows is not None
        if self._play is None:  # ``created``: whether this database's copy may differ
            self._hidden = not self._stored or may_hide(record)
        if not self._hidden and (is_redacted(record) or BLIND in record.payload):
            raise Whole
        text = self._chain.add(record)
        self._hides = self._hides or is_redacted(record) or BLIND in record.payload
        sweep(self._chain.count)
        self._clocks.add(record)
        self._check_redacted(record)
        if self._play is None:
            self._start(record)
        else:
            self._step(record)
        self._round = max([self._round, *(h.round or 0 for _, h in pair.pair_rounds([record]))])
        self._acting.add(record)
        if record.seq == self._stored:
            assert self._audit is not None
            self._stored_at = (self._audit.position, self._round)
        self._last = record
        # A held event: its hash must be the stored one; a fork's: sealed again.
        self._rows.add(record if self._fork is None else self._fork.sealed(record, text), text)

    def _check_redacted(self, record: EventRecord) -> None:
        """An event redacted for the reader, as ``check_filtered`` checks it: summed into the
        withheld digest (compared with the signed header's at the end), and an honest kind of
        redaction (:class:`~rallypoint.store.visibility.HonestRedactions`: an undo by what it
        kept of its target, one byte an event).

        Raises:
            Whole: It is not, or it undoes no earlier event (the whole check names how).
        """
        self._digest.add(record)
        if self._honest is None:
            self._honest = HonestRedactions(record)
        try:
            honest = self._honest.honest(record)
        except LookupError:
            raise Whole from None
        if not honest:
            raise Whole
        self._withheld += is_redacted(record) and record.seq > self._stored

    def _start(self, first: EventRecord) -> None:
        """The ``created`` event: whose seats these are (this database's own ``created``, when
        it has one), the folds, the audit and the dice requests of this seat's commands."""
        assert self.exported is not None and self._rows is not None and self._store is not None
        check_created(self.exported.campaign, first)
        self._first = first
        held = first
        if self._stored:
            self._held = iter(Rows(self._rows.records, 1, self._stored + 1))
            held = next(self._held)
            if self._hidden:  # this database's log folded beside the file's
                self._base = LogFold(held, self._rows.records)
            else:
                self._held = None  # nothing hidden: its log is the file's
        elif self._fork is not None and self._fork.held:  # as _trust: this database's own
            held = self._fork.held_created()  # ``created`` names the seats
        self._note_held(held)
        self._trusted = held.payload
        self._cards = seat_cards(self._trusted)  # each card's signature checked once
        self._mine = checks.held_seats(self._store, self._trusted)
        # The file's fold reads older records again from the rows, which hold the file's
        # events unless this database holds its own copies (a hidden game's): then not at all.
        self._play = PlayCheck(first, IMPORT_FIX,
                               kept_only if self._base is not None else self._rows.records)
        self._required = commands_required(first.payload)
        campaign_id = self.exported.campaign.id
        turn = self.exported.turn
        burnt = stall.file_voids(self.exported) | (
            stall.burnt_rounds(self._store, campaign_id) if self._before else frozenset())
        self._audit = Auditor(first, stored_rolls(self._play.folding.ruleset),
                              turn.revealed_secret if turn else None, burnt=burnt,
                              failures_only=True)
        self._asked = {r: parse_request(t) for r, s, t in self._store.dice_requests(campaign_id)
                       if s in self._mine}

    def _note_held(self, held: EventRecord) -> None:
        """What the log as this database holds it says of the commands it requires
        (``rederive.check_new``)."""
        if held.seq > 1 and made_by(held) is not None:
            self._made_seen = True

    def _step(self, record: EventRecord) -> None:
        """One event after ``created``: a new one decided again and its dice rounds checked,
        then every event folded (the file's, and this database's own log) and audited."""
        assert self._play is not None and self._audit is not None
        new = record.seq > self._stored
        held = record if new or self._held is None else next(self._held)
        typed = self._rederive(record) if new else None
        self._note_held(held)
        self._play.add(record, typed)
        if self._views is not None:
            self._views.add(record)
        if self._base is not None:
            self._base.add(held, typed)
        self._audit.add(record)
        if record.seq > self._before and self._cards:  # (a fork's: past this log's length)
            self._own_rounds(record)

    @property
    def _fold(self) -> LogFold:
        """This database's log folded so far (the file's, when they are one)."""
        assert self._play is not None
        return self._base if self._base is not None else self._play.folding

    def _rederive(self, record: EventRecord) -> EventModel | None:
        """A new event decided again from its command against the campaign before it, as
        :func:`rallypoint.session.rederive.check_log` (a campaign new here) or ``check_new``
        (new events beyond this database's head) decide it, against this database's log; an
        undo names the latest event in effect, and (beyond the head, shown whole) says what
        that event did; a redacted event's public parts are what the rules give on this
        database's table.

        Raises:
            IntegrityError: A missing command, a command of another side, or any difference.
        """
        fold = self._fold
        required = self._required or (self._stored > 0 and self._made_seen)
        made = check_carried(record, required)
        if record.type == UNDONE:
            self._check_undo(record, fold.effective[-1] if fold.effective else None)
        if made is None:
            if self._stored and is_redacted(record) and record.type not in (CREATED, UNDONE):
                sender = self._sender()
                if sender is not None:
                    check_public(fold.campaign(), record, sender)
            return None
        if self._stored:  # check_new: decided in the sender's database (check_log asks not)
            self._made_seats.add(made.get("seat"))
        campaign = fold.campaign()
        check_owner(campaign, record, made, self._mine if self._stored else ())
        found = decide_again(campaign, record)
        if isinstance(found, Difference):
            if self._stored or not self._decided_in_view(record, made.get("seat")):
                raise refusal(record, found)  # (or the sender's view decides it: whole check)
            return None
        return found

    def _decided_in_view(self, record: EventRecord, seat: object) -> bool:
        """A log new here (or kept as a copy), as ``rederive.check_log`` decides an event that
        differs against the log as it is: against its seat's view, folded from the rows before
        it (:class:`~rallypoint.session.seat_views.ViewsOnDemand`); an event decided so, in a
        log that turns out to hide nothing, is left to the whole check (:meth:`finish`)."""
        if self._views is None:
            assert self._rows is not None and self._first is not None
            rows = self._rows.records

            def replay(first: int, stop: int, take: Callable[[EventRecord], None]) -> None:
                for row in Rows(rows, first, stop):
                    take(row)
            self._views = ViewsOnDemand(self._first, self._cards, replay)
        return self._views.decides(record, seat)

    def _sender(self) -> str | None:
        """The seat the turn header names as the sender (its signature is checked at the
        end: the walk then requires that seat to have signed it), in a campaign with seats."""
        turn = self.exported.turn if self.exported is not None else None
        if not self._cards or turn is None or turn.sender is None:
            return None
        self._sender_used = True
        return turn.sender

    def _check_undo(self, record: EventRecord, latest: int | None) -> None:
        """An undo of the latest effective event; beyond this database's head, shown whole,
        its summary is what that event did (``rederive_undo.undo_difference``).

        Raises:
            Whole: It is not (the whole check names how).
        """
        if target_difference(latest, record) is not None or latest is None:
            raise Whole
        if self._stored and not is_redacted(record):
            assert self._rows is not None
            target = next(self._rows.records(latest, latest + 1))
            if is_redacted(target):
                raise Whole  # described by the seat's view: the whole check does
            typed = read_event(self._fold.ruleset, target)
            if record.payload.get("summary") != describe_event(self._fold.ruleset, typed):
                raise Whole

    def _own_rounds(self, record: EventRecord) -> None:
        """A new event's dice rounds, as ``pbem_checks.check_dice`` checks them: a round
        resolving this seat's command is the command this seat asked for; the seat whose
        roll an undo cancels is noted (the sender may not undo its own resolved roll).

        Raises:
            IntegrityError: A round of this seat's that it did not ask for.
        """
        if record.type == UNDONE:
            target = record.payload.get("target")
            if isinstance(target, int) and 1 <= target < record.seq:
                # As ``pair.acting_seat`` reads it: from the file's copy of the event.
                self._undo_seats.add(self._acting.of(target))
        for seq, proof in pair.pair_proofs([record]):
            if proof.seat in self._mine and not checks.asked_for(self._asked, proof):
                raise Whole(f"#{seq} resolves a round of this seat it did not ask for")

    def finish(self, exported: ExportedCampaign) -> Walked:
        """The checks over the whole file, then the rows closed (the caller's transaction
        commits them once the rest is checked).

        Raises:
            Whole: The header changed after the events, or an event was decided by another
                seat than the signer, or undoes the signer's own resolved roll; or what the
                walk took for a hidden game does not hold.
            IntegrityError: The head, header hash, signature or ``created_at`` fails, or the
                final state cannot be shown.
        """
        first, last, play, audit = self._first, self._last, self._play, self._audit
        if (first is None or last is None or play is None or audit is None
                or self._rows is None or self._rows_open is None or self._store is None
                or self.exported is None or last.seq < self._stored
                or (exported.campaign, exported.turn) != (self.exported.campaign,
                                                          self.exported.turn)):
            raise Whole  # a header that changed after the events, or a file behind this log
        from rallypoint.store.exchange import check_header, check_signed

        check_header(exported, last)
        signer = check_signed(exported, seat_keys(self._trusted))
        check_created_at(exported.campaign, first)
        self._check_hidden(exported, signer)
        if self._views is not None and self._views.used and not self._hides:
            raise Whole  # decided only in a seat's view, in a log that hides nothing
        play.finish()
        cards = self._cards
        if cards and signer is not None and (
                signer in self._undo_seats or self._made_seats - {signer}):
            raise Whole
        campaign = self._fold.campaign()
        read = self._rows.records
        self._rows_open.close()  # the rows flushed; they are read back from the transaction
        stored = RowLog(read, self._stored, *self._stored_at)
        if self._fork is not None:
            stored, campaign = self._fork.held_log(), self._fork.campaign(campaign)
        return Walked(self._store, exported,
                      RowLog(read, last.seq, audit.position, self._round), stored,
                      cards, signer, self._mine, audit.report(), self._digest.count > 0,
                      self._withheld, campaign, None if self._fork is None else self._fork.id)

    def _check_hidden(self, exported: ExportedCampaign, signer: str | None) -> None:
        """What the walk took on the way for a hidden game: a file that withholds events is
        signed and its withheld digest the signed header's (``check_filtered``); the sender
        the walk took from the turn header signed the file.

        Raises:
            Whole: Any of these does not hold (the whole check names how).
        """
        stated = exported.turn.redacted if exported.turn else None
        if self._digest.count and (not exported.signatures or self._digest.value() != stated):
            raise Whole
        if self._sender_used and signer is None:
            raise Whole
