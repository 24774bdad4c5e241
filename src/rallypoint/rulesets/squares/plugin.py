"""How the squares ruleset plugs into rallypoint.

``PLUGIN`` is the object its ``rallypoint.rulesets`` entry point names.

Parts are referenced by ``module:attribute`` and imported only when a front end needs them.
"""

from rallypoint.core.registry import RulesetPlugin

PLUGIN = RulesetPlugin(
    name="squares",
    rules="rallypoint.rulesets.squares.ruleset:RULESET",
    cli="rallypoint.rulesets.squares.front.cli:app",
    render="rallypoint.rulesets.squares.front.cli:render",
    odds_cli="rallypoint.rulesets.squares.front.lab_cli:odds",
    simulate_cli="rallypoint.rulesets.squares.front.lab_cli:simulate",
    secrets="rallypoint.rulesets.squares.secrets:SECRETS",
    words="rallypoint.rulesets.squares.front.words:WORDS",
    demo="rallypoint.rulesets.squares.front.demo:DEMO",
    readings="rallypoint.rulesets.squares.readings:readings",
    web="rallypoint.rulesets.squares.front.web:VIEW",
    builder="rallypoint.rulesets.squares.front.web_builder:BUILDER",
    templates="rallypoint.rulesets.squares.front",
    fixes="rallypoint.rulesets.squares.front.cli_words:FIXES",
)
"""The squares ruleset's registration."""
