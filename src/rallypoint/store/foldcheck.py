"""Import checks beyond the hash chain: the header against ``created``, clocks, and a full fold.

A re-hashed file passes the chain check whatever it says, so before an import writes anything the
whole log is played in memory through the ruleset (:mod:`rallypoint.core.campaign`), exactly as
every later command will play it. A file that cannot be played — an ``undone`` naming no event,
a missing field, an unknown event type, numbers outside the rules' range — is refused whole, and
so can never make a stored campaign crash every verb that touches it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from rallypoint.core.errors import IntegrityError, RallypointError
from rallypoint.core.events import CREATED, UNDONE, EventRecord
from rallypoint.core.inputs import shorten

if TYPE_CHECKING:
    from rallypoint.store.exchange import ExportedCampaignHeader

CLOCK_SKEW: Final = timedelta(minutes=10)
"""How far in this machine's future an imported event's time may be (clocks differ a little)."""

_FIX: Final = "ask for a fresh export; the file was edited or damaged (nothing was imported)"


def check_import(header: ExportedCampaignHeader, records: Sequence[EventRecord],
                 fix: str = _FIX) -> None:
    """Refuse an export whose header, clocks or content do not hold together.

    Payload values are within :mod:`rallypoint.core.inputs`' limits already: ``records`` come
    from :func:`rallypoint.store.exchange.read_export`, which checks each event as it reads it,
    or from this database's own log.

    Raises:
        IntegrityError: Naming the first event (or header field) that fails, with the fix.
    """
    _check_created(header, records[0])
    now = datetime.now(UTC)
    previous: datetime | None = None
    for record in records:
        when = _timestamp(record, now)
        if previous is not None and when < previous - CLOCK_SKEW:
            raise _refuse(record, "is dated before the event it follows")
        previous = when
    if header.created_at != records[0].recorded_at:
        raise IntegrityError("the header's created_at is not the created event's time",
                             where="campaign.created_at", fix=_FIX)
    fold_all(records, fix)


def _check_created(header: ExportedCampaignHeader, first: EventRecord) -> None:
    """The log starts with ``created`` and the header repeats its ruleset and name."""
    if first.type != CREATED:
        raise _refuse(first, f"is {shorten(first.type, 40)!r}, not the 'created' event")
    payload = first.payload
    for field in ("ruleset", "name"):
        stated, actual = getattr(header, field), payload.get(field)
        if stated != actual:
            raise IntegrityError(
                f"the header's {field} {shorten(str(stated), 40)!r} is not the created event's "
                f"{shorten(str(actual), 40)!r}", where=f"campaign.{field}", fix=_FIX)


def _timestamp(record: EventRecord, now: datetime) -> datetime:
    """The event's ``recorded_at`` as a UTC time, refusing nonsense and the future."""
    try:
        when = datetime.fromisoformat(record.recorded_at)
    except ValueError:
        raise _refuse(record, f"has no valid time ({shorten(record.recorded_at, 40)!r})") from None
    if when.tzinfo is None:
        raise _refuse(record, "has a time without a time zone")
    if when > now + CLOCK_SKEW:
        raise _refuse(record, f"is dated {record.recorded_at[:19]}, in the future (this "
                              f"machine's clock says {now.isoformat(timespec='seconds')})")
    return when


def fold_all(records: Sequence[EventRecord], fix: str = _FIX) -> None:
    """Play every event through its ruleset in memory, as every later command will play it.

    Linear in the log, and holding little beside the records
    (:class:`rallypoint.core.folding.LogFold`): every event is folded once, and its description
    and rolls read, as ``log`` and the dice audit will read them.

    Raises:
        IntegrityError: At the first event that is malformed or cannot be applied.
    """
    from rallypoint.core.campaign import bulk_reading
    from rallypoint.core.folding import LogFold  # the core's fold, exactly as commands use it

    folding = _guard(records[0], fix, LogFold, records[0])
    with bulk_reading():
        for record in records[1:]:
            if record.type == UNDONE:
                _check_undo(folding.effective, record, fix)
            _guard(record, fix, _step, folding, record)
    _guard(records[-1], fix, _views, folding.ruleset, folding.state)


STORED_FIX: Final = ("delete it with `rallypoint delete` (a backup is exported first) and import "
                     "a good export of it again")


def fold_stored(records: Sequence[EventRecord]) -> Any:
    """Fold a stored log for a command; a log that cannot be played is one IntegrityError line.

    The fast fold runs first; only when it fails is the log replayed step by step to name the
    event at fault (a log stored before imports were checked may hold one).
    """
    from rallypoint.core.campaign import Campaign

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


def _step(folding: Any, record: EventRecord) -> None:
    from rallypoint.core.campaign import describe_event, event_rolls

    event = folding.add(record)
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


def _refuse(record: EventRecord, what: str, fix: str = _FIX) -> IntegrityError:
    return IntegrityError(f"event {record.seq} ({shorten(record.type, 40)!r}) {what}",
                          where=f"seq {record.seq}", fix=fix)
