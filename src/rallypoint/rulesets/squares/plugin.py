"""How the squares ruleset plugs into rallypoint.

``PLUGIN`` is the object its ``rallypoint.rulesets`` entry point names.

Parts are referenced by ``module:attribute`` and imported only when a front end needs them.
"""

from rallypoint.core.ruleset import RulesetPlugin

PLUGIN = RulesetPlugin(
    name="squares",
    rules="rallypoint.rulesets.squares.ruleset:RULESET",
    cli="rallypoint.cli.squares:app",
    render="rallypoint.cli.squares:render",
    odds_cli="rallypoint.cli.lab_squares:odds",
    simulate_cli="rallypoint.cli.lab_squares:simulate",
    lab="rallypoint.lab.squares_sim",
    secrets="rallypoint.rulesets.squares.secrets:SECRETS",
    words="rallypoint.rulesets.squares.front.words:WORDS",
    demo="rallypoint.cli.demo_squares:DEMO",
    readings="rallypoint.rulesets.squares.readings:readings",
    web="rallypoint.web.rulesets.squares:VIEW",
    builder="rallypoint.web.rulesets.squares_builder",
)
"""The squares ruleset's registration."""
