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
from rallypoint.core.events import (
    CREATED,
    GENESIS_HASH,
    EventRecord,
    canonical_json,
    link_problem,
)
from rallypoint.core.inputs import shorten
from rallypoint.core.visibility import is_redacted

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
    clocks = ClockCheck()
    for record in records:
        clocks.add(record)
    check_created_at(header, records[0])


class ClockCheck:
    """The clocks of a log read one event at a time: each event's time valid, with a zone, not
    in this machine's future, and not before the event it follows (beyond :data:`CLOCK_SKEW`)."""

    def __init__(self) -> None:
        self._now = datetime.now(UTC)
        self._previous: datetime | None = None

    def add(self, record: EventRecord) -> None:
        """Check the next event's time.

        Raises:
            IntegrityError: It fails (naming the event).
        """
        when = _timestamp(record, self._now)
        if self._previous is not None and when < self._previous - CLOCK_SKEW:
            raise _refuse(record, "is dated before the event it follows")
        self._previous = when


def check_created(header: ExportedCampaignHeader, first: EventRecord) -> None:
    """The log starts with ``created`` and the header repeats its ruleset and name.

    Raises:
        IntegrityError: It does not.
    """
    _check_created(header, first)


def check_created_at(header: ExportedCampaignHeader, first: EventRecord) -> None:
    """The header's ``created_at`` is the ``created`` event's time.

    Raises:
        IntegrityError: It is not.
    """
    if header.created_at != first.recorded_at:
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


class ChainCheck:
    """The hash chain of an imported log read one event at a time, with the same refusals as
    :func:`rallypoint.store.exchange.check_importable` over a whole log.

    Args:
        campaign_id: The campaign the file's header names.
    """

    def __init__(self, campaign_id: str) -> None:
        self._campaign_id = campaign_id
        self._prev = GENESIS_HASH
        self.count = 0

    def add(self, record: EventRecord) -> str:
        """Check the next event: of this campaign, and linked to the one before.

        Returns:
            The canonical JSON text of its payload, over which its hash was checked (what an
            import stores: serialised once, not once for the hash and again for the row).

        Raises:
            IntegrityError: It belongs elsewhere, or breaks the chain.
        """
        if record.campaign_id != self._campaign_id:
            raise IntegrityError(
                f"event {record.seq} belongs to campaign {shorten(record.campaign_id)!r}, "
                f"not {shorten(self._campaign_id)!r}", where=f"seq {record.seq}",
                fix="export the campaign again; the file mixes campaigns")
        self.count += 1
        text = canonical_json(record.payload)
        problem = link_problem(record, self.count, self._prev, text)
        if problem is not None:
            raise IntegrityError(f"the imported log is broken at seq {problem.seq}: "
                                 f"{problem.reason}", where=f"seq {problem.seq}",
                                 fix="ask for a fresh export; the file was edited or damaged")
        self._prev = record.hash
        return text


class VisibleChainCheck(ChainCheck):
    """:class:`ChainCheck` of a file filtered for its reader, as ``check_importable`` checks
    one: an event redacted for the reader by its link only (its hash cannot be recomputed; the
    reveal checks it).
    """

    def add(self, record: EventRecord) -> str:
        """Check the next event (:meth:`ChainCheck.add`; a redacted one by its link).

        Returns:
            The canonical JSON text of its payload.

        Raises:
            IntegrityError: It breaks the chain.
        """
        if not is_redacted(record):
            return super().add(record)
        if (record.campaign_id, record.seq, record.prev_hash) != (
                self._campaign_id, self.count + 1, self._prev):
            raise IntegrityError(f"the imported log is broken at seq {record.seq}: the "
                                 "redacted event does not link to the one before it",
                                 where=f"seq {record.seq}",
                                 fix="ask for a fresh export; the file was edited or damaged")
        self.count += 1
        self._prev = record.hash
        return canonical_json(record.payload)
