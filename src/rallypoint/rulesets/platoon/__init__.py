"""Platoon: "Between battles" (seed 002, 14.1–14.9), a WW2 tank platoon's campaign layer.

The package itself stays light: ``RULESET`` and ``PlatoonRuleset`` import the rule modules on
first use, so listing rulesets (see :mod:`rallypoint.rulesets.platoon.plugin`) loads no rule code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rallypoint.rulesets.platoon.ruleset import RULESET, PlatoonRuleset

__all__ = ["RULESET", "PlatoonRuleset"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from rallypoint.rulesets.platoon import ruleset

        return getattr(ruleset, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
