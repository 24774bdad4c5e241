"""How the tcs ruleset plugs into rallypoint.

``PLUGIN`` is the object its ``rallypoint.rulesets`` entry point names.

Parts are referenced by ``module:attribute`` and imported only when a front end needs them.
"""

from rallypoint.core.ruleset import RulesetPlugin

PLUGIN = RulesetPlugin(
    name="tcs",
    rules="rallypoint.rulesets.tcs.ruleset:RULESET",
    cli="rallypoint.cli.tcs:app",
    render="rallypoint.cli.tcs:render",
    odds_cli="rallypoint.cli.lab_tcs:odds",
    simulate_cli="rallypoint.cli.lab_tcs:simulate",
    lab="rallypoint.lab.tcs_sim",
    secrets="rallypoint.rulesets.tcs.secrets:SECRETS",
    readings="rallypoint.rulesets.tcs.readings:readings",
    web="rallypoint.web.rulesets.tcs:VIEW",
)
"""The tcs ruleset's registration."""
