"""``verify FILE`` in one streaming pass: each event checked, folded, decided again and audited
as it is read, nothing kept but the running state.

The whole-file check (:func:`rallypoint.session.pbem.verify_file`) holds every record (about
5 times the file's size) and walks them in separate passes: the chain, the header and
signature, the clocks and a fold, the re-derivation, the dice audit. Here one fold serves them
all (:class:`~rallypoint.core.folding.LogFold`, reading an older record again from the file
when an undo reaches back past what it keeps) and each event goes through every check as it
comes; what covers the whole file (the head, the header hash, the signature) is checked at the
end.

A hidden game's file is checked as the whole check checks it: an event redacted for the
reader by its link (:class:`~rallypoint.store.importcheck.VisibleChainCheck`), summed into the
withheld digest the signed header names, and an honest kind of redaction
(:class:`~rallypoint.store.visibility.HonestRedactions`); an event that does not decide again
against the log as it is, against its seat's view (the log as that seat's database held it,
:class:`~rallypoint.session.seat_views.ViewsOnDemand`, folded from the file read again when
first needed), which counts only in a log that hides something.

This pass may refuse more than the whole check, never less: a file it does not answer for (any
fault at all, or what it leaves to the whole check) is verified whole instead, as ever: its
answer, or its one-line refusal, is exactly the whole-file check's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rallypoint.core.campaign import describe_event, event_rolls, stored_rolls
from rallypoint.core.differences import Difference
from rallypoint.core.errors import DataFileError
from rallypoint.core.events import CREATED, UNDONE, EventRecord
from rallypoint.core.folding import LogFold
from rallypoint.core.visibility import BLIND, is_redacted
from rallypoint.dice.audit import Auditor
from rallypoint.dice.report import DiceReport
from rallypoint.session.import_stream import streaming, sweep
from rallypoint.session.made_by import check_carried, check_owner, commands_required, made_by
from rallypoint.session.rederive import decide_again
from rallypoint.session.rederive_undo import target_difference
from rallypoint.session.seat_views import ViewsOnDemand
from rallypoint.session.stall import file_voids
from rallypoint.store.importcheck import (
    ClockCheck,
    VisibleChainCheck,
    check_created,
    check_created_at,
)
from rallypoint.store.signing import seat_cards
from rallypoint.store.visibility import HonestRedactions, RedactedDigest

if TYPE_CHECKING:
    from rallypoint.store.exchange import ExportedCampaign


@dataclass(frozen=True)
class Verified:
    """What ``rallypoint verify FILE`` found."""

    events: int
    dice: DiceReport
    signer: str | None
    fingerprint: str | None
    withheld: int = 0
    """Events redacted for the file's reader: checked by their links and the signed digest,
    not folded (their hashes are commitments until the reveal)."""
    redacted: str | None = None
    """The digest of the withheld payloads that the hashed header names, checked (``None``:
    nothing withheld, or an unsigned file written before the digest)."""
    rederived: int = 0
    """Events decided again from the command each records, each identical
    (:mod:`rallypoint.session.rederive`)."""
    not_rederivable: int = 0
    """Ruleset events recorded before commands were stored: folded as stored, not re-derived."""


class _Whole(Exception):
    """The file is not one this pass answers for: verify it whole (see the module docstring)."""


def verify_streamed(path: Path) -> tuple[ExportedCampaign | None, Verified | None]:
    """Verify ``path`` in one pass if it passes and hides nothing.

    Returns:
        ``(None, verified)`` when it does; else ``(exported, None)`` for the caller to verify
        whole: ``exported`` the file read whole when this pass already had to (its header did
        not come valid before its events), else ``None`` (read it again).

    Raises:
        DataFileError: Not a readable export (as the whole-file read says).
    """
    from rallypoint.store.exchange import read_export

    walk = _Walk(path)
    try:
        with streaming():
            exported = read_export(path, walk)
        if walk.exported is None:
            return exported, None  # read whole: its header came after its events
        return None, walk.finish(exported)
    except DataFileError:
        raise
    except Exception:  # any fault, or something this pass does not decide: see above
        return None, None


class _Walk:
    """The running checks of one file (an ``ExportStream``)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self.exported: ExportedCampaign | None = None
        self._chain: VisibleChainCheck | None = None
        self._clocks = ClockCheck()
        self.fold: LogFold | None = None
        self._audit: Auditor | None = None
        self._required = False
        self._first: EventRecord | None = None
        self._last: EventRecord | None = None
        self._rederived = 0
        self._legacy = 0
        # A hidden game's file: what the whole check's check_redacted and check_log ask.
        self._digest = RedactedDigest()
        self._honest: HonestRedactions | None = None
        self._dishonest = False
        self._hides = False
        self._views: ViewsOnDemand | None = None

    def header(self, exported: ExportedCampaign) -> bool:
        """Take the events one at a time."""
        self.exported = exported
        self._chain = VisibleChainCheck(exported.campaign.id)
        return True

    def event(self, record: EventRecord) -> None:
        """Every check of one event, in the whole-file check's order within it.

        Raises:
            _Whole: It fails a check, or is left to the whole check.
        """
        assert self._chain is not None and self.exported is not None
        self._chain.add(record)
        sweep(self._chain.count)
        self._clocks.add(record)
        self._check_redacted(record)
        self._last = record
        if self.fold is None:
            self._start(record)
            return
        self._step(record)

    def _check_redacted(self, record: EventRecord) -> None:
        """What ``check_redacted`` asks of an event redacted for the reader, noted: summed into
        the withheld digest, and whether it is an honest kind of redaction (both decided at
        the end, where the header says whether the file is signed or names a digest).

        Raises:
            _Whole: A redacted undo of no earlier event (the whole check decides it).
        """
        self._digest.add(record)
        if self._honest is None:
            self._honest = HonestRedactions(record)
        try:
            self._dishonest = not self._honest.honest(record) or self._dishonest
        except LookupError:
            raise _Whole from None
        self._hides = self._hides or is_redacted(record) or BLIND in record.payload

    def _start(self, first: EventRecord) -> None:
        """The ``created`` event: the fold, the audit and the commands' requirement start."""
        assert self.exported is not None
        check_created(self.exported.campaign, first)
        self._first = first
        self.fold = LogFold(first, self._again)
        self._required = commands_required(first.payload)
        turn = self.exported.turn
        self._audit = Auditor(first, stored_rolls(self.fold.ruleset),
                              turn.revealed_secret if turn else None,
                              burnt=file_voids(self.exported))

    def _step(self, record: EventRecord) -> None:
        """One event after ``created``: its undo target, its re-derivation, the fold (its
        description and rolls read as ``log`` reads them), its dice."""
        fold, audit = self.fold, self._audit
        assert fold is not None and audit is not None
        made = check_carried(record, self._required)
        if record.type == UNDONE and target_difference(
                fold.effective[-1] if fold.effective else None, record) is not None:
            raise _Whole
        typed = None
        if made is not None:
            campaign = fold.campaign()
            check_owner(campaign, record, made, ())
            found = decide_again(campaign, record)
            if isinstance(found, Difference):
                if not self._in_view(record, made.get("seat")):
                    raise _Whole
            else:
                typed = found
            self._rederived += 1
        shown = not is_redacted(record)
        if shown and record.type not in (CREATED, UNDONE) and made_by(record) is None:
            self._legacy += 1
        event = fold.add(record, typed)
        if shown and record.type != UNDONE:
            describe_event(fold.ruleset, event)
            event_rolls(fold.ruleset, event)
        if self._views is not None:
            self._views.add(record)
        audit.add(record)

    def _in_view(self, record: EventRecord, seat: object) -> bool:
        """``check_log``'s second view: whether the event is what its command decides against
        the log as its seat's database held it (the views folded from the file read again)."""
        if self._views is None:
            assert self._first is not None
            self._views = ViewsOnDemand(self._first, seat_cards(self._first.payload),
                                        self._replay)
        return self._views.decides(record, seat)

    def _replay(self, first: int, stop: int, take: Callable[[EventRecord], None]) -> None:
        """The file's records with seqs in ``[first, stop)``, read again, each to ``take``."""
        from rallypoint.store.exchange import read_export

        with contextlib.suppress(_Read):
            read_export(self._path, _Range(first, stop, take))

    def _again(self, first: int, stop: int) -> Iterator[EventRecord]:
        """The file's records with seqs in ``[first, stop)``, read again (an undo that reaches
        back past what the fold keeps)."""

        found: list[EventRecord] = []
        self._replay(first, stop, found.append)
        yield from found

    def finish(self, exported: ExportedCampaign) -> Verified:
        """The checks over the whole file, and the answer.

        Raises:
            IntegrityError: The head, header hash, signature or ``created_at`` fails, or the
                final state cannot be shown.
        """
        from rallypoint.store.exchange import check_header, check_signed
        from rallypoint.store.signing import fingerprint, seat_cards, seat_keys

        first, last, fold, audit = self._first, self._last, self.fold, self._audit
        if first is None or last is None or fold is None or audit is None:
            raise _Whole
        check_header(exported, last)
        signer = check_signed(exported, seat_keys(first.payload))
        check_created_at(exported.campaign, first)
        withheld, stated = self._digest.count, exported.turn.redacted if exported.turn else None
        # As verify_file: a signed file, or one naming a digest, is held to it (an unsigned
        # one without, the web's side export, can show damage, not forgery).
        if withheld and (exported.signatures or stated) and (
                self._digest.value() != stated or self._dishonest):
            raise _Whole
        if self._views is not None and self._views.used and not self._hides:
            raise _Whole  # decided only in a seat's view, in a log that hides nothing
        fold.ruleset.state_json(fold.state)
        fold.ruleset.pending(fold.state)
        cards = seat_cards(first.payload)
        return Verified(last.seq, audit.report(), signer,
                        fingerprint(cards[signer].key) if signer else None, withheld,
                        stated if withheld else None, self._rederived, self._legacy)


class _Read(Exception):
    """The range is read: the rest of the file is not."""


class _Range:
    """Gives the records of one seq range to a callback as the file is read again (an
    ``ExportStream``)."""

    def __init__(self, first: int, stop: int, take: Callable[[EventRecord], None]) -> None:
        self._first, self._stop, self._take = first, stop, take

    def header(self, exported: ExportedCampaign) -> bool:
        return True

    def event(self, record: EventRecord) -> None:
        if record.seq >= self._stop:
            raise _Read
        if record.seq >= self._first:
            self._take(record)
