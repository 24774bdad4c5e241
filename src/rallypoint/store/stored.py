"""Stored rows, as every backend and every paged read needs them: an event as its row and as it
will read back, a campaign's row and an event's payload read back, and which of two integrity
problems comes first."""

from __future__ import annotations

import json
from typing import Any

from rallypoint.core.errors import MalformedInputError
from rallypoint.core.events import ChainProblem, EventRecord, NewEvent, canonical_json
from rallypoint.store.records import CampaignInfo


def earlier(*problems: ChainProblem | None) -> ChainProblem | None:
    """The problem at the lowest seq; at a tie the last given (the more specific) wins."""
    found = [p for p in problems if p is not None]
    return min(reversed(found), key=lambda p: p.seq) if found else None


def info_of(row: tuple[Any, ...]) -> CampaignInfo:
    """A campaign row (the statements' ``campaign_select`` columns, in field order)."""
    return CampaignInfo(**dict(zip(CampaignInfo.model_fields, row, strict=True)))


def payload_of(text: object) -> dict[str, Any] | None:
    """A stored payload read back, or ``None`` when it is not a JSON object (edited)."""
    try:
        payload = json.loads(text)  # type: ignore[arg-type]  # a non-str is refused below
    except (ValueError, TypeError, RecursionError):
        return None
    return payload if isinstance(payload, dict) else None


def row_of(record: EventRecord) -> tuple[Any, ...]:
    """A sealed record as the seven ``events`` columns."""
    return (record.campaign_id, record.seq, record.type, canonical_json(record.payload),
            record.recorded_at, record.prev_hash, record.hash)


def normalised(event: NewEvent, seq: int) -> NewEvent:
    """The event with its payload round-tripped through canonical JSON.

    So the returned record equals what :meth:`rallypoint.store.base.StoreBase.events` reads
    back (tuples become lists, int keys strings), and a payload JSON cannot hold fails before
    anything is written.
    """
    try:
        payload = json.loads(canonical_json(event.payload))
    except (TypeError, ValueError, RecursionError) as exc:
        raise MalformedInputError(
            f"the payload of event {event.type!r} (seq {seq}) cannot be stored as JSON: {exc}",
            where=f"seq {seq}", fix="use only JSON values (dict, list, str, int, finite float, "
            "bool, None) in event payloads") from exc
    return NewEvent(type=event.type, payload=payload)
