"""TCS R&R: the rest-and-recovery variant for the Tactical Combat Series (seed 000)."""

from rallypoint.rulesets.tcs.ruleset import RULESET, TcsRuleset

__all__ = ["RULESET", "TcsRuleset"]
