"""How the tcs ruleset plugs into rallypoint.

``PLUGIN`` is the object its ``rallypoint.rulesets`` entry point names.

Parts are referenced by ``module:attribute`` and imported only when a front end needs them.
"""

from rallypoint.core.registry import RulesetPlugin

PLUGIN = RulesetPlugin(
    name="tcs",
    rules="rallypoint.rulesets.tcs.ruleset:RULESET",
    cli="rallypoint.rulesets.tcs.front.cli:app",
    render="rallypoint.rulesets.tcs.front.cli:render",
    odds_cli="rallypoint.rulesets.tcs.front.lab_cli:odds",
    simulate_cli="rallypoint.rulesets.tcs.front.lab_cli:simulate",
    lab="rallypoint.rulesets.tcs.front.lab_page:LAB",
    secrets="rallypoint.rulesets.tcs.secrets:SECRETS",
    words="rallypoint.rulesets.tcs.front.words:WORDS",
    demo="rallypoint.rulesets.tcs.front.demo:DEMO",
    readings="rallypoint.rulesets.tcs.readings:readings",
    web="rallypoint.rulesets.tcs.front.web:VIEW",
    templates="rallypoint.rulesets.tcs.front",
    builder="rallypoint.rulesets.tcs.front.web_builder:BUILDER",
    fixes="rallypoint.rulesets.tcs.front.cli_words:FIXES",
)
"""The tcs ruleset's registration."""
