"""The web app's one seam to the library: every call goes to the session API.

Routes (pages and JSON) call these methods and nothing else in the library, so the web layer holds
no rule logic and issue 12 can filter what each viewer sees here, at the edge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.store import CampaignInfo, EventStore


class Service:
    """The campaigns of one database, as the web app uses them."""

    def __init__(self, db: Path) -> None:
        self.db = db
        with EventStore(db):
            pass  # create the file and apply migrations once, at start-up

    def _store(self) -> EventStore:
        return EventStore(self.db)

    def campaigns(self) -> list[CampaignInfo]:
        """Every campaign, oldest first."""
        with self._store() as store:
            return store.campaigns()

    def scenarios(self) -> list[tuple[str, str, Path]]:
        """(ruleset, ruleset title, path) of every shipped scenario."""
        from rallypoint.core.ruleset import registered

        return [(name, ruleset.title, path) for name, ruleset in registered().items()
                for path in ruleset.example_scenarios()]

    def load(self, ref: str) -> Campaign:
        """The campaign with this id (or name)."""
        with self._store() as store:
            info = store.find(ref)
            return Campaign.from_events(store.events(info.id))

    def view(self, ref: str) -> dict[str, Any]:
        """The JSON view of a campaign (what ``show --json`` prints)."""
        c = self.load(ref)
        return {"campaign": c.campaign_id, "name": c.name, "version": c.version,
                "state": c.ruleset.state_json(c.state),
                "pending": [d.model_dump() for d in c.ruleset.pending(c.state)]}
