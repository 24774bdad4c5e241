"""Loading a stored campaign for a call: resumed from a snapshot or folded whole, refused when
its log is broken."""

from __future__ import annotations

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IntegrityError
from rallypoint.core.playcheck import fold_stored
from rallypoint.errors import Hint
from rallypoint.session import snapshots
from rallypoint.store import EventStore


def loaded(store: EventStore, ref: str, *, whole: bool) -> tuple[Campaign, int]:
    """The campaign ``ref`` names, and the version of the snapshot it was resumed from (0:
    folded whole).

    A write refuses a broken log first; it checks the log from a trusted snapshot on (the
    events before it were checked when it was written), else the whole log.

    Raises:
        UnknownIdError: ``ref`` names no campaign.
        IntegrityError: The log is broken (on a write), or cannot be played.
    """
    info = store.find(ref)
    resumed = None if whole else snapshots.resume(store, info)
    problem = None
    if not store.readonly:
        usable, problem = (snapshots.check_tail(store, info) if resumed is not None
                           else (False, None))
        if not usable:
            problem = store.check(info.id)
    if problem is not None:
        # Refuse before deciding, so the player hears "broken", not a rules refusal.
        raise IntegrityError(
            f"campaign {info.name!r} is broken at seq {problem.seq}: {problem.reason}",
            where=str(store.path), fix="nothing was written; see `rallypoint verify`, then "
            "`rallypoint delete` it and import a good export of it again", instead=Hint.SERVER)
    if resumed is not None:
        return resumed
    # A stored log that cannot be played (kept from before imports were checked) is one
    # IntegrityError line naming the event, not a traceback from deep inside a ruleset.
    return fold_stored(store.events(info.id)), 0
