"""The event store: an append-only, hash-chained log per campaign in one SQLite file.

The export/import names (:mod:`rallypoint.store.exchange`) are imported on first use (PEP 562),
so a command that only reads a campaign does not load the exchange format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rallypoint.store.migrations import MIGRATIONS
from rallypoint.store.names import MAX_NAME_LENGTH, clean_name
from rallypoint.store.records import CampaignInfo, StoredLog, VerifyReport
from rallypoint.store.sqlite import EventStore, default_db_path

if TYPE_CHECKING:
    from rallypoint.store.exchange import (
        ExportedCampaign,
        ExportedCampaignHeader,
        export_campaign,
        read_export,
    )

_EXCHANGE = frozenset({"ExportedCampaign", "ExportedCampaignHeader", "export_campaign",
                       "read_export"})

__all__ = [
    "MAX_NAME_LENGTH",
    "MIGRATIONS",
    "CampaignInfo",
    "EventStore",
    "ExportedCampaign",
    "ExportedCampaignHeader",
    "StoredLog",
    "VerifyReport",
    "clean_name",
    "default_db_path",
    "export_campaign",
    "read_export",
]


def __getattr__(name: str) -> Any:
    if name in _EXCHANGE:
        from rallypoint.store import exchange

        return getattr(exchange, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
