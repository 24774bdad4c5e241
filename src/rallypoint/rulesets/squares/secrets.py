"""What the squares ruleset keeps secret, and whose each command is (the plugin's ``secrets``).

Nothing is secret: the designer's note plays on an open table (every unit, its SP, disorder and
shaken state, the leaders and the rally odds are in plain view), so both sides see the whole
state and log. Seats matter only for who acts: a command naming a unit or leader acts for that
unit's or leader's side (a rally for the rallying leader's); the next turn and a sight ruling
belong to no one side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.visibility import REFEREE_ONLY, OpenDeclaration


def _side_of(scenario: Mapping[str, Any], ident: Any) -> str:
    """The side of a unit or leader id (an unknown id is no side's: the referee's alone)."""
    brigades = {str(b.get("id")): str(b.get("side")) for b in scenario.get("brigades") or ()}
    for unit in scenario.get("units") or ():
        if unit.get("id") == ident:
            return brigades.get(str(unit.get("brigade")), REFEREE_ONLY)
    for leader in scenario.get("leaders") or ():
        if leader.get("id") == ident:
            side = leader.get("side")
            return str(side) if side else brigades.get(str(leader.get("brigade")), REFEREE_ONLY)
    return REFEREE_ONLY


class SquaresSecrets(OpenDeclaration):
    """Nothing is secret; units and leaders act for their own side."""

    def sides(self, scenario: Mapping[str, Any]) -> tuple[str, ...]:
        """One seat per side of the scenario."""
        return tuple(str(s.get("id")) for s in scenario.get("sides") or ())

    def command_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                      command: Mapping[str, Any]) -> str | None:
        """The side of the unit, leader or rallying leader a command names."""
        kind = command.get("kind")
        if kind in ("move", "activate"):
            return _side_of(scenario, command.get("who"))
        if kind in ("fire", "lose", "disorder"):
            return _side_of(scenario, command.get("unit"))
        if kind == "rally":
            return _side_of(scenario, command.get("leader"))
        return None


SECRETS = SquaresSecrets()
"""The squares declaration its plugin names."""
