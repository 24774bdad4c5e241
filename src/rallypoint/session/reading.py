"""Reading a campaign: folded to now, its view, what is pending, its log and its chain.

The work of :class:`rallypoint.session.Session`'s reads; a read opens the database read-only, so
it never creates, migrates or locks it.
"""

from __future__ import annotations

from typing import Never

from rallypoint.core.campaign import Campaign
from rallypoint.core.ruleset import Decision, PolicyInfo
from rallypoint.session.handle import Handle
from rallypoint.session.loading import loaded
from rallypoint.session.results import CampaignView, LogEntry, campaign_view, log_entries
from rallypoint.store import VerifyReport


def load(handle: Handle, ref: str, *, whole: bool = False) -> Campaign:
    """The campaign ``ref`` names, folded to its current version (resumed from a matching
    snapshot unless ``whole``: :meth:`Session.load <rallypoint.session.Session.load>`)."""
    with handle._store() as store:
        return loaded(store, ref, whole=whole)[0]


def view(handle: Handle, ref: str) -> CampaignView:
    """The JSON view ``show --json`` prints: id, name, version, state view, pending."""
    return campaign_view(load(handle, ref))


def pending(handle: Handle, ref: str) -> list[Decision]:
    """Decisions waiting on the player, in answering order, each with its legal choices."""
    campaign = load(handle, ref)
    return campaign.ruleset.pending(campaign.state)


def policies(handle: Handle, ref: str) -> list[PolicyInfo[Never]]:
    """The named policies that can answer the campaign's decisions; the first is the default
    (their names and summaries: the state their ``decide`` reads is the ruleset's own)."""
    return list(load(handle, ref).ruleset.policies())


def log(handle: Handle, ref: str) -> list[LogEntry]:
    """Every event, oldest first, with its summary, whether it was undone, and its rolls."""
    return log_entries(load(handle, ref, whole=True))


def verify(handle: Handle, ref: str) -> VerifyReport:
    """Check the stored hash chain (an edited, dropped or reordered event is reported)."""
    with handle._store() as store:
        return store.verify(store.find(ref).id)
