"""Whether a log can be played: every event folded through its ruleset, as commands fold it.

A re-hashed file passes every check of the store whatever it says, so before an import writes
anything the whole log is played in memory through the ruleset (:mod:`rallypoint.core.campaign`),
exactly as every later command will play it. A file that cannot be played — an ``undone`` naming
no event, a missing field, an unknown event type, numbers outside the rules' range — is refused
whole, and so can never make a stored campaign crash every verb that touches it. The session asks
this before it stores an import (:mod:`rallypoint.session.importing`) and when a stored log (kept
from before imports were checked) fails to fold; the store only stores.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any, Final

from rallypoint.core.campaign import Campaign, bulk_reading, describe_event, event_rolls
from rallypoint.core.errors import IntegrityError, RallypointError
from rallypoint.core.events import UNDONE, EventModel, EventRecord
from rallypoint.core.folding import LogFold, Source
from rallypoint.core.inputs import shorten

STORED_FIX: Final = ("delete it with `rallypoint delete` (a backup is exported first) and import "
                     "a good export of it again")
"""The fix of a stored log that cannot be played."""


def fold_all(records: Sequence[EventRecord], fix: str) -> None:
    """Play every event through its ruleset in memory, as every later command will play it.

    Linear in the log, and holding little beside the records (:class:`LogFold`): every event is
    folded once, and its description and rolls read, as ``log`` and the dice audit will read them.

    Args:
        records: The whole log, ``created`` first.
        fix: What the refusal tells the player to do (an import's, a stored log's).

    Raises:
        IntegrityError: At the first event that is malformed or cannot be applied.
    """
    check = PlayCheck(records[0], fix)
    with bulk_reading():
        for record in records[1:]:
            check.add(record)
    check.finish()


class PlayCheck:
    """:func:`fold_all` one record at a time, for a reader that keeps no records (a streamed
    import: its fold reads older records again from ``source``, :class:`LogFold`).

    Args:
        first: The ``created`` record.
        fix: What a refusal tells the player to do.
        source: Where the fold reads older records again (``None``: it keeps them).

    Raises:
        IntegrityError: ``first`` is not a ``created`` event that can be played.
    """

    def __init__(self, first: EventRecord, fix: str, source: Source | None = None) -> None:
        self._fix = fix
        self.folding: LogFold = _guard(first, fix, LogFold, first, source)
        self._last = first

    def add(self, record: EventRecord, typed: EventModel | None = None) -> None:
        """Play the next record (``typed``: its typed event, when the caller read it already).

        Raises:
            IntegrityError: It is malformed, cannot be applied, or undoes no event in effect.
        """
        if record.type == UNDONE:
            _check_undo(self.folding.effective, record, self._fix)
        _guard(record, self._fix, _step, self.folding, record, typed)
        self._last = record

    def finish(self) -> None:
        """What every read shows must work on the final state.

        Raises:
            IntegrityError: It does not (named after the last event).
        """
        _guard(self._last, self._fix, _views, self.folding.ruleset, self.folding.state)


def fold_stored(records: Sequence[EventRecord]) -> Campaign:
    """Fold a stored log for a command; a log that cannot be played is one IntegrityError line.

    The fast fold runs first; only when it fails is the log replayed step by step to name the
    event at fault (a log stored before imports were checked may hold one).
    """
    if not records:
        raise IntegrityError("the campaign has no readable events", fix=STORED_FIX)
    try:
        return Campaign.from_events(records)
    except Exception:
        fold_all(records, STORED_FIX)
        raise


def _views(ruleset: Any, state: Any) -> None:
    """What every read shows must also work on the final state."""
    ruleset.state_json(state)
    ruleset.pending(state)


def _step(folding: LogFold, record: EventRecord, typed: EventModel | None = None) -> None:
    """Fold one event, and read its description and rolls as ``log`` and the audit will."""
    event = folding.add(record, typed)
    if record.type != UNDONE:
        describe_event(folding.ruleset, event)
        event_rolls(folding.ruleset, event)


def _check_undo(effective: Sequence[int], record: EventRecord, fix: str) -> None:
    """An ``undone`` must cancel an earlier, still effective ruleset event (``effective``: their
    seqs, ascending)."""
    target = record.payload.get("target")
    index = bisect.bisect_left(effective, target) if type(target) is int else len(effective)
    if index == len(effective) or effective[index] != target:
        raise _refuse(record, f"undoes {shorten(repr(target), 30)}, which is not an earlier "
                              "event still in effect", fix)


def _guard(record: EventRecord, fix: str, step: Callable[..., Any], *args: Any) -> Any:
    """Run one fold step; any failure is the log's fault and refuses it."""
    try:
        return step(*args)
    except RallypointError as exc:
        raise _refuse(record, f"cannot be played: {shorten(exc.what, 120)}", fix) from None
    except Exception as exc:  # a malformed payload may fail anywhere inside a ruleset's fold
        detail = shorten(f"{type(exc).__name__}: {exc}", 120)
        raise _refuse(record, f"cannot be played ({detail})", fix) from None


def _refuse(record: EventRecord, what: str, fix: str) -> IntegrityError:
    return IntegrityError(f"event {record.seq} ({shorten(record.type, 40)!r}) {what}",
                          where=f"seq {record.seq}", fix=fix)
