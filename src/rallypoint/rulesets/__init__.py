"""Built-in rulesets. Importing this package registers each one with the core registry."""

from rallypoint.core.ruleset import register
from rallypoint.rulesets.platoon import RULESET as PLATOON
from rallypoint.rulesets.squares import RULESET as SQUARES
from rallypoint.rulesets.tcs import RULESET as TCS

register(TCS)
register(PLATOON)
register(SQUARES)

__all__ = ["PLATOON", "SQUARES", "TCS"]
