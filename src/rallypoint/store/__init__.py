"""The event store: an append-only, hash-chained log per campaign in one SQLite file."""

from rallypoint.store.exchange import (
    ExportedCampaign,
    ExportedCampaignHeader,
    export_campaign,
    import_campaign,
    read_export,
)
from rallypoint.store.migrations import MIGRATIONS
from rallypoint.store.names import MAX_NAME_LENGTH, clean_name
from rallypoint.store.records import CampaignInfo, StoredLog, VerifyReport
from rallypoint.store.sqlite import EventStore, default_db_path

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
    "import_campaign",
    "read_export",
]
