"""The platoon's chance nodes, and a recorder that keeps every roll for the event.

A transition rolls through a :class:`Recorder`; ``decide`` stores the recorded rolls in the event,
and ``apply`` replays the same transition with a :class:`Recorder` over those faces — so replay
never re-rolls, and decide and apply share one implementation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache

from rallypoint.dice import D6, TWO_D6, ChanceNode, DiceSpec, Roll, Roller, ScriptedRoller, roll
from rallypoint.rulesets.platoon.data import Column


class Recorder:
    """Rolls through a roller and remembers each :class:`Roll` in order."""

    def __init__(self, roller: Roller) -> None:
        self.roller = roller
        self.rolls: list[Roll] = []

    @classmethod
    def replaying(cls, rolls: list[Roll]) -> Recorder:
        """A recorder that reproduces ``rolls`` exactly."""
        return cls(ScriptedRoller(f for r in rolls for f in r.faces))

    def roll(self, node: ChanceNode, reading: Callable[[int], str] | None = None,
             odds: Callable[[ChanceNode], str] | None = None,
             law: Mapping[str, Fraction] | None = None) -> Roll:
        """Roll ``node`` and record it."""
        result = roll(node, self.roller, reading=reading, odds=odds, law=law)
        self.rolls.append(result)
        return result


def delay_node(purpose: str, sides: int) -> ChanceNode:
    """The die added to a base number of days (arrivals, wound healing)."""
    return ChanceNode(purpose=purpose, dice=DiceSpec(1, sides))


def delay_odds(base: int, sides: int) -> dict[int, Fraction]:
    """Exact distribution of ``base + 1dN`` days."""
    return delay_node("", sides).outcomes(lambda v: base + v)


def transfer_node(purpose: str) -> ChanceNode:
    """1d6 at a man's arrival: a transfer from another unit on ``transfer_on`` or more (14.6)."""
    return ChanceNode(purpose=purpose, dice=D6)


def attribute_node(purpose: str) -> ChanceNode:
    """2d6 for a section 8 draw: mean + spread × (2d6 − 7)/5."""
    return ChanceNode(purpose=purpose, dice=TWO_D6)


def attribute_value(column: Column, progress: Fraction, total: int, clamp: bool = True) -> int:
    """The attribute drawn with 2d6 ``total`` at campaign ``progress`` (rounded half up).

    Mean and spread are interpolated together between the green and veteran columns (14.6:
    never the mean of one with the spread of the other).
    """
    mean, spread = column.at(progress)
    exact = mean + spread * Fraction(total - 7, 5)
    value = int((exact + Fraction(1, 2)).__floor__())
    return max(0, min(100, value)) if clamp else value


def attribute_odds(column: Column, progress: Fraction, clamp: bool = True) -> dict[int, Fraction]:
    """Exact distribution of an attribute draw at ``progress`` (a copy: callers may change it)."""
    return dict(_attribute_odds(column, progress, clamp))


@cache
def _attribute_odds(column: Column, progress: Fraction, clamp: bool) -> dict[int, Fraction]:
    # Cached: every arriving man draws five attributes, and the odds of each are stored with it.
    return attribute_node("").outcomes(lambda t: attribute_value(column, progress, t, clamp))


def standin_tank_node(purpose: str, intensity: int) -> ChanceNode:
    """STAND-IN battle: 2d6 + intensity per fighting tank."""
    from rallypoint.dice import Modifier

    return ChanceNode(purpose=purpose, dice=TWO_D6,
                      modifiers=(Modifier(name="intensity", value=intensity),) if intensity else ())
