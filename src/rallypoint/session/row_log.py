"""A campaign's log as a streamed import's transaction holds it: read back a page at a time.

A turn file imported in one pass (:mod:`rallypoint.session.turn_stream`) keeps no record; what
is checked after the pass (the dice rounds, the requests the log moved past) still takes the
log as a sequence. :class:`RowLog` is that sequence, read again from the rows the transaction
inserted (or held already), so memory holds one page, not the log; the logical position and
the highest pair round, taken during the pass, answer the functions that would walk it again
(:class:`~rallypoint.dice.audit.WalkedLog`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Final, overload

from rallypoint.core.events import EventRecord

PAGE: Final = 512
"""Records read back at once."""

ReadRows = Callable[[int, int], Iterator[EventRecord]]
"""The records with seqs in ``[first, stop)`` (:meth:`rallypoint.store.import_rows.ImportRows
.records`)."""


class Rows(Sequence[EventRecord]):
    """The records with seqs in ``[first, stop)``, read back when asked for (seqs run from 1
    without gaps: the import checked the chain).

    Args:
        read: Reads a range of records.
        first: The first seq.
        stop: One past the last seq.
    """

    def __init__(self, read: ReadRows, first: int, stop: int) -> None:
        self._read, self._first, self._stop = read, first, max(first, stop)

    def __len__(self) -> int:
        return self._stop - self._first

    @overload
    def __getitem__(self, index: int) -> EventRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Rows: ...

    def __getitem__(self, index: int | slice) -> EventRecord | Rows:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                raise ValueError("a log read back takes contiguous slices only")
            return Rows(self._read, self._first + start, self._first + stop)
        at = index + len(self) if index < 0 else index
        if not 0 <= at < len(self):
            raise IndexError(index)
        seq = self._first + at
        return next(self._read(seq, seq + 1))

    def __iter__(self) -> Iterator[EventRecord]:
        for start in range(self._first, self._stop, PAGE):
            yield from self._read(start, min(start + PAGE, self._stop))

    def __bool__(self) -> bool:
        return len(self) > 0


class RowLog(Rows):
    """A campaign's first ``count`` events, with what the import's pass found of them (a
    :class:`~rallypoint.dice.audit.WalkedLog`).

    Attributes:
        position: The logical position at its last event.
        last_round: The highest pair round its events used (0: none).
    """

    def __init__(self, read: ReadRows, count: int, position: int, last_round: int) -> None:
        super().__init__(read, 1, count + 1)
        self._position, self._last_round = position, last_round

    @property
    def position(self) -> int:
        """The logical position at its last event."""
        return self._position

    @property
    def last_round(self) -> int:
        """The highest pair round its events used (0: none)."""
        return self._last_round
