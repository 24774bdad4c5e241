"""Stored rows read back, as every backend and every paged read needs them: a campaign's row,
an event's payload, and which of two integrity problems comes first."""

from __future__ import annotations

import json
from typing import Any

from rallypoint.core.events import ChainProblem
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
