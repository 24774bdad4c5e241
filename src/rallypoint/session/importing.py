"""Importing an export: the store's checks, then the rules' (the log must play), then storing.

The store checks what a store can (the chain, the header, signatures, clocks:
:func:`rallypoint.store.exchange.check_export`); whether the log can be played through its
ruleset is the rules' question (:func:`rallypoint.core.playcheck.fold_all`), asked here before
anything is written, so a file that cannot be played is never stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rallypoint.core.events import EventRecord
from rallypoint.core.playcheck import fold_all
from rallypoint.store import CampaignInfo, EventStore
from rallypoint.store.importcheck import IMPORT_FIX, check_header_and_clocks

if TYPE_CHECKING:
    # The export format and its signatures load only when a file is imported: a read command
    # (show, log) never pays for them (tests/test_instant.py).
    from rallypoint.store.exchange import ExportedCampaign, ExportedCampaignHeader


def check_import(header: ExportedCampaignHeader, records: Sequence[EventRecord],
                 fix: str = IMPORT_FIX) -> None:
    """Refuse records whose header or clocks do not hold together, or that cannot be played.

    Payload values are within :mod:`rallypoint.core.inputs`' limits already: ``records`` come
    from :func:`rallypoint.store.exchange.read_export`, which checks each event as it reads it,
    or from this database's own log.

    Raises:
        IntegrityError: Naming the first event (or header field) that fails, with ``fix`` for
            a log that cannot be played.
    """
    check_header_and_clocks(header, records)
    fold_all(records, fix)


def import_campaign(store: EventStore, exported: ExportedCampaign,
                    name: str | None = None) -> CampaignInfo:
    """Bring an exported campaign into ``store``, verifying it whole first.

    Before anything is written the file must pass the store's checks
    (:func:`~rallypoint.store.exchange.check_export`: chain, header, signatures, ``created``,
    timestamps) and a fold of every event through the ruleset. A new campaign is then inserted
    with all its events exactly as exported (same times and hashes). A campaign already in the
    store gets only the events beyond its stored log, provided the stored log is a prefix of the
    imported one; this is how an opponent's moves come back.

    Args:
        store: The destination store.
        exported: From :func:`rallypoint.store.exchange.read_export`.
        name: Name for a new campaign (default: the exported name). Ignored when the campaign
            already exists, which keeps its local name.

    Returns:
        The campaign as stored afterwards.

    Raises:
        IntegrityError: The file fails any check above, or diverges from the stored log (nothing
            is written).
        StoreError: The name is taken by a different campaign.
    """
    header = exported.campaign
    from rallypoint.store.exchange import check_export

    check_export(exported)
    fold_all(exported.events, IMPORT_FIX)
    return store.import_records(header.id, name or header.name, header.ruleset,
                                header.created_at, exported.events)
