"""The event store: an append-only, hash-chained log per campaign in one SQLite file."""

from rallypoint.store.exchange import (
    ExportedCampaign,
    ExportedCampaignHeader,
    export_campaign,
    import_campaign,
    read_export,
)
from rallypoint.store.migrations import MIGRATIONS
from rallypoint.store.sqlite import (
    CampaignInfo,
    EventStore,
    VerifyReport,
    default_db_path,
)

__all__ = [
    "MIGRATIONS",
    "CampaignInfo",
    "EventStore",
    "ExportedCampaign",
    "ExportedCampaignHeader",
    "VerifyReport",
    "default_db_path",
    "export_campaign",
    "import_campaign",
    "read_export",
]
