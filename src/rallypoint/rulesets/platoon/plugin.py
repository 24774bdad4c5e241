"""How the platoon ruleset plugs into rallypoint.

``PLUGIN`` is the object its ``rallypoint.rulesets`` entry point names.

Parts are referenced by ``module:attribute`` and imported only when a front end needs them.
"""

from rallypoint.core.registry import RulesetPlugin

PLUGIN = RulesetPlugin(
    name="platoon",
    rules="rallypoint.rulesets.platoon.ruleset:RULESET",
    cli="rallypoint.rulesets.platoon.front.cli:app",
    render="rallypoint.rulesets.platoon.front.cli:render",
    odds_cli="rallypoint.rulesets.platoon.front.lab_cli:odds",
    simulate_cli="rallypoint.rulesets.platoon.front.lab_cli:simulate",
    secrets="rallypoint.rulesets.platoon.secrets:SECRETS",
    words="rallypoint.rulesets.platoon.front.words:WORDS",
    demo="rallypoint.rulesets.platoon.front.demo:DEMO",
    odds="rallypoint.rulesets.platoon.front.odds:ODDS",
    readings="rallypoint.rulesets.platoon.readings:readings",
    web="rallypoint.rulesets.platoon.front.web:VIEW",
    templates="rallypoint.rulesets.platoon.front",
    fixes="rallypoint.rulesets.platoon.front.cli_words:FIXES",
)
"""The platoon ruleset's registration."""
