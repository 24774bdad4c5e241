"""A read-only log that grows by one item in O(1): the events of one campaign version.

A :class:`~rallypoint.core.campaign.Campaign` is frozen, and ``with_event`` returns the campaign
after one more event. With tuples, each step copied the whole log, so walking a log of n events
event by event (``verify FILE``'s re-derivation, a reveal, owed events) cost O(n²) copies. A
:class:`FrozenLog` is a view of the first ``length`` items of a list that only ever grows: adding
to the newest view appends to the shared list; adding to an older view (a branch: the list has
gone on past it) copies its own items first. No item below a view's length ever changes, so each
view is as immutable as the tuple it replaces.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")

_GROW = threading.Lock()
"""Held while checking that a view is its list's newest and appending (two threads may extend
the same campaign: only one of them may append in place)."""


class FrozenLog(Sequence[T], Generic[T]):
    """The first ``len(self)`` items of a shared, append-only list (see the module)."""

    __slots__ = ("_items", "_length")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items: list[T] = list(items)
        self._length = len(self._items)

    def appended(self, item: T) -> FrozenLog[T]:
        """This log with ``item`` after its last (O(1) unless this view was branched from)."""
        with _GROW:
            items = self._items
            if len(items) != self._length:
                items = items[:self._length]  # another version went on from here: branch
            items.append(item)
        grown: FrozenLog[T] = FrozenLog.__new__(FrozenLog)
        grown._items, grown._length = items, self._length + 1
        return grown

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step > 0:
                return tuple(self._items[start:stop:step])
            # Backwards, ``indices`` gives stop -1 for "past the first", which a list slice
            # would read as its last item.
            return tuple(self._items[i] for i in range(start, stop, step))
        position = index + self._length if index < 0 else index
        if not 0 <= position < self._length:
            raise IndexError("log index out of range")
        return self._items[position]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FrozenLog | tuple):  # as a tuple: never equal to a list
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"FrozenLog({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenLog, (tuple(self),))  # pickled alone, without what other views added


def grown(log: Sequence[T], item: T) -> FrozenLog[T]:
    """``log`` with ``item`` added (a tuple or list is copied once, into a :class:`FrozenLog`)."""
    base = log if isinstance(log, FrozenLog) else FrozenLog(log)
    return base.appended(item)
