"""Squares: disorder recovery and leader rally on a square grid (seed 003).

The package itself stays light: ``RULESET`` and ``SquaresRuleset`` import the rule modules on
first use, so listing rulesets (see :mod:`rallypoint.rulesets.squares.plugin`) loads no rule code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rallypoint.rulesets.squares.ruleset import RULESET, SquaresRuleset

__all__ = ["RULESET", "SquaresRuleset"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from rallypoint.rulesets.squares import ruleset

        return getattr(ruleset, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
