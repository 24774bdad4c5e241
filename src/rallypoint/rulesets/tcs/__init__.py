"""TCS R&R: the rest-and-recovery variant for the Tactical Combat Series (seed 000).

The package itself stays light: ``RULESET`` and ``TcsRuleset`` import the rule modules on
first use, so listing rulesets (see :mod:`rallypoint.rulesets.tcs.plugin`) loads no rule code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rallypoint.rulesets.tcs.ruleset import RULESET, TcsRuleset

__all__ = ["RULESET", "TcsRuleset"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from rallypoint.rulesets.tcs import ruleset

        return getattr(ruleset, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
