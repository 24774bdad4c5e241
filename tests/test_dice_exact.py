"""Exact odds: icepool-backed distributions cross-checked against brute-force enumeration."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rallypoint.dice import D6, D66, TWO_D6, ChanceNode, DiceSpec, Modifier, Read, exact

K = TypeVar("K", bound=Hashable)


# --- brute force -------------------------------------------------------------------------------


def brute_force_read(spec: DiceSpec, shift: int, reading: Callable[[int], K]) -> dict[K, Fraction]:
    """Enumerate every tuple of faces (each equally likely) and count ``reading`` exactly."""
    counts: dict[K, int] = {}
    total = 0
    for rolled in itertools.product(range(1, spec.sides + 1), repeat=spec.count):
        natural = rolled[0] * 10 + rolled[1] if spec.read is Read.TENS_UNITS else sum(rolled)
        key = reading(natural + shift)
        counts[key] = counts.get(key, 0) + 1
        total += 1
    assert total == spec.sides**spec.count
    return {k: Fraction(n, total) for k, n in counts.items()}


def brute_force(spec: DiceSpec, shift: int = 0) -> dict[int, Fraction]:
    """Brute-force distribution of the modified value."""
    return brute_force_read(spec, shift, lambda v: v)


def assert_well_formed(dist: dict[K, Fraction]) -> None:
    assert dist, "a distribution is never empty"
    assert all(isinstance(p, Fraction) for p in dist.values())
    assert all(p > 0 for p in dist.values()), "zero-probability outcomes must be absent"
    assert sum(dist.values(), Fraction(0)) == 1


# --- exact.py ----------------------------------------------------------------------------------

GRID = [(1, 6), (2, 6), (3, 6), (2, 4), (1, 10), (2, 8)]


@pytest.mark.parametrize(("count", "sides"), GRID)
def test_sum_distribution_matches_brute_force(count: int, sides: int) -> None:
    dist = exact.sum_distribution(count, sides)
    assert_well_formed(dist)
    assert dist == brute_force(DiceSpec(count, sides))
    assert min(dist) == count
    assert max(dist) == count * sides
    assert list(dist) == sorted(dist)


def test_sum_distribution_keys_are_plain_ints() -> None:
    dist = exact.sum_distribution(2, 6)
    assert all(type(k) is int for k in dist)


def test_two_d6_known_values() -> None:
    dist = exact.sum_distribution(2, 6)
    assert dist[7] == Fraction(1, 6)
    assert dist[2] == dist[12] == Fraction(1, 36)
    assert 1 not in dist
    assert 13 not in dist


def test_tens_units_distribution_d66() -> None:
    dist = exact.tens_units_distribution(6)
    assert_well_formed(dist)
    expected = {t * 10 + u: Fraction(1, 36) for t in range(1, 7) for u in range(1, 7)}
    assert dist == expected
    assert len(dist) == 36
    assert min(dist) == 11
    assert max(dist) == 66
    assert all(k % 10 in range(1, 7) for k in dist)
    assert dist == brute_force(D66)


# --- DiceSpec ----------------------------------------------------------------------------------


def test_spec_distribution_follows_read() -> None:
    assert D6.distribution() == brute_force(D6)
    assert TWO_D6.distribution() == brute_force(TWO_D6)
    assert D66.distribution() == brute_force(D66)


def test_spec_labels_and_values() -> None:
    assert D6.label == "1d6"
    assert TWO_D6.label == "2d6"
    assert D66.label == "d66"
    assert D6.value([4]) == 4
    assert TWO_D6.value([3, 5]) == 8
    assert D66.value([3, 5]) == 35
    assert D66.value([5, 3]) == 53


# --- ChanceNode --------------------------------------------------------------------------------


def node(spec: DiceSpec, *mods: int) -> ChanceNode:
    return ChanceNode(
        purpose="test roll",
        dice=spec,
        modifiers=tuple(Modifier(name=f"m{i}", value=v) for i, v in enumerate(mods)),
    )


def step_table(total: int) -> str:
    """A made-up recovery table: ≤4 none, 5–6 one step, 7–8 two, 9+ three."""
    if total <= 4:
        return "0 steps"
    if total <= 6:
        return "1 step"
    if total <= 8:
        return "2 steps"
    return "3 steps"


def test_one_d6_plus_three_through_step_table() -> None:
    n = ChanceNode(
        purpose="recovery",
        dice=D6,
        modifiers=(Modifier(name="morale", value=1), Modifier(name="bn", value=2)),
    )
    assert n.modifier_total == 3
    dist = n.distribution()
    assert_well_formed(dist)
    assert dist == {v: Fraction(1, 6) for v in range(4, 10)}
    assert dist == brute_force(D6, 3)

    steps = n.outcomes(step_table)
    assert_well_formed(steps)
    assert steps == {
        "0 steps": Fraction(1, 6),
        "1 step": Fraction(1, 3),
        "2 steps": Fraction(1, 3),
        "3 steps": Fraction(1, 6),
    }
    assert steps == brute_force_read(D6, 3, step_table)
    assert n.probability(lambda v: step_table(v) == "2 steps") == Fraction(1, 3)


def test_outcomes_omit_unreachable_keys() -> None:
    # 1d6+6 never reads as "0 steps" or "1 step": those keys must be absent, not zero.
    steps = node(D6, 6).outcomes(step_table)
    assert steps == {"2 steps": Fraction(1, 3), "3 steps": Fraction(2, 3)}
    assert "0 steps" not in steps
    assert "1 step" not in steps


def test_d66_at_least_35() -> None:
    p = node(D66).probability(lambda v: v >= 35)
    assert p == Fraction(5, 9)
    assert isinstance(p, Fraction)


def test_two_d6_thresholds() -> None:
    n = node(TWO_D6)
    assert n.probability(lambda v: v >= 12) == Fraction(1, 36)
    assert n.probability(lambda v: v >= 9) == Fraction(5, 18)
    assert n.probability(lambda v: v >= 2) == 1
    assert n.probability(lambda v: v >= 13) == 0
    assert isinstance(n.probability(lambda v: v >= 13), Fraction)


def test_d6_halved_rounded_up() -> None:
    halves = node(D6).outcomes(lambda v: -(-v // 2))
    assert halves == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
    assert_well_formed(halves)


def test_negative_modifiers_shift_down() -> None:
    n = node(TWO_D6, -3, 1)
    assert n.modifier_total == -2
    assert n.distribution() == brute_force(TWO_D6, -2)
    assert min(n.distribution()) == 0
    assert n.total([1, 1]) == 0


def test_modifiers_can_cancel() -> None:
    assert node(D6, 2, -2).distribution() == D6.distribution()


# --- property ----------------------------------------------------------------------------------

specs = st.one_of(
    st.builds(
        DiceSpec,
        count=st.integers(min_value=1, max_value=3),
        sides=st.integers(min_value=2, max_value=8),
        read=st.just(Read.SUM),
    ),
    st.builds(
        DiceSpec,
        count=st.just(2),
        sides=st.integers(min_value=2, max_value=9),
        read=st.just(Read.TENS_UNITS),
    ),
)
modifier_values = st.lists(st.integers(min_value=-6, max_value=6), max_size=3)


@settings(max_examples=150, deadline=None)
@given(spec=specs, mods=modifier_values, cut=st.integers(min_value=-5, max_value=70))
def test_node_distribution_equals_brute_force(spec: DiceSpec, mods: list[int], cut: int) -> None:
    n = node(spec, *mods)
    shift = sum(mods)

    dist = n.distribution()
    assert_well_formed(dist)
    assert dist == brute_force(spec, shift)

    def parity(v: int) -> str:
        return "even" if v % 2 == 0 else "odd"

    parities = n.outcomes(parity)
    assert_well_formed(parities)
    assert parities == brute_force_read(spec, shift, parity)

    expected = sum((p for v, p in brute_force(spec, shift).items() if v >= cut), Fraction(0))
    got = n.probability(lambda v: v >= cut)
    assert isinstance(got, Fraction)
    assert got == expected


@pytest.mark.parametrize("sides", [2, 3, 6, 10, 20])
def test_one_die_without_icepool_is_icepools_distribution(sides: int) -> None:
    import icepool

    assert exact.sum_distribution(1, sides) == exact._to_fractions(icepool.d(sides))
