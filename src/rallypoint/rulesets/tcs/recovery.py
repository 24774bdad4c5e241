"""The rolls of the R&R rules as chance nodes: recovery, implementation, battalion morale, FOs.

Each function returns a :class:`ChanceNode` (what is rolled, why, with which named modifiers) and
a reading (what the rules make of the total). The same node gives the odds a player sees and the
roll made in play.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from rallypoint.dice import D6, D66, TWO_D6, ChanceNode, Modifier, fraction_text
from rallypoint.rulesets.tcs.data import Column, RulesData
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import TcsState


def round_average(values: list[int], mode: str) -> int:
    """Average of whole numbers rounded per the ``morale_rounding`` parameter."""
    avg = Fraction(sum(values), len(values))
    if mode == "down":
        return math.floor(avg)
    if mode == "up":
        return math.ceil(avg)
    return math.floor(avg + Fraction(1, 2))


def counter_morale(state: TcsState, counter_id: str) -> int | None:
    """Raw morale for averaging: printed, else assumed (AT gun 3, artillery 6), else None."""
    spec = state.oob.counter_specs[counter_id]
    if spec.morale is not None:
        return spec.morale
    return state.rules.morale.assumed.get(spec.kind)


def company_modifiers(state: TcsState, company_id: str) -> tuple[Modifier, ...]:
    """Named modifiers of a company's recovery roll (seed: average raw morale + battalion morale;
    no-morale units count 0 and add the nationality modifier; scenario modifiers)."""
    oob, params = state.oob, state.rules.params
    ids = [i for i in oob.counters_of[company_id] if state.counters[i].pile is not Pile.VERY_DEAD]
    if params.morale_average_over == "living":
        living = [i for i in ids if state.counters[i].pile is Pile.MAP]
        ids = living or ids
    ids = ids or list(oob.counters_of[company_id])
    morales = [counter_morale(state, i) for i in ids]
    mods = _morale_modifiers(state, company_id, morales)
    for spec in reversed(oob.ancestors(oob.formation_of[company_id])):
        mods.extend(spec.modifiers)
    mods.extend(oob.companies[company_id].modifiers)
    return tuple(mods)


def _morale_modifiers(state: TcsState, company_id: str,
                      morales: list[int | None]) -> list[Modifier]:
    """The average raw morale, the battalion morale, and the no-morale units' modifier.

    Seed: 'adds the average raw morale of its counters plus the current battalion morale …
    Units with no morale (tanks and such) have a morale of "0" but use the following modifiers
    instead'. A company mixing both (parameter ``no_morale_mix``): ``per_counter`` counts each
    no-morale counter as 0 plus its modifier in the average; ``per_company`` counts it 0 and
    adds the whole modifier once. A company of no-morale units only reads the same either way.
    """
    oob, params = state.oob, state.rules.params
    nationality = oob.nationality_of(company_id)
    modifier = state.rules.nationality_modifier(nationality)
    mixed = None in morales and any(m is not None for m in morales)
    if mixed and params.no_morale_mix == "per_counter":
        numbers = [m if m is not None else modifier for m in morales]
        shown = ",".join(str(m) if m is not None else f"0+{modifier}" for m in morales)
        mods = [Modifier(name=f"average raw morale ({shown}; no-morale units, {nationality})",
                         value=round_average(numbers, params.morale_rounding))]
    else:
        numbers = [m if m is not None else 0 for m in morales]
        shown = ",".join(str(n) for n in numbers)
        mods = [Modifier(name=f"average raw morale ({shown})",
                         value=round_average(numbers, params.morale_rounding))]
    battalion = oob.battalion_of(company_id)
    if battalion is not None:
        mods.append(Modifier(name=f"battalion morale {oob.name(battalion)}",
                             value=state.morale[battalion]))
    if None in morales and not (mixed and params.no_morale_mix == "per_counter"):
        mods.append(Modifier(name=f"no-morale units, {nationality}", value=modifier))
    return mods


def recovery_node(state: TcsState, company_id: str, column: Column,
                  extra: tuple[Modifier, ...] = ()) -> ChanceNode:
    """One die plus the company's modifiers (and ``extra``, given at check time), read on
    ``column`` of the recovery table."""
    return ChanceNode(
        purpose=f"{state.oob.name(company_id)} recovery roll ({column.value} column)",
        dice=D6,
        modifiers=(*company_modifiers(state, company_id), *extra),
    )


def steps_reading(rules: RulesData, column: Column) -> Callable[[int], int]:
    """Modified roll → steps recovered on ``column``."""
    return lambda total: rules.recovery_table.steps(column, total)


def recovery_odds(node: ChanceNode, rules: RulesData, column: Column) -> dict[int, Fraction]:
    """Exact distribution of steps recovered."""
    return node.outcomes(steps_reading(rules, column))


def odds_text(distribution: dict[int, Fraction], unit: str) -> str:
    """``"0 steps 1/2, 1 step 1/2"``."""
    return ", ".join(
        f"{k} {unit}{'' if k == 1 else 's'} {fraction_text(p)}"
        for k, p in sorted(distribution.items())
    )


def implementation_node(sheet_id: str) -> ChanceNode:
    """Two dice read as tens and units (11–66)."""
    return ChanceNode(purpose=f"{sheet_id} implementation check (Prep. Defense line)", dice=D66)


def implementation_chance(needed: int | None) -> Fraction:
    """Chance of a d66 roll ≥ ``needed`` (0 when the cell is '–')."""
    if needed is None:
        return Fraction(0)
    return implementation_node("").probability(lambda v: v >= needed)


def morale_node(state: TcsState, formation_id: str) -> ChanceNode:
    """One die, halved and rounded up (seed Example #1: a 3 becomes 2)."""
    return ChanceNode(purpose=f"{state.oob.name(formation_id)} battalion morale recovery",
                      dice=D6)


def morale_points(total: int) -> int:
    """Points of battalion morale recovered: one die halved, rounded up (1–3)."""
    return math.ceil(total / 2)


def fo_node(counter_name: str) -> ChanceNode:
    """Two dice summed for a dead FO (seed: back on a roll ≥ the FO Recovery Number)."""
    return ChanceNode(purpose=f"{counter_name} FO recovery", dice=TWO_D6)


def fo_number(state: TcsState) -> int | None:
    """The scenario's FO Recovery Number, else the seed's guideline for its game."""
    info = state.oob.scenario.scenario
    if info.fo_recovery_number is not None:
        return info.fo_recovery_number
    return state.rules.fo_recovery_numbers.get(info.game)


def pairing_limit(dead: int, mode: str) -> int:
    """How many counters may come back from a Dead Pile of ``dead`` counters.

    Each resurrection sends one *other* counter to the Very Dead Pile, "if there are any", so a lone
    counter may come back; otherwise floor(n/2) (the author's examples) or ceil(n/2).
    """
    if dead <= 1:
        return dead
    return dead // 2 if mode == "floor" else (dead + 1) // 2


def half_pile(dead: int, mode: str) -> int:
    """'Half the units in its Dead Pile', rounded per ``half_dead_pile_rounding``."""
    return dead // 2 if mode == "down" else (dead + 1) // 2
