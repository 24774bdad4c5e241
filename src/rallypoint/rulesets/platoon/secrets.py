"""What the platoon ruleset keeps secret: nothing (the plugin's ``secrets`` part).

A platoon campaign is one player's tank platoon between battles: there is no opponent at this
layer (the battles are fought elsewhere), so its one seat, ``platoon``, sees everything and makes
every command; a shared campaign may add a referee, who sees and does the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.visibility import OpenDeclaration

SIDE = "platoon"
"""The one seat of a platoon campaign."""


class PlatoonSecrets(OpenDeclaration):
    """Nothing is secret; every command is the platoon's."""

    def sides(self, scenario: Mapping[str, Any]) -> tuple[str, ...]:
        """The platoon's one seat."""
        return (SIDE,)

    def command_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                      command: Mapping[str, Any]) -> str | None:
        """Every command is the platoon's."""
        return SIDE

    def decision_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                       decision: Mapping[str, Any]) -> str | None:
        """Every decision is the platoon's."""
        return SIDE


SECRETS = PlatoonSecrets()
"""The platoon declaration its plugin names."""
