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
from collections.abc import Sequence
from typing import Any, Final

from rallypoint.core.campaign import Campaign, apply_event, read_event
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import EventModel, EventRecord, Undone
from rallypoint.core.ruleset import Ruleset

CHECKPOINT_EVERY: Final = 256
"""Effective events between two kept states (memory: one state per this many events)."""


class LogFold:
    """A log folded one record at a time, in O(1) per event and bounded memory beyond the
    records themselves (which the caller holds: they are what an import stores).

    Only what a fold needs is kept: the state, the seqs in effect, a state every
    :data:`CHECKPOINT_EVERY` effective events, and the typed events since the last of those;
    an older typed event is read again from its record when an undo reaches back that far.

    Attributes:
        ruleset: The campaign's ruleset (named by its ``created`` event).
        state: The fold of the effective events so far.
    """

    def __init__(self, first: EventRecord) -> None:
        """Start from the ``created`` record.

        Raises:
            IntegrityError: The record is not a ``created`` event.
        """
        created = Campaign.from_events([first])
        self.ruleset: Ruleset[Any] = created.ruleset
        self.state: Any = created.state
        self._created = created
        self._last: tuple[EventRecord, EventModel] = (first, created.typed[0])
        self._undone: frozenset[int] = frozenset()
        self._records: list[EventRecord] = [first]
        self._effective: list[int] = []  # seqs of ruleset events in effect, ascending
        self._checkpoints: list[tuple[int, Any]] = [(0, self.state)]
        self._recent: dict[int, EventModel] = {}  # effective since the last checkpoint

    @property
    def effective(self) -> Sequence[int]:
        """The seqs of the ruleset events still in effect, in order."""
        return self._effective

    def campaign(self) -> Campaign:
        """The campaign after the records folded so far, held as a campaign resumed from a
        state snapshot holds it (``created``, the latest event and the state): enough to decide
        the next command, which is all a re-derivation asks of it (not to undo or list the log).
        """
        first, (last, typed) = self._records[0], self._last
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
        if count % CHECKPOINT_EVERY == 0 and self._checkpoints[-1][0] < count:
            self._checkpoints.append((count, self.state))
            self._recent.clear()
        else:
            self._recent[seq] = typed

    def _cancel(self, target: int) -> None:
        """Take ``target`` out of effect and fold the rest again from the last state kept
        before it."""
        index = bisect.bisect_left(self._effective, target)
        if index == len(self._effective) or self._effective[index] != target:
            raise IntegrityError(f"the undo names event {target}, which is not an earlier event "
                                 "still in effect", where=f"seq {target}",
                                 fix="Ask for a fresh export; the file was edited or damaged")
        del self._effective[index]
        self._recent.pop(target, None)
        while self._checkpoints[-1][0] > index:
            self._checkpoints.pop()
        start, self.state = self._checkpoints[-1]
        again = self._effective[start:]
        recent, self._recent = self._recent, {}
        first_seq = self._records[0].seq
        for count, seq in enumerate(again, start=start + 1):
            typed = recent.get(seq)
            if typed is None:
                typed = read_event(self.ruleset, self._records[seq - first_seq])
            self._apply(seq, typed, count)
