"""An ``undone`` event decided again: the undo of the latest effective event, nothing else.

An undo has no command of its own beyond "undo" (:meth:`rallypoint.core.campaign.Campaign
.undo_event`): it cancels the latest event that still counts and says what that event did. The
fold takes its target as it stands, so a forged ``undone`` could cancel any earlier event, the
reader's own included. So a receiver decides every undo it did not make again from the log just
before it (issue 18): its target must be the latest effective event, and, shown whole, its
summary what that event did as the undoing seat's database described it (its own view, or the
other seat's, where that database held this one's secrets redacted). A summary withheld from
this seat is checked at the reveal. The consent rule (a seat may not undo a resolved roll of its
own command) is the import's dice check (:func:`rallypoint.session.pbem_checks.check_dice`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rallypoint.core.campaign import Campaign
from rallypoint.core.differences import Difference
from rallypoint.core.events import CREATED, UNDONE, EventRecord, canonical_json
from rallypoint.core.inputs import shorten
from rallypoint.core.visibility import is_redacted


def latest_effective(records: Sequence[EventRecord]) -> int | None:
    """The seq of the latest event of ``records`` that still counts (``None``: none does):
    what an undo appended after them cancels."""
    undone = {r.payload.get("target") for r in records if r.type == UNDONE}
    for record in reversed(records):
        if record.type not in (CREATED, UNDONE) and record.seq not in undone:
            return record.seq
    return None


def target_difference(latest: int | None, record: EventRecord) -> Difference | None:
    """Where an ``undone`` event's target differs from ``latest``, the latest effective event
    before it (``None``: it names that event)."""
    stated = record.payload.get("target")
    if latest is None or stated != latest or isinstance(stated, bool):
        return Difference("target", shorten(canonical_json(stated), 60),
                          "nothing to undo" if latest is None else str(latest))
    return None


def undo_difference(before: Sequence[EventRecord], record: EventRecord,
                    views: Sequence[Callable[[], Campaign]] = ()) -> Difference | None:
    """Where an ``undone`` event differs from the undo of the log ``before`` it (``None``: it
    is that undo).

    Args:
        before: The log just before the event.
        record: The ``undone`` event.
        views: The campaign just before it as each database that may have made it held it
            (built when needed); its summary must be what one of them describes. Empty: the
            summary is not checked (``verify``, the reveal: a describing text may change
            between versions, and the target is what the fold reads).
    """
    target = latest_effective(before)
    wrong = target_difference(target, record)
    if wrong is not None or target is None:
        return wrong
    if is_redacted(record) or not views:
        return None  # its summary is withheld from this seat: checked at the reveal
    summary = record.payload.get("summary")
    described = [view().describe(target) for view in views]
    if summary in described:
        return None
    return Difference("summary", shorten(canonical_json(summary), 60),
                      shorten(canonical_json(described[0]), 60))
