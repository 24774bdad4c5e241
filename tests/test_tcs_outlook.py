"""The TCS outlook: the odds of a sheet's next checks, and the FO roll due this hour."""

from __future__ import annotations

from fractions import Fraction

from conftest import run
from rallypoint.core.campaign import Campaign
from rallypoint.rulesets.tcs.commands import AdvanceTurn, CheckImplementation, WriteSheet
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.outlook import fo_outlook, sheet_outlook

CENTERS = {"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21", "MG/ErP112": "8.21"}


def _d66_at_least(needed: int) -> Fraction:
    """Oracle: count the 36 tens-and-units readings by hand."""
    hits = sum(1 for t in range(1, 7) for u in range(1, 7) if 10 * t + u >= needed)
    return Fraction(hits, 36)


def _sheet(c: Campaign, **kw: object) -> Campaign:
    return run(c, WriteSheet(expected_version=c.version, sheet="rest", members=("ErP112",),
                             centers=CENTERS, size=1, attest=True, **kw))  # type: ignore[arg-type]


def test_outlook_predicts_the_weighted_turns_the_turns_add(example1: Campaign) -> None:
    # Oracle: the rules' own turn command. 40 turns cross into the night on Example #1's track.
    for kw in ({}, {"other_sheet": ("ErP112",)}, {"vehicle": True}):
        c = _sheet(example1, **kw)
        outlook = sheet_outlook(tcs_state(c), "rest", 40)
        predicted = [(k.turn, k.weighted_turns) for k in outlook.checks]
        seen = []
        for _ in range(40):
            c = run(c, AdvanceTurn(expected_version=c.version))
            seen.append((tcs_state(c).turn, tcs_state(c).sheets["rest"].weighted_turns))
        assert predicted == seen, kw


def test_example1_check_at_18_weighted_turns_needs_55(example1: Campaign) -> None:
    c = _sheet(example1)
    for _ in range(6):
        c = run(c, AdvanceTurn(expected_version=c.version))
    outlook = sheet_outlook(tcs_state(c), "rest", turns=3)
    now = outlook.checks[0]
    assert outlook.checkable_now and (now.weighted_turns, now.column, now.needed) == (18, 3, 55)
    assert now.p == _d66_at_least(55) == Fraction(2, 9) and now.by_then == now.p
    # Each later check adds its chance to what is left: 1 - Π(1 - p).
    waiting = Fraction(1)
    for check in outlook.checks:
        waiting *= 1 - _d66_at_least(check.needed) if check.needed else 1
        assert check.by_then == 1 - waiting
    # After a miss this turn, the next check is the next turn's.
    c = run(c, CheckImplementation(expected_version=c.version, sheet="rest"), (3, 5))
    after = sheet_outlook(tcs_state(c), "rest", turns=2)
    assert not after.checkable_now and after.checks[0].turn == tcs_state(c).turn + 1


def test_no_check_below_the_first_column(example1: Campaign) -> None:
    outlook = sheet_outlook(tcs_state(_sheet(example1)), "rest", turns=1)
    assert not outlook.checkable_now
    assert outlook.checks[0].weighted_turns == 3


def test_no_fo_roll_without_dead_fos(example1: Campaign) -> None:
    fo = fo_outlook(tcs_state(example1))
    assert not fo.due and fo.counters == ()
