"""Squares: disorder recovery and leader rally on a square grid (seed 003)."""

from rallypoint.rulesets.squares.ruleset import RULESET, SquaresRuleset

__all__ = ["RULESET", "SquaresRuleset"]
