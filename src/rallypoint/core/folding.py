"""A whole log folded event by event in linear time (an import's check, ``verify``, ``reveal``).

:meth:`Campaign.with_event <rallypoint.core.campaign.Campaign.with_event>` returns a new frozen
campaign, copying its tuples of events: right for one command, quadratic for a log of 100 000
(an import checks every event as it folds). :class:`LogFold` folds the same events with the
same functions (:func:`~rallypoint.core.campaign.read_event`,
:func:`~rallypoint.core.campaign.apply_event`) and keeps only what the fold needs.

An ``undone`` cancels an event still in effect, so the state must become the fold of the effective
events without it. Folding them all again (as ``with_event`` does) would make a log of many undos
quadratic; instead the fold keeps the state after every :data:`CHECKPOINT_EVERY` effective events
and folds again only from the last one before the cancelled event: the latest one, as every undo
a player makes cancels (``Campaign.undo_event``), costs at most that many events.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from rallypoint.core.campaign import Campaign, apply_event, read_event
from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import EventModel, EventRecord, Undone

CHECKPOINT_EVERY: Final = 256
"""Effective events between two kept states (memory: one state per this many events)."""
DENSE_CHECKPOINTS: Final = 4
"""With a :data:`Source`, states kept per doubling of the distance back (the newest at every
:data:`CHECKPOINT_EVERY`; :meth:`LogFold._thin`)."""

Source = Callable[[int, int], Iterable[EventRecord]]
"""Gives the records whose seqs are in ``[first, stop)``, in order, when a fold that keeps no
records must fold again from an older state (an import: its own transaction's rows; ``verify
FILE``: the file read again)."""


class LogFold:
    """A log folded one record at a time, in O(1) per event.

    Only what a fold needs is kept: the state, the seqs in effect (8 bytes each), a state every
    :data:`CHECKPOINT_EVERY` effective events, and the typed events since the last two of
    those. An older typed event is read again from its record when an undo reaches back that
    far: from the records this fold keeps, or, given a ``source``, from there, and then the
    fold keeps no record at all and thins its older states to O(log n) of them
    (:meth:`_thin`), so its memory does not grow with the log (beyond the seqs in effect).

    Every undo a player makes cancels the latest effective event (``Campaign.undo_event``), so
    a run of *k* undos reaches back *k* events: the two windows of typed events cover a run of
    up to :data:`CHECKPOINT_EVERY`; a longer run, or an edited file's undo of an older event
    (the fold accepts it, as ``Campaign`` does), folds again from the kept state just below
    its target, at most about a quarter of its depth further back.

    Attributes:
        ruleset: The campaign's ruleset (named by its ``created`` event).
        state: The fold of the effective events so far.
    """

    def __init__(self, first: EventRecord, source: Source | None = None) -> None:
        """Start from the ``created`` record.

        Args:
            first: The ``created`` record.
            source: Where older records are read again (``None``: this fold keeps them).

        Raises:
            IntegrityError: The record is not a ``created`` event.
        """
        created = Campaign.from_events([first])
        self.ruleset: ErasedRuleset = created.ruleset
        self.state: Any = created.state
        self._created = created
        self._first = first
        self._source = source
        self._last: tuple[EventRecord, EventModel] = (first, created.typed[0])
        self._undone: frozenset[int] = frozenset()
        self._records: list[EventRecord] | None = [first] if source is None else None
        self._effective: array[int] = array("q")  # seqs of ruleset events in effect, ascending
        self._checkpoints: list[tuple[int, Any]] = [(0, self.state)]
        self._recent: dict[int, EventModel] = {}  # effective since the last checkpoint
        self._previous: dict[int, EventModel] = {}  # ... and between the last two

    @property
    def effective(self) -> Sequence[int]:
        """The seqs of the ruleset events still in effect, in order."""
        return self._effective

    @property
    def kept(self) -> int:
        """How many states and typed events this fold holds (what its memory follows)."""
        return len(self._checkpoints) + len(self._recent) + len(self._previous)

    def campaign(self) -> Campaign:
        """The campaign after the records folded so far, held as a campaign resumed from a
        state snapshot holds it (``created``, the latest event and the state): enough to decide
        the next command, which is all a re-derivation asks of it (not to undo or list the log).
        """
        first, (last, typed) = self._first, self._last
        if last is first:
            return self._created
        return Campaign(first.campaign_id, self.ruleset, (first, last), self.state,
                        self._undone, (self._created.typed[0], typed))

    def add(self, record: EventRecord, typed: EventModel | None = None) -> EventModel:
        """Fold the next record; return its typed event.

        Args:
            record: The next record.
            typed: Its typed event when the caller has it (saves reading the payload again).

        Raises:
            IntegrityError: An ``undone`` naming no event still in effect.
            Exception: Whatever the ruleset's fold raises on a malformed event.
        """
        typed = read_event(self.ruleset, record) if typed is None else typed
        if self._records is not None:
            self._records.append(record)
        self._last = (record, typed)
        if isinstance(typed, Undone):
            self._cancel(typed.target)
            self._undone = self._undone | {typed.target}
        else:
            self._effective.append(record.seq)
            self._apply(record.seq, typed, len(self._effective))
        return typed

    def _apply(self, seq: int, typed: EventModel, count: int) -> None:
        """Fold the effective event at ``seq``, the ``count``-th in effect, keeping a state
        every so many."""
        self.state = apply_event(self.ruleset, self.state, typed)
        self._recent[seq] = typed
        if count % CHECKPOINT_EVERY == 0 and self._checkpoints[-1][0] < count:
            self._checkpoints.append((count, self.state))
            self._previous, self._recent = self._recent, {}
            if self._source is not None:
                self._thin(count)

    def _thin(self, count: int) -> None:
        """Drop older states: the one *w* windows back is kept if its window's number is a
        multiple of the largest power of two at most ``w / DENSE_CHECKPOINTS`` (``created``'s
        is always kept). A state's power only grows as the log does, so one dropped is never
        wanted again; about ``DENSE_CHECKPOINTS`` states are kept per doubling of the distance
        back (O(log n)), and an undo *d* events deep folds again at most about
        ``d / DENSE_CHECKPOINTS`` events more than it reaches back."""
        newest = count // CHECKPOINT_EVERY
        kept = []
        for point in self._checkpoints:
            window = point[0] // CHECKPOINT_EVERY
            back = (newest - window) // DENSE_CHECKPOINTS
            if window % (1 << max(0, back.bit_length() - 1)) == 0:
                kept.append(point)
        self._checkpoints = kept

    def _cancel(self, target: int) -> None:
        """Take ``target`` out of effect and fold the rest again from the last state kept
        before it."""
        index = bisect.bisect_left(self._effective, target)
        if index == len(self._effective) or self._effective[index] != target:
            raise IntegrityError(f"the undo names event {target}, which is not an earlier event "
                                 "still in effect", where=f"seq {target}",
                                 fix="Ask for a fresh export; the file was edited or damaged")
        del self._effective[index]
        while self._checkpoints[-1][0] > index:
            self._checkpoints.pop()
        start, self.state = self._checkpoints[-1]
        again = self._effective[start:]
        known = {**self._previous, **self._recent}
        known.pop(target, None)
        self._recent, self._previous = {}, {}
        missing = [seq for seq in again if seq not in known]
        if missing:
            known.update(self._read_again(missing))
        for count, seq in enumerate(again, start=start + 1):
            self._apply(seq, known[seq], count)

    def _read_again(self, seqs: Sequence[int]) -> dict[int, EventModel]:
        """The typed events of ``seqs`` (ascending), read again from their records."""
        wanted = set(seqs)
        if self._records is not None:
            base = self._first.seq
            records: Iterable[EventRecord] = (self._records[seq - base] for seq in seqs)
        else:
            assert self._source is not None  # one of the two is always there
            records = (r for r in self._source(seqs[0], seqs[-1] + 1) if r.seq in wanted)
        return {r.seq: read_event(self.ruleset, r) for r in records}
