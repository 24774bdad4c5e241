"""The TCS simulation: vectorised kernels against the exact odds and the scalar engine.

Every statistical check uses a fixed seed, so it is deterministic; its bounds (5 standard errors,
chi-square tail below 1e-6) are wide enough that a change of numpy's streams cannot make it
flake either, while a wrong table or reading moves a frequency by tens of standard errors.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from rallypoint.core.campaign import Campaign
from rallypoint.dice import roll
from rallypoint.lab.backend import Backend
from rallypoint.lab.rollers import NumpyRoller, generator, root_sequence
from rallypoint.rulesets.tcs.data import Column, default_data
from rallypoint.rulesets.tcs.front import odds
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.front.lab_kernel import (
    RecoveryArrays,
    hours_to_fo_return,
    implementation_cells,
    recovery_steps,
    turns_to_implementation,
)
from rallypoint.rulesets.tcs.front.lab_sim import RestSpec, scenario_path, simulate_rest
from rallypoint.rulesets.tcs.recovery import recovery_node, steps_reading

COLUMNS = tuple(Column)


def within_5_se(count: int, n: int, p: Fraction) -> bool:
    """The sample share ``count/n`` lies within 5 standard errors of ``p``."""
    q = float(p)
    se = math.sqrt(q * (1 - q) / n)
    return abs(count / n - q) <= 5 * se + 1e-12


def chi_square_tail(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom ≥ x), closed forms (no scipy)."""
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= (x / 2) / i
            total += term
        return math.exp(-x / 2) * total
    term = math.sqrt(x / 2) * math.exp(-x / 2) / math.gamma(1.5)
    total = math.erfc(math.sqrt(x / 2))
    for i in range(1, (df + 1) // 2):
        total += term
        term *= (x / 2) / (i + 0.5)
    return total


def test_chi_square_tail_known_values() -> None:
    # Textbook critical values: 3.841 (df 1), 5.991 (df 2), 7.815 (df 3) at 5 %.
    for x, df in ((3.841, 1), (5.991, 2), (7.815, 3), (9.488, 4)):
        assert chi_square_tail(x, df) == pytest.approx(0.05, abs=2e-4)


def two_sample_chi_square(a: dict[int, int], b: dict[int, int]) -> tuple[float, int]:
    """Chi-square statistic and degrees of freedom for two samples over the same categories."""
    keys = sorted(set(a) | set(b))
    na, nb = sum(a.values()), sum(b.values())
    stat = 0.0
    for k in keys:
        total = a.get(k, 0) + b.get(k, 0)
        for count, n in ((a.get(k, 0), na), (b.get(k, 0), nb)):
            expected = total * n / (na + nb)
            stat += (count - expected) ** 2 / expected
    return stat, len(keys) - 1


def counts(values: np.ndarray) -> dict[int, int]:
    keys, n = np.unique(values.astype(np.int64), return_counts=True)
    return {int(k): int(c) for k, c in zip(keys, n, strict=True)}


def test_lookup_arrays_read_the_table_like_the_rules() -> None:
    rules = default_data()
    arrays = RecoveryArrays.from_rules(rules)
    totals = np.arange(-6, 30)
    for column in COLUMNS:
        expected = [steps_reading(rules, column)(int(t)) for t in totals]
        assert arrays.steps_for(totals, column).tolist() == expected
        for m in (-3, 0, 5, 12):
            lookup = arrays.face_lookup(m, column)
            assert lookup[1:].tolist() == [steps_reading(rules, column)(f + m) for f in range(1, 7)]


@pytest.mark.parametrize("modifier", [-2, 0, 3, 5, 8, 11])
def test_recovery_kernel_matches_exact_odds(modifier: int) -> None:
    n = 60_000
    gen = generator(root_sequence(1000 + modifier))
    arrays = RecoveryArrays.from_rules(default_data())
    exact = odds.tcs_recovery(modifier)["columns"]
    for column in COLUMNS:
        found = counts(recovery_steps(gen, arrays, column, modifier, n))
        want = {int(k): Fraction(p) for k, p in exact[column.value].items()}
        assert set(found) == set(want), (column, found, want)
        for steps, p in want.items():
            assert within_5_se(found[steps], n, p), (column, steps, found[steps] / n, p)


def test_per_company_modifiers_match_one_modifier() -> None:
    n = 40_000
    arrays = RecoveryArrays.from_rules(default_data())
    mixed = recovery_steps(generator(root_sequence(5)), arrays, Column.INF,
                           np.full(n, 5, dtype=np.int64), n)
    exact = odds.tcs_recovery(5)["columns"]["inf"]
    found = counts(mixed)
    for steps, p in exact.items():
        assert within_5_se(found[int(steps)], n, Fraction(p))


def test_recovery_kernel_matches_the_scalar_recovery_node(example1: Campaign) -> None:
    # 1/ErP 112th: average raw morale 1 + battalion morale 4 = +5 on the inf column.
    state = tcs_state(example1)
    node = recovery_node(state, "1/ErP112", Column.INF)
    reading = steps_reading(state.rules, Column.INF)
    assert node.modifier_total == 5
    roller = NumpyRoller(generator(root_sequence(11)))
    scalar = [reading(roll(node, roller).total) for _ in range(12_000)]
    kernel = recovery_steps(generator(root_sequence(12)), RecoveryArrays.from_rules(state.rules),
                            Column.INF, node.modifier_total, 120_000)
    a, b = counts(np.array(scalar)), counts(kernel)
    stat, df = two_sample_chi_square(a, b)
    assert chi_square_tail(stat, df) > 1e-6, (a, b, stat)
    exact = odds.tcs_recovery(5)["columns"]["inf"]
    for sample, n in ((a, 12_000), (b, 120_000)):
        assert set(sample) == {int(k) for k in exact}
        for steps, p in exact.items():
            assert within_5_se(sample[int(steps)], n, Fraction(p))


def test_implementation_kernel_matches_exact_turns() -> None:
    n, turns = 60_000, 24
    cells = implementation_cells(default_data(), row=3, per_turn=3, turns=turns)
    table = default_data().implementation
    assert cells[0] == table.needed(3, table.column(3) or 0) == 64
    found = turns_to_implementation(generator(root_sequence(7)), cells, n)
    exact = odds.tcs_implementation(3, 0, per_turn=3, horizon=turns)
    for turn, p in exact["turns"].items():
        assert within_5_se(int(np.sum(found == int(turn))), n, Fraction(p)), turn
    assert within_5_se(int(np.isnan(found).sum()), n, Fraction(exact["later"]))


def test_row_that_cannot_implement_never_does() -> None:
    cells = implementation_cells(default_data(), row=9, per_turn=3, turns=10)
    assert not cells.any()
    assert np.isnan(turns_to_implementation(generator(root_sequence(1)), cells, 100)).all()


@pytest.mark.parametrize("number", [9, 12])
def test_fo_kernel_matches_exact_hours(number: int) -> None:
    n = 50_000
    hours = hours_to_fo_return(generator(root_sequence(number)), number, n)
    exact = odds.tcs_fo(number, horizon=8)
    for hour, p in exact["hours"].items():
        assert within_5_se(int(np.sum(hours == int(hour))), n, Fraction(p)), hour
    p = float(Fraction(exact["per_hour"]))
    se = math.sqrt((1 - p) / p**2 / n)
    assert abs(hours.mean() - 1 / p) < 5 * se
    assert hours.min() >= 1 and not np.isnan(hours).any()


def test_scalar_rest_turns_match_the_exact_odds() -> None:
    # Example #1's sheet is row 3, +3 weighted turns a turn until night falls at turn 24.
    runs = 600
    result = simulate_rest(RestSpec(str(scenario_path("example1")), turns=20), runs, 3, 8,
                           Backend(workers=1))
    turns = result.metrics["turns_to_implementation"]
    exact = odds.tcs_implementation(3, 0, per_turn=3, horizon=20)
    for horizon in (3, 6, 10):
        p = sum((Fraction(exact["turns"].get(str(t), "0")) for t in range(1, horizon + 1)),
                Fraction(0))
        assert within_5_se(int(np.sum(turns <= horizon)), runs, p), horizon


def test_scalar_rest_follows_the_pairing_parameter() -> None:
    path = str(scenario_path("example1"))
    # The seed's reading (floor): 1/ErP brings back 1 of 3, 2/ErP its lone counter, 3/ErP 2 of 4.
    floor = simulate_rest(RestSpec(path), 40, 9, 4, Backend(workers=1))
    ceil = simulate_rest(RestSpec(path, parameters={"odd_pile_limit": "ceil"}), 40, 9, 4,
                         Backend(workers=1))
    assert set(floor.metrics["counters_back"]) == {4.0}
    assert set(ceil.metrics["counters_back"]) == {5.0}
    assert set(floor.metrics["very_dead"]) == set(ceil.metrics["very_dead"]) == {3.0}
    # Common random numbers: the dice, hence the turns and steps, are the same run for run.
    assert np.array_equal(floor.metrics["steps_rolled"], ceil.metrics["steps_rolled"])
    assert (floor.metrics["steps_back"] == floor.metrics["steps_rolled"]).all()
