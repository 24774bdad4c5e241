"""What the store reports about campaigns: their rows, their logs, and verification results."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rallypoint.core.events import ChainProblem, EventRecord


class CampaignInfo(BaseModel):
    """A campaign as listed by the store.

    Attributes:
        id: Campaign id.
        name: Unique human name.
        ruleset: Ruleset key.
        created_at: ``recorded_at`` of its ``created`` event.
        version: Highest seq stored (the state version commands are made against).
        last_recorded_at: ``recorded_at`` of the event at ``version``.
        head_seq: The seq the campaign row records as its newest event; differs from
            ``version`` only when events were cut behind the store's back.
        head_hash: That event's hash.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    ruleset: str
    created_at: str
    version: int
    last_recorded_at: str
    head_seq: int
    head_hash: str

    @property
    def cut(self) -> bool:
        """Whether the stored log is shorter than the recorded head (its tail was cut)."""
        return self.version != self.head_seq


class VerifyReport(BaseModel):
    """Result of checking a campaign's stored hash chain."""

    model_config = ConfigDict(frozen=True)

    campaign_id: str
    events: int
    head_seq: int
    ok: bool
    problem: ChainProblem | None


class StoredLog(BaseModel):
    """A campaign's events as read, with the first integrity problem found (if any).

    Reads do not refuse a broken log, so a player can still look at it; they show ``problem``.
    """

    model_config = ConfigDict(frozen=True)

    info: CampaignInfo
    records: list[EventRecord]
    problem: ChainProblem | None
