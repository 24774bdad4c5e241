"""Event records and the hash chain that makes the log tamper-evident.

Every event of a campaign has a contiguous sequence number (``seq``, starting at 1 with the
``created`` event) and a hash over its content and the previous event's hash. Editing,
dropping or reordering any stored event breaks the chain from that point on, which
``rallypoint verify`` reports.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

GENESIS_HASH = "0" * 64
"""The ``prev_hash`` of a campaign's first event."""

CREATED = "created"
"""Core event type: a campaign begins. Payload: ruleset, name, scenario, rules_data, seed."""

UNDONE = "undone"
"""Core event type: an earlier event stops counting. Payload: ``target`` (seq), ``summary``."""


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, UTF-8 kept, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def event_hash(
    campaign_id: str, seq: int, type_: str, payload: dict[str, Any], recorded_at: str,
    prev_hash: str,
) -> str:
    """SHA-256 (hex) of the canonical JSON of an event's content plus the previous hash."""
    body = canonical_json(
        {
            "campaign_id": campaign_id,
            "seq": seq,
            "type": type_,
            "payload": payload,
            "recorded_at": recorded_at,
            "prev_hash": prev_hash,
        }
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def now_text() -> str:
    """The current UTC time as ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class NewEvent(BaseModel):
    """An event decided by a command but not yet stored (no seq, no hash)."""

    model_config = ConfigDict(frozen=True)

    type: str
    payload: dict[str, Any]


class EventRecord(BaseModel):
    """A stored event.

    Attributes:
        campaign_id: The campaign it belongs to.
        seq: 1-based, contiguous within the campaign.
        type: ``created``, ``undone`` or a ruleset's event type.
        payload: JSON object, including every roll the event used.
        recorded_at: When it was appended (ISO 8601 UTC).
        prev_hash: Hash of the previous event (``GENESIS_HASH`` for seq 1).
        hash: :func:`event_hash` of this event.
    """

    model_config = ConfigDict(frozen=True)

    campaign_id: str
    seq: int
    type: str
    payload: dict[str, Any]
    recorded_at: str
    prev_hash: str
    hash: str

    @classmethod
    def seal(
        cls, campaign_id: str, seq: int, event: NewEvent, prev_hash: str,
        recorded_at: str | None = None,
    ) -> EventRecord:
        """Give a new event its seq, time and hash."""
        when = recorded_at or now_text()
        return cls(
            campaign_id=campaign_id,
            seq=seq,
            type=event.type,
            payload=event.payload,
            recorded_at=when,
            prev_hash=prev_hash,
            hash=event_hash(campaign_id, seq, event.type, event.payload, when, prev_hash),
        )

    def expected_hash(self) -> str:
        """What the hash should be for the stored content."""
        return event_hash(self.campaign_id, self.seq, self.type, self.payload, self.recorded_at,
                          self.prev_hash)


class ChainProblem(BaseModel):
    """The first place a log fails verification."""

    model_config = ConfigDict(frozen=True)

    seq: int
    reason: str


def verify_chain(records: Sequence[EventRecord]) -> ChainProblem | None:
    """Check sequence numbers and hashes; return the first problem or ``None``."""
    prev = GENESIS_HASH
    for index, record in enumerate(records, start=1):
        if record.seq != index:
            return ChainProblem(seq=record.seq, reason=f"sequence gap: expected {index}")
        if record.prev_hash != prev:
            return ChainProblem(seq=record.seq, reason="prev_hash does not match the event before")
        if record.hash != record.expected_hash():
            return ChainProblem(seq=record.seq, reason="content does not match its hash (edited?)")
        prev = record.hash
    return None
