"""``verify FILE`` in one streaming pass: each event checked, folded, decided again and audited
as it is read, nothing kept but the running state.

The whole-file check (:func:`rallypoint.session.pbem.verify_file`) holds every record (about
5 times the file's size) and walks them in separate passes: the chain, the header and
signature, the clocks and a fold, the re-derivation, the dice audit. Here one fold serves them
all (:class:`~rallypoint.core.folding.LogFold`, reading an older record again from the file
when an undo reaches back past what it keeps) and each event goes through every check as it
comes; what covers the whole file (the head, the header hash, the signature) is checked at the
end.

This is the path for a file that passes and hides nothing. A file that shows an event redacted
for its reader (checked by links and a signed digest, not folded), an event that does not
decide again against the log as it is (whose seat's database may have held another view of
it), or any fault at all is verified whole instead, as ever: its answer, or its one-line
refusal, is exactly the whole-file check's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rallypoint.core.campaign import describe_event, event_rolls, stored_rolls
from rallypoint.core.differences import Difference
from rallypoint.core.errors import DataFileError
from rallypoint.core.events import CREATED, UNDONE, EventRecord
from rallypoint.core.folding import LogFold
from rallypoint.core.visibility import is_redacted
from rallypoint.dice.audit import Auditor
from rallypoint.dice.report import DiceReport
from rallypoint.session.import_stream import streaming, sweep
from rallypoint.session.made_by import check_carried, check_owner, commands_required, made_by
from rallypoint.session.rederive import decide_again
from rallypoint.session.rederive_undo import target_difference
from rallypoint.session.stall import file_voids
from rallypoint.store.importcheck import ChainCheck, ClockCheck, check_created, check_created_at

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
        self._chain: ChainCheck | None = None
        self._clocks = ClockCheck()
        self.fold: LogFold | None = None
        self._audit: Auditor | None = None
        self._required = False
        self._first: EventRecord | None = None
        self._last: EventRecord | None = None
        self._rederived = 0
        self._legacy = 0

    def header(self, exported: ExportedCampaign) -> bool:
        """Take the events one at a time."""
        self.exported = exported
        self._chain = ChainCheck(exported.campaign.id)
        return True

    def event(self, record: EventRecord) -> None:
        """Every check of one event, in the whole-file check's order within it.

        Raises:
            _Whole: It is redacted, or fails a check, or does not decide again as it is.
        """
        assert self._chain is not None and self.exported is not None
        if is_redacted(record):
            raise _Whole
        self._chain.add(record)
        sweep(self._chain.count)
        self._clocks.add(record)
        self._last = record
        if self.fold is None:
            self._start(record)
            return
        self._step(record)

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
                raise _Whole
            typed = found
            self._rederived += 1
        if record.type not in (CREATED, UNDONE) and made_by(record) is None:
            self._legacy += 1
        event = fold.add(record, typed)
        if record.type != UNDONE:
            describe_event(fold.ruleset, event)
            event_rolls(fold.ruleset, event)
        audit.add(record)

    def _again(self, first: int, stop: int) -> Iterator[EventRecord]:
        """The file's records with seqs in ``[first, stop)``, read again (an undo that reaches
        back past what the fold keeps)."""
        from rallypoint.store.exchange import read_export

        found: list[EventRecord] = []
        read_export(self._path, _Range(first, stop, found))
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
        fold.ruleset.state_json(fold.state)
        fold.ruleset.pending(fold.state)
        cards = seat_cards(first.payload)
        return Verified(last.seq, audit.report(), signer,
                        fingerprint(cards[signer].key) if signer else None, 0, None,
                        self._rederived, self._legacy)


class _Range:
    """Keeps the records of one seq range as the file is read again (an ``ExportStream``)."""

    def __init__(self, first: int, stop: int, found: list[EventRecord]) -> None:
        self._first, self._stop, self._found = first, stop, found

    def header(self, exported: ExportedCampaign) -> bool:
        return True

    def event(self, record: EventRecord) -> None:
        if self._first <= record.seq < self._stop:
            self._found.append(record)
