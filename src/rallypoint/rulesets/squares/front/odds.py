"""Exact odds of the squares rally test, from the rules' own nodes (``rallypoint odds
squares-rally``). Probabilities print as fraction strings (``"1/3"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rallypoint.dice import ChanceNode, fraction_text
from rallypoint.rulesets.squares.data import default_data
from rallypoint.rulesets.squares.rally import (
    RallyResult,
    modifier_node,
    opportunities,
    reading,
)
from rallypoint.rulesets.squares.ruleset import RULESET


def _squares_rules() -> Any:
    return default_data()


def _rally_text(node: ChanceNode, rules: Any) -> dict[str, str]:
    found = node.outcomes(reading(rules.thresholds))
    return {r.value: fraction_text(found[r]) for r in RallyResult if found.get(r)}


def squares_rally(modifier: int) -> dict[str, Any]:
    """A rally test, one die + ``modifier``: pass (6+), no effect, break (0 or less)."""
    return {"modifier": modifier, **_rally_text(modifier_node(modifier), _squares_rules())}


def squares_situations(scenario: Path) -> list[dict[str, Any]]:
    """Every rally allowed in a squares battle's starting state, each modifier named."""
    ruleset = RULESET  # its own rules, typed by its own state
    data = ruleset.load_scenario(scenario)
    state = ruleset.initial_state(data, ruleset.rules_data(data))
    return [{"leader": plan.leader, "unit": plan.unit, "rally": plan.kind.value,
             "modifiers": [{"name": m.name, "value": m.value} for m in plan.node.modifiers],
             "modifier": plan.node.modifier_total, **_rally_text(plan.node, state.rules)}
            for plan in opportunities(state)]
