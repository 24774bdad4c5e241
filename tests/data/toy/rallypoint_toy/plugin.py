"""The toy ruleset's registration: its rules and its lab page's simulation, and no other front
part (every one falls back: ``show``, ``play``, the web page and form, the odds tables)."""

from rallypoint.core.registry import RulesetPlugin

PLUGIN = RulesetPlugin(name="toy", rules="rallypoint_toy.rules:RULESET",
                       lab="rallypoint_toy.lab:LAB")
"""What the ``toy`` entry point names."""
