"""Exact odds of every roll, computed from the very chance nodes the rules roll.

Nothing here re-implements a table: each function builds the ruleset's own node and reading and
asks it for exact :class:`~fractions.Fraction` distributions. Probabilities print as fraction
strings (``"1/3"``); outcomes with zero probability are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from rallypoint.dice import ChanceNode, Modifier, fraction_text


def _text(dist: dict[Any, Fraction]) -> dict[str, str]:
    return {str(k): fraction_text(p) for k, p in sorted(dist.items()) if p}


def _tcs_rules() -> Any:
    from rallypoint.rulesets.tcs.data import default_data

    return default_data()


def tcs_recovery(modifier: int) -> dict[str, Any]:
    """Steps recovered per column for one die plus ``modifier`` (seed's recovery table)."""
    from rallypoint.dice import D6
    from rallypoint.rulesets.tcs.recovery import steps_reading

    rules = _tcs_rules()
    node = ChanceNode("recovery roll", D6, (Modifier(name="modifier", value=modifier),))
    return {"modifier": modifier, "columns": {
        column.value: _text(node.outcomes(steps_reading(rules, column)))
        for column in rules.recovery_table.columns}}


@cache
def _implementation_chance() -> Callable[[int | None], Fraction]:
    """The rules' ``implementation_chance``, cached: a table of many rows and turns asks for the
    same few dozen cells over and over (the chance of a d66 roll is exact and never changes)."""
    from rallypoint.rulesets.tcs.recovery import implementation_chance

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
    from rallypoint.rulesets.tcs.recovery import fo_node

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
    from rallypoint.dice import D6
    from rallypoint.rulesets.tcs.recovery import morale_points

    return {"points": _text(ChanceNode("battalion morale", D6).outcomes(morale_points))}


def platoon() -> dict[str, Any]:
    """The platoon's rolls at the shipped defaults: delays, transfers, section 8 draws."""
    from rallypoint.rulesets.platoon import dice as pd
    from rallypoint.rulesets.platoon.data import ATTRIBUTES, default_data

    rules = default_data()
    n = rules.n
    on = n("replacements", "transfer_on")
    draws = {
        a: {p: _text(pd.attribute_odds(rules.section8[a], Fraction(p), a != "age"))
            for p in ("0", "1/2", "1")}
        for a in ATTRIBUTES
    }
    return {
        "man_arrival_days": _text(pd.delay_odds(n("replacements", "man_days_base"),
                                                n("replacements", "man_days_die"))),
        "tank_arrival_days": _text(pd.delay_odds(n("replacements", "tank_days_base"),
                                                 n("replacements", "tank_days_die"))),
        "light_wound_days": _text(pd.delay_odds(n("wounds", "light_days_base"),
                                                n("wounds", "light_days_die"))),
        "transfer": fraction_text(pd.transfer_node("").probability(lambda v: v >= on)),
        "section8_by_progress": draws,
    }


def _squares_rules() -> Any:
    from rallypoint.rulesets.squares.data import default_data

    return default_data()


def _rally_text(node: ChanceNode, rules: Any) -> dict[str, str]:
    from rallypoint.rulesets.squares.rally import RallyResult, reading

    found = node.outcomes(reading(rules.thresholds))
    return {r.value: fraction_text(found[r]) for r in RallyResult if found.get(r)}


def squares_rally(modifier: int) -> dict[str, Any]:
    """A rally test, one die + ``modifier``: pass (6+), no effect, break (0 or less)."""
    from rallypoint.rulesets.squares.rally import modifier_node

    return {"modifier": modifier, **_rally_text(modifier_node(modifier), _squares_rules())}


def squares_situations(scenario: Path) -> list[dict[str, Any]]:
    """Every rally allowed in a squares battle's starting state, each modifier named."""
    from rallypoint.core.ruleset import get_ruleset
    from rallypoint.rulesets.squares.rally import opportunities

    ruleset = get_ruleset("squares")
    data = ruleset.load_scenario(scenario)
    state = ruleset.initial_state(data, ruleset.rules_data(data))
    return [{"leader": plan.leader, "unit": plan.unit, "rally": plan.kind.value,
             "modifiers": [{"name": m.name, "value": m.value} for m in plan.node.modifiers],
             "modifier": plan.node.modifier_total, **_rally_text(plan.node, state.rules)}
            for plan in opportunities(state)]
