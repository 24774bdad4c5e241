"""The page of a ruleset without a view module: its state as JSON, its pending decisions."""

from __future__ import annotations

import json
from typing import Any

from rallypoint.core.visibility import (
    EVERYTHING,
    Viewer,
    declaration_of,
    redact_state,
    visible_decisions,
)
from rallypoint.session import Campaign

TEMPLATE = "generic.html"


def context(campaign: Campaign, viewer: Viewer = EVERYTHING) -> dict[str, Any]:
    """The state view as indented JSON, and the pending decisions, as ``viewer`` may see them."""
    declared = declaration_of(campaign.ruleset.name)
    full = campaign.ruleset.state_json(campaign.state)
    pending = campaign.ruleset.pending(campaign.state)
    shown = visible_decisions([d.model_dump() for d in pending], full,
                              campaign.created.scenario, viewer, declared)
    state = redact_state(full, campaign.created.scenario, viewer, declared)
    return {"state_text": json.dumps(state, indent=2, ensure_ascii=False),
            "pending": [pending[n] for n in shown]}
