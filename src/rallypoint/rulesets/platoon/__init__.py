"""Platoon: "Between battles" (seed 002, 14.1–14.9), a WW2 tank platoon's campaign layer."""

from rallypoint.rulesets.platoon.ruleset import RULESET, PlatoonRuleset

__all__ = ["RULESET", "PlatoonRuleset"]
