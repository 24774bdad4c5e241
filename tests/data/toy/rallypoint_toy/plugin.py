"""The toy ruleset's registration: its rules, and no front part (every one falls back)."""

from rallypoint.core.ruleset import RulesetPlugin

PLUGIN = RulesetPlugin(name="toy", rules="rallypoint_toy.rules:RULESET")
"""What the ``toy`` entry point names."""
