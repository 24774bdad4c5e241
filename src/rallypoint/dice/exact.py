"""The one module that talks to icepool.

icepool (pinned at 2.1.3) computes exact distributions of dice expressions. Everything else in
rallypoint asks this module, so swapping or upgrading icepool touches one file. We never use
icepool's ``.sample()``: picking outcomes is the rollers' job (see :mod:`rallypoint.dice.rollers`).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import icepool

# icepool is imported inside each function, on first use: a command that computes no odds (most
# of them) never pays for importing it.


@cache
def sum_distribution(count: int, sides: int) -> dict[int, Fraction]:
    """Exact distribution of the sum of ``count`` dice with ``sides`` faces each.

    Args:
        count: Number of dice (at least 1).
        sides: Faces per die, numbered 1..sides.

    Returns:
        Outcome → exact probability; outcomes with zero probability are absent.
    """
    if count == 1:
        # One die is uniform: the commonest roll at the table (a rally, a recovery) needs no
        # icepool import (tens of milliseconds of a command); the tests hold it to icepool's.
        return {face: Fraction(1, sides) for face in range(1, sides + 1)}
    import icepool

    die = count @ icepool.d(sides)
    return _to_fractions(die)


@cache
def tens_units_distribution(sides: int) -> dict[int, Fraction]:
    """Exact distribution of two dice read as tens and units (``11`` … ``66`` for d6)."""
    import icepool

    die = icepool.d(sides) * 10 + icepool.d(sides)
    return _to_fractions(die)


def _to_fractions(die: icepool.Die) -> dict[int, Fraction]:
    denominator = int(die.denominator())
    return {
        int(outcome): Fraction(int(quantity), denominator)
        for outcome, quantity in die.items()
        if quantity
    }
