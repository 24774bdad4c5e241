"""The page of a ruleset without a view module: its state as JSON, its pending decisions."""

from __future__ import annotations

import json
from typing import Any

from rallypoint.session import Campaign

TEMPLATE = "generic.html"


def context(campaign: Campaign) -> dict[str, Any]:
    """The state view as indented JSON, and the pending decisions."""
    return {"state_text": json.dumps(campaign.ruleset.state_json(campaign.state), indent=2,
                                     ensure_ascii=False),
            "pending": campaign.ruleset.pending(campaign.state)}
