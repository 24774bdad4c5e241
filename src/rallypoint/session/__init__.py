"""The session API: open a campaign database, play campaigns, read their views and logs.

Every front end (the CLI, the demo, the lab, a web server) goes through this package; none of
them holds rule logic or writes events itself. See ``docs/api.md`` for a walk-through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# In-memory campaigns (no store), for simulation: the lab plays whole campaigns with these.
from rallypoint.core.campaign import (
    Campaign,
    created_event,
    created_from_scenario,
    start,
    state_of,
)
from rallypoint.core.errors import RallypointError
from rallypoint.core.ruleset import Command, Decision, PolicyInfo
from rallypoint.session.api import (
    Builder,
    CommandLike,
    Dice,
    RollerFor,
    Session,
    policy_named,
    seeded_roller,
)
from rallypoint.session.results import Executed, LogEntry, campaign_view, log_entries, summary
from rallypoint.store import CampaignInfo, VerifyReport, default_db_path

if TYPE_CHECKING:
    from rallypoint.store.exchange import write_atomically

__all__ = [
    "Builder",
    "Campaign",
    "CampaignInfo",
    "Command",
    "CommandLike",
    "Decision",
    "Dice",
    "Executed",
    "LogEntry",
    "PolicyInfo",
    "RallypointError",
    "RollerFor",
    "Session",
    "VerifyReport",
    "campaign_view",
    "created_event",
    "created_from_scenario",
    "default_db_path",
    "log_entries",
    "policy_named",
    "seeded_roller",
    "start",
    "state_of",
    "summary",
    "write_atomically",
]


def __getattr__(name: str) -> Any:
    # The exchange format is imported on first use: reading a campaign does not need it.
    if name == "write_atomically":
        from rallypoint.store.exchange import write_atomically

        return write_atomically
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
