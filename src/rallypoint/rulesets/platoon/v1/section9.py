"""Stand-ins for the rules the seed refers to but does not give (sections 7, 9.1, 9.3, 9.6, 9.9).

Each is one small, named, documented function. They are gathered in :class:`Hooks` so a user with
the full rulebook can replace any of them: ``PlatoonRuleset(hooks=Hooks(cohesion_after_stranger=
my_rule))`` and register it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from rallypoint.rulesets.platoon.data import PlatoonData
from rallypoint.rulesets.platoon.model import Man, Wound


def stress_gain_multiplier(man: Man, rules: PlatoonData) -> Fraction:
    """9.1 stand-in: 1 for a new man, falling linearly to 3/4 at steadiness 100 (14.2)."""
    cut = Fraction(rules.n("steadiness", "max_reduction"), 100)
    return 1 - cut * Fraction(man.steadiness, 100)


def threshold_shift(morale: int, rules: PlatoonData) -> Fraction:
    """9.3 stand-in: every man's reaction threshold moves by (morale − 50)/10 × the parameter.

    A confident platoon (above 50) holds longer, a beaten one breaks sooner. 14.5: this is the only
    thing morale does.
    """
    return Fraction(morale - 50, 10) * rules.n("morale", "threshold_per_10")


def effective_skill(man: Man, rules: PlatoonData) -> int:
    """14.3: a lightly wounded man serves at somewhat less than his skill (rounded down).

    The battle is not told he is wounded (no section 7 halving on top).
    """
    if man.wound is Wound.LIGHT:
        return man.skill * rules.n("wounds", "light_skill") // 100
    return man.skill


def cohesion_after_stranger(cohesion: int, rules: PlatoonData) -> int:
    """9.6 stand-in: a crew loses a flat amount when a stranger actually joins it."""
    return max(0, cohesion - rules.n("cohesion", "stranger_loss"))


def evening_trust(trust: int, rules: PlatoonData) -> int:
    """9.9 stand-in: an evening in camp raises a commander's trust in the lieutenant a little."""
    return min(100, trust + rules.n("year", "trust_per_evening"))


@dataclass(frozen=True)
class Hooks:
    """The replaceable stand-ins, one per referenced rule."""

    stress_gain_multiplier: Callable[[Man, PlatoonData], Fraction] = stress_gain_multiplier
    threshold_shift: Callable[[int, PlatoonData], Fraction] = threshold_shift
    effective_skill: Callable[[Man, PlatoonData], int] = effective_skill
    cohesion_after_stranger: Callable[[int, PlatoonData], int] = cohesion_after_stranger
    evening_trust: Callable[[int, PlatoonData], int] = evening_trust


DEFAULT_HOOKS = Hooks()
