"""Exact odds of the rally test, checked against a brute-force enumeration written here.

Source: ../shared/seeds/003_d34c7a60f6abd116.txt, 'Rally': 'a single die is rolled, applying any
appropriate modifiers. If the result is 6 or more, then the test is passed ... If the result is 0
or less, the unit breaks'. The odds a player sees come from the same chance node as the roll.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import last_event, run
from rallypoint.core.campaign import Campaign
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.squares.commands import Rally
from rallypoint.rulesets.squares.data import RallyKind, load_data, resolve_data
from rallypoint.rulesets.squares.events import Rallied
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.rally import (
    RallyResult,
    chances,
    chances_text,
    modifier_node,
    opportunities,
    plan_rally,
)
from rallypoint.rulesets.squares.ruleset import rally_decisions
from squares_kit import (
    battle,
    unit,
)

THRESHOLDS = load_data(resolve_data({})).thresholds


def brute_force(modifier: int) -> dict[str, Fraction]:
    """Roll every face of one d6, add the modifier, read the seed's thresholds by hand."""
    counts = {"pass": 0, "no_effect": 0, "break": 0}
    for face in range(1, 7):
        total = face + modifier
        key = "pass" if total >= 6 else "break" if total <= 0 else "no_effect"
        counts[key] += 1
    return {k: Fraction(n, 6) for k, n in counts.items()}


def as_keys(odds: dict[RallyResult, Fraction]) -> dict[str, Fraction]:
    return {r.value: p for r, p in odds.items()}


@pytest.mark.parametrize(("modifier", "p_pass", "p_none", "p_break"), [
    (-6, 0, 0, 1),
    (-5, 0, Fraction(1, 6), Fraction(5, 6)),
    (-3, 0, Fraction(1, 2), Fraction(1, 2)),
    (-2, 0, Fraction(2, 3), Fraction(1, 3)),
    (-1, 0, Fraction(5, 6), Fraction(1, 6)),
    (0, Fraction(1, 6), Fraction(5, 6), 0),
    (1, Fraction(1, 3), Fraction(2, 3), 0),
    (2, Fraction(1, 2), Fraction(1, 2), 0),
    (4, Fraction(5, 6), Fraction(1, 6), 0),
    (5, 1, 0, 0),
    (9, 1, 0, 0),
])
def test_golden_odds_by_total_modifier(modifier: int, p_pass: Fraction, p_none: Fraction,
                                       p_break: Fraction) -> None:
    got = as_keys(chances(modifier_node(modifier), THRESHOLDS))
    assert got == {"pass": p_pass, "no_effect": p_none, "break": p_break}
    assert got == brute_force(modifier)


@given(st.integers(min_value=-12, max_value=12))
def test_every_total_modifier_matches_brute_force(modifier: int) -> None:
    got = as_keys(chances(modifier_node(modifier), THRESHOLDS))
    assert got == brute_force(modifier)
    assert sum(got.values()) == 1
    assert all(isinstance(p, Fraction) for p in got.values())


def test_odds_text_lists_all_three_results() -> None:
    assert chances_text(chances(modifier_node(-2), THRESHOLDS)) == \
        "pass 0, no effect 2/3, break 1/3"


def _scene() -> Campaign:
    units = [unit("t", "D4", sp=3, disordered=True), unit("f1", "D5", sp=1),
             unit("f2", "C4"), unit("e", "H8", brigade="r1")]
    return battle(units, terrain=[{"kind": "fortification", "side": "blue", "squares": ["D4"]}],
                  leaders={"cmdr": "D4"})


# disorder: +2 recovering -3 SP lost +1 both leaders +1 fortification (the enemy at H8 is seen);
# sp: -3 SP lost +1 both leaders +1 fortification -1 shaken f1 +1 steady f2.
@pytest.mark.parametrize(("kind", "total"), [("disorder", 1), ("sp", -1)])
def test_situation_odds_match_brute_force_over_the_named_modifiers(kind: str, total: int) -> None:
    c = _scene()
    plan = plan_rally(squares_state(c), "brig", "t", RallyKind(kind))
    assert plan.node.modifier_total == total
    assert as_keys(plan.odds(squares_state(c))) == brute_force(total)


def test_the_roll_records_the_odds_the_player_saw() -> None:
    c = _scene()
    shown = plan_rally(squares_state(c), "brig", "t", RallyKind.DISORDER)
    after = run(c, Rally(expected_version=c.version, leader="brig",
                         unit="t", rally=RallyKind.DISORDER), (4,))
    stored = last_event(after, Rallied).roll
    assert stored.odds == chances_text(shown.odds(squares_state(c)))
    assert [(m.name, m.value) for m in stored.modifiers] == [
        (m.name, m.value) for m in shown.node.modifiers]


def test_opportunities_list_exactly_the_allowed_rallies() -> None:
    c = _scene()
    found = {(p.leader, p.unit, p.kind.value) for p in opportunities(squares_state(c))}
    assert found == {("brig", "t", "disorder"), ("brig", "t", "sp"), ("cmdr", "t", "disorder"),
                     ("cmdr", "t", "sp"), ("brig", "f1", "sp"), ("cmdr", "f1", "sp")}


def test_policies_pick_by_odds() -> None:
    c = _scene()
    decisions = {d.subject: d for d in rally_decisions(squares_state(c))}
    assert set(decisions) == {"t", "f1"}
    ruleset = c.ruleset
    best, safest = ruleset.policies()
    command = best.decide(c.state, decisions["t"], c.version)
    assert isinstance(command, Rally)
    assert (command.leader, command.rally) == ("brig", RallyKind.DISORDER)
    safe = safest.decide(c.state, decisions["t"], c.version)
    assert isinstance(safe, Rally) and safe.rally is RallyKind.DISORDER
    c2 = c.execute(command, ScriptedRoller((5,)))
    assert last_event(c2, Rallied).result == "pass"
