"""Exact odds as the lab prints them: outcome → fraction string, from a chance node's law.

Each ruleset's odds tables live in its own folder (``rulesets/<name>/front/``) and compute from
the very chance nodes its rules roll; here is the one shape they share.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rallypoint.dice import fraction_text


def outcome_text(dist: Mapping[Any, Fraction]) -> dict[str, str]:
    """``{outcome: "p/q"}`` in the outcomes' order, the outcomes with zero chance left out."""
    return {str(k): fraction_text(p) for k, p in sorted(dist.items()) if p}
