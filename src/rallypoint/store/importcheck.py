"""Import checks the store makes beyond the hash chain: the header against ``created``, and the
clocks.

A re-hashed file passes the chain check whatever it says; these checks catch a header that does
not match its log and times that cannot be (the future, or going backwards). Whether the log can
be *played* is the rules' question, asked by the session before anything is stored
(:func:`rallypoint.core.playcheck.fold_all`): the store only stores.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Final

from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import CREATED, EventRecord
from rallypoint.core.inputs import shorten

if TYPE_CHECKING:
    from rallypoint.store.exchange import ExportedCampaignHeader

CLOCK_SKEW: Final = timedelta(minutes=10)
"""How far in this machine's future an imported event's time may be (clocks differ a little)."""
IMPORT_FIX: Final = ("ask for a fresh export; the file was edited or damaged (nothing was "
                     "imported)")
"""The fix of every refused import."""



def check_header_and_clocks(header: ExportedCampaignHeader,
                            records: Sequence[EventRecord]) -> None:
    """Refuse an export whose header or clocks do not hold together with its log.

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
                             where="campaign.created_at", fix=IMPORT_FIX)


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
                f"{shorten(str(actual), 40)!r}", where=f"campaign.{field}", fix=IMPORT_FIX)


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


def _refuse(record: EventRecord, what: str) -> IntegrityError:
    return IntegrityError(f"event {record.seq} ({shorten(record.type, 40)!r}) {what}",
                          where=f"seq {record.seq}", fix=IMPORT_FIX)
