"""The reveal in one streaming pass: the other seat's file read one event at a time beside this
database's log, read a page at a time, each merged event checked and written as it comes.

:func:`rallypoint.session.reveal.reveal` holds both logs, the merged one, each seat's redaction
of it and the text written (its peak 190 MiB at 10,000 events, 63 MiB at 1,000). Here each pair
of events goes through every check of that path before the next is read: the same hash in both
logs, whole in one of them, the merged chain, what each seat was shown the honest redaction of
the whole event (:func:`rallypoint.core.redaction.redact_events`, one event at a time), the
fold, the decision again of every event against the log as it is and as each seat's database
held it (:mod:`rallypoint.session.rederive`), and its dice (:class:`~rallypoint.dice.audit
.Auditor`); the event then goes to the merged file (:class:`~rallypoint.store.export_writer
.ExportWriter`), which is put in place only once the whole log and the file's signature and
withheld digest (checked at the end) hold.

This pass never accepts what the whole check refuses (it may refuse more: e.g. an undo reaching
back past the secrets it keeps). Its caller checks the file whole after any refusal here, so
the answer, or the one-line refusal, is always the whole check's, and nothing is written on a
refusal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rallypoint.core.campaign import stored_rolls
from rallypoint.core.declarations import EventSecrets
from rallypoint.core.events import UNDONE, EventModel, EventRecord
from rallypoint.core.playcheck import PlayCheck
from rallypoint.core.redaction import REDACTED, redact_record
from rallypoint.core.visibility import BLIND, Viewer, is_redacted
from rallypoint.dice.audit import Auditor
from rallypoint.dice.report import DiceTally
from rallypoint.session.import_stream import streaming, sweep
from rallypoint.session.made_by import check_carried, commands_required
from rallypoint.session.rederive import check_event, check_undo_target
from rallypoint.session.row_log import Rows
from rallypoint.session.sealed import outgoing_voids
from rallypoint.session.seat_views import SeatViews
from rallypoint.session.stall import burnt_rounds, file_voids
from rallypoint.session.stream_secrets import Secrets, kept_only
from rallypoint.store.exchange import ExportedCampaignHeader, ExportedHead, TurnHeader
from rallypoint.store.export_writer import ExportWriter
from rallypoint.store.importcheck import ChainCheck, ClockCheck, check_created, check_created_at
from rallypoint.store.pages import events_between
from rallypoint.store.signing import SeatKey, seat_cards, seat_keys
from rallypoint.store.visibility import HonestRedactions, RedactedDigest

if TYPE_CHECKING:
    from rallypoint.session.handle import Handle
    from rallypoint.store import EventStore
    from rallypoint.store.exchange import ExportedCampaign

@dataclass(frozen=True)
class Revealed:
    """What :func:`reveal` wrote.

    Attributes:
        events: Events in the merged, whole log.
        revealed: How many of them this database held redacted (now whole).
        shown_to_them: How many of this seat's events the other seat held redacted.
        other: The seat whose file was merged.
        dice: The audit of every roll of the whole log, counted by verdict.
    """

    events: int
    revealed: int
    shown_to_them: int
    other: str
    dice: DiceTally
    rederived: int = 0
    """Events decided again from the command each records, each identical."""


class Whole(Exception):
    """This pass does not decide the reveal: check it whole."""


def reveal_streamed(session: Handle, theirs: Path, out: Path, ref: str | None) -> Revealed | None:
    """The reveal in one pass (see the module docstring), or ``None``: not decided here,
    nothing written; the caller checks it whole."""
    out = Path(out)
    if out.is_symlink() or (out.exists() and not out.is_file()) or not Path(theirs).is_file():
        # A device or a link is written through by the whole path; a pipe can be read only
        # once, and the whole check may have to read it after this pass.
        return None
    try:
        with ExitStack() as stack:
            walk = _Walk(stack, session, out, ref)
            with streaming():
                from rallypoint.store.exchange import read_export

                exported = read_export(theirs, walk)
            if walk.writer is None:
                return None
            return walk.finish(exported)
    except Exception:  # the writer's file is removed; the whole check decides
        return None


class _Walk:
    """The running checks of one reveal (an ``ExportStream``)."""

    def __init__(self, stack: ExitStack, session: Handle, out: Path, ref: str | None) -> None:
        self._stack, self._session, self._out, self._ref = stack, session, out, ref
        self.writer: ExportWriter | None = None
        self._exported: ExportedCampaign | None = None
        self._store: EventStore | None = None
        self._mine: Iterator[EventRecord] = iter(())
        self._count = 0
        self._version = 0
        self._chain: ChainCheck | None = None
        self._clocks = ClockCheck()
        self._play: PlayCheck | None = None
        self._audit: Auditor | None = None
        self._secrets: Secrets | None = None
        self._views: SeatViews | None = None
        self._digest = RedactedDigest()
        self._honest: HonestRedactions | None = None
        self._first: EventRecord | None = None
        self._last: EventRecord | None = None
        self._me = self._other = ""
        self._required = False
        self._blind = False
        self._by_view = False
        self._rederived = self._revealed = self._shown = 0
        self._burnt: frozenset[int] = frozenset()
        self._campaign: ExportedCampaignHeader | None = None
        self._head = ""

    def header(self, exported: ExportedCampaign) -> bool:
        """This database's campaign, seat and key; the merged file opened (not yet in place).

        Raises:
            Whole: Anything the whole check would refuse or decide otherwise.
        """
        from rallypoint.store.exchange import check_signed

        self._exported = exported
        store = self._stack.enter_context(self._session._store())
        self._store = store
        info = store.find(self._ref if self._ref is not None else exported.campaign.id)
        if store.check(info.id) is not None or info.head_seq != info.version:
            raise Whole
        first = events_between(store, info.id, 1, 2)[0]
        created = first.payload
        cards = seat_cards(created)
        held = [s for s, c in cards.items() if store.seat_key(c.key) is not None]
        if len(held) != 1:
            raise Whole
        self._me = held[0]
        kept = store.seat_key(cards[self._me].key)
        assert kept is not None
        key = SeatKey(self._me, bytes.fromhex(kept.private))
        self._other = check_signed(exported, seat_keys(created)) or ""
        if self._other in ("", self._me):
            raise Whole
        self._version, self._head = info.version, info.head_hash
        # This database's log, read a page at a time as the other file's events come.
        self._mine = iter(Rows(lambda first, stop: iter(events_between(store, info.id, first,
                                                                       stop)),
                               1, info.version + 1))
        self._chain = ChainCheck(info.id)
        turn = exported.turn or TurnHeader()
        self._burnt = burnt_rounds(store, info.id) | file_voids(exported)
        campaign = ExportedCampaignHeader(
            id=info.id, name=str(created.get("name", info.name)),
            ruleset=str(created.get("ruleset", info.ruleset)), created_at=info.created_at)
        self._campaign = campaign
        self.writer = ExportWriter(
            self._out, campaign, ExportedHead(seq=info.version, hash=info.head_hash),
            TurnHeader(sender=self._me, revealed_secret=turn.revealed_secret,
                       voids=outgoing_voids(store, info.id, self._me)),
            sign=lambda hashed: [key.sign(hashed, None)])
        self._stack.callback(self._abort)
        return True

    def _abort(self) -> None:
        if self.writer is not None:
            self.writer.abort()

    def event(self, theirs: EventRecord) -> None:
        """Merge the next pair of events and check the merged one.

        Raises:
            Whole: The logs differ, neither holds it whole, or any check fails.
        """
        assert self._chain is not None and self.writer is not None
        mine = next(self._mine, None)
        assert self._exported is not None
        if (mine is None or (mine.seq, mine.hash, mine.prev_hash) != (
                theirs.seq, theirs.hash, theirs.prev_hash)
                or theirs.campaign_id != self._exported.campaign.id
                or (not is_redacted(theirs) and theirs.hash != theirs.expected_hash())):
            raise Whole  # the logs differ, or the other file's own chain breaks
        whole = mine if not is_redacted(mine) else theirs
        if is_redacted(whole):
            raise Whole
        self._chain.add(whole)  # the merged chain: every event hashes to what both held
        sweep(self._chain.count)
        self._clocks.add(whole)
        self._check_file_event(theirs)
        if self._first is None:
            self._start(whole)
        hides = self._checked_secrets(whole)
        self._check_shown(mine, whole, hides, self._me)
        self._check_shown(theirs, whole, hides, self._other)
        self._revealed += is_redacted(mine)
        self._shown += is_redacted(theirs)
        if whole.seq > 1:
            self._step(whole, hides)
        self._last = whole
        self.writer.add(whole)

    def _check_file_event(self, theirs: EventRecord) -> None:
        """The other file's own event: of this campaign, linked, its withheld digest summed, an
        honest kind of redaction (``check_redacted``)."""
        self._digest.add(theirs)
        if self._honest is None:
            self._honest = HonestRedactions(theirs)
        try:
            if not self._honest.honest(theirs):
                raise Whole
        except LookupError:
            raise Whole from None

    def _start(self, first: EventRecord) -> None:
        """``created``: the fold, the audit, the seats' views."""
        assert self._exported is not None and self._campaign is not None
        check_created(self._campaign, first)
        self._first = first
        self._play = PlayCheck(first, "The two databases' logs do not replay as one campaign "
                               "(its cause is named above); nothing was written", kept_only)
        self._required = commands_required(first.payload)
        self._secrets = Secrets(first)
        turn = self._exported.turn or TurnHeader()
        self._audit = Auditor(first, stored_rolls(self._play.folding.ruleset),
                              turn.revealed_secret, burnt=self._burnt, failures_only=True)
        self._views = SeatViews(first, seat_cards(first.payload))

    def _checked_secrets(self, whole: EventRecord) -> EventSecrets:
        assert self._secrets is not None
        if BLIND in whole.payload:
            self._blind = True
        return self._secrets.of(whole)

    def _check_shown(self, seen: EventRecord, whole: EventRecord, hides: EventSecrets,
                     seat: str) -> None:
        """What ``seat`` held of the event is the honest redaction of the whole one."""
        if not is_redacted(seen):
            return
        honest = redact_record(whole, hides, Viewer.of_side(seat),
                                legacy=REDACTED in seen.payload)
        if seen.payload != honest.payload:
            raise Whole

    def _step(self, record: EventRecord, hides: EventSecrets) -> None:
        """One event after ``created``: decided again (``check_log``), folded, audited, and
        folded into each seat's view (the log as its database held it)."""
        assert self._play is not None and self._audit is not None and self._views is not None
        fold = self._play.folding
        made = check_carried(record, self._required)
        if record.type == UNDONE:
            check_undo_target(fold.effective, record)
        typed: EventModel | None = None
        if made is not None:
            seat = made.get("seat")
            views: list[Any] = [fold.campaign()]
            if isinstance(seat, str):
                held = self._views.campaign(seat)
                if held is None:
                    raise Whole
                views.append(held)
            typed = check_event(views, record.seq - 1, record, made, ())
            self._by_view = self._by_view or typed is None
            self._rederived += 1
        self._play.add(record, typed)
        self._audit.add(record)
        self._views.add(record, hides)

    def finish(self, exported: ExportedCampaign) -> Revealed:
        """The checks over the whole log and file, then the merged file put in place.

        Raises:
            Whole: Any of them fails.
        """
        from rallypoint.store.exchange import check_header, check_signed

        first, last, play, audit, writer = (self._first, self._last, self._play, self._audit,
                                            self.writer)
        if (first is None or last is None or play is None or audit is None or writer is None
                or self._exported is None or next(self._mine, None) is not None
                or (last.seq, last.hash) != (self._version, self._head)
                or self._campaign is None
                or (exported.campaign, exported.turn) != (self._exported.campaign,
                                                          self._exported.turn)):
            raise Whole
        check_header(exported, last)
        assert self._store is not None
        if check_signed(exported, seat_keys(first.payload)) != self._other:
            raise Whole
        stated = exported.turn.redacted if exported.turn else None
        if self._digest.value() != stated:
            raise Whole
        check_created_at(self._campaign, first)
        play.finish()
        if self._by_view and not self._blind:
            raise Whole  # decided only against a seat's view, in a log that hides nothing
        if audit.report().events:  # (only failed verdicts are kept)
            raise Whole
        writer.commit()
        self.writer = None
        return Revealed(last.seq, self._revealed, self._shown, self._other, audit.tally(),
                        self._rederived)
