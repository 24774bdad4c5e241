"""Exact odds of every TCS roll, computed from the very chance nodes the rules roll.

Nothing here re-implements a table: each function builds the rules' own node and reading and
asks it for exact :class:`~fractions.Fraction` distributions (``rallypoint odds tcs-*``, the lab's
exact values beside its samples). Probabilities print as fraction strings (``"1/3"``).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

from rallypoint.dice import D6, ChanceNode, Modifier, fraction_text, outcome_text
from rallypoint.rulesets.tcs.data import default_data
from rallypoint.rulesets.tcs.recovery import (
    fo_node,
    implementation_chance,
    morale_points,
    steps_reading,
)


def _tcs_rules() -> Any:
    return default_data()


def tcs_recovery(modifier: int) -> dict[str, Any]:
    """Steps recovered per column for one die plus ``modifier`` (seed's recovery table)."""
    rules = _tcs_rules()
    node = ChanceNode("recovery roll", D6, (Modifier(name="modifier", value=modifier),))
    return {"modifier": modifier, "columns": {
        column.value: outcome_text(node.outcomes(steps_reading(rules, column)))
        for column in rules.recovery_table.columns}}


@cache
def _implementation_chance() -> Callable[[int | None], Fraction]:
    """The rules' ``implementation_chance``, cached: a table of many rows and turns asks for the
    same few dozen cells over and over (the chance of a d66 roll is exact and never changes)."""
    return cache(implementation_chance)


def tcs_implementation(row: int, weighted_turns: int, per_turn: int | None = None,
                       horizon: int = 24) -> dict[str, Any]:
    """Chance a sheet implements on one check, and with ``per_turn``, turns until it does.

    With ``per_turn`` = K the sheet accrues K weighted turns at each of the next turns and is
    checked once each turn (turn 1 is the next turn): ``turns`` is the chance it first implements
    on turn t, ``cumulative`` that it has implemented by then, ``later`` that it has not within
    ``horizon`` turns.
    """
    implementation_chance = _implementation_chance()
    table = _tcs_rules().implementation
    column = table.column(weighted_turns)
    needed = table.needed_at(row, weighted_turns)
    result: dict[str, Any] = {"row": row, "weighted_turns": weighted_turns, "column": column,
                              "needed": str(needed) if needed is not None else None,
                              "p": fraction_text(implementation_chance(needed))}
    if per_turn is not None:
        turns, cumulative, later = _turns_until(row, weighted_turns, per_turn, horizon)
        result.update({"per_turn": per_turn, "turns": turns, "cumulative": cumulative,
                       "later": later})
    return result


def _turns_until(row: int, weighted_turns: int, per_turn: int,
                 horizon: int) -> tuple[dict[str, str], dict[str, str], str]:
    """Chance the first implementation comes on turn t, and by turn t, and not within
    ``horizon``: exact, kept as whole numerators over the product of the checks' denominators
    (one reduction per printed cell, not a Fraction product per turn)."""
    table = _tcs_rules().implementation
    chance = _implementation_chance()
    waiting, scale = 1, 1
    turns: dict[str, str] = {}
    cumulative: dict[str, str] = {}
    for t in range(1, horizon + 1):
        p = chance(table.needed_at(row, weighted_turns + per_turn * t))
        hit = waiting * p.numerator
        waiting *= p.denominator - p.numerator
        scale *= p.denominator
        if hit:
            turns[str(t)] = fraction_text(Fraction(hit, scale))
            cumulative[str(t)] = fraction_text(Fraction(scale - waiting, scale))
    return turns, cumulative, fraction_text(Fraction(waiting, scale))


def tcs_fo(number: int, horizon: int = 24) -> dict[str, Any]:
    """A dead FO's chance to return at each whole hour, and the hours until it does."""
    p = fo_node("").probability(lambda v: v >= number)
    waiting, hours = Fraction(1), {}
    for h in range(1, horizon + 1):
        if waiting * p:
            hours[str(h)] = fraction_text(waiting * p)
        waiting *= 1 - p
    return {"number": number, "per_hour": fraction_text(p), "hours": hours,
            "later": fraction_text(waiting)}


def tcs_morale() -> dict[str, Any]:
    """Points of battalion morale recovered: one die halved, rounded up."""
    return {"points": outcome_text(ChanceNode("battalion morale", D6).outcomes(morale_points))}
