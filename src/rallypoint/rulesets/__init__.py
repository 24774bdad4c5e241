"""Built-in rulesets. Importing this package registers each one with the core registry."""

from rallypoint.core.ruleset import register
from rallypoint.rulesets.tcs import RULESET as TCS

register(TCS)

__all__ = ["TCS"]
