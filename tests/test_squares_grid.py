"""The grid: square names, adjacency (the ``adjacency`` parameter) and line of sight.

Line of sight is the issue's 'Enemy visible to the testing unit ... computed from line of sight on
the grid (blocking terrain as data) and can be overridden by the player'. The seed itself only says
'There are no enemy units visible to testing unit: +1'.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import last_event, run
from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.squares.commands import Move, SetSight
from rallypoint.rulesets.squares.events import SightSet
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.grid import (
    SightLine,
    Square,
    adjacent,
    near,
    sight_blocker,
    squares_between,
)
from squares_kit import (
    battle,
    unit,
)

S = Square.parse


def test_square_names_round_trip() -> None:
    assert S("c4") == Square(3, 4) and str(Square(3, 4)) == "C4"
    assert str(S(" H12 ")) == "H12"
    for bad in ["", "4C", "C0", "CC4", "C-1", "C123"]:
        with pytest.raises(MalformedInputError, match="is not a square"):
            S(bad)


def test_off_grid_squares_are_refused() -> None:
    c = battle([unit("t", "D4")], columns=6, rows=5, leaders={"rbrig": "F5", "rcmdr": "F5"})
    with pytest.raises(IllegalNowError, match="square 'G1' is off the 6x5 grid"):
        c.decide(Move(expected_version=c.version, who="t", square="G1"), ScriptedRoller(()))


@pytest.mark.parametrize(("b", "eight", "four"), [
    ("D5", True, True), ("E4", True, True), ("E5", True, False), ("C3", True, False),
    ("D6", False, False), ("F5", False, False), ("D4", False, False),
])
def test_adjacency_parameter(b: str, eight: bool, four: bool) -> None:
    assert adjacent(S("D4"), S(b), "eight") is eight
    assert adjacent(S("D4"), S(b), "four") is four
    assert near(S("D4"), S(b), "eight") is (eight or b == "D4")


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("A1", "A2", []),                                  # adjacent: nothing between
    ("A1", "A4", [["A2"], ["A3"]]),
    ("A1", "D4", [["A2", "B1"], ["B2"], ["B3", "C2"], ["C3"], ["C4", "D3"]]),  # corners graze
    ("A1", "D2", [["B1"], ["B2", "C1"], ["C2"]]),      # through the corner of B2 and C1
    ("A1", "C2", [["B1"], ["B2"]]),                    # through the middle of B's edge: both
    ("C2", "G4", [["D2"], ["D3"], ["E3"], ["F3"], ["F4"]]),
    ("A1", "E2", [["B1"], ["C1"], ["C2"], ["D2"]]),    # crosses C1 and C2: either blocks
])
def test_squares_between(a: str, b: str, expected: list[list[str]]) -> None:
    got = squares_between(S(a), S(b))
    assert [[str(s) for s in step] for step in got] == expected


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("A1", "D4", [["B2"], ["C3"]]),                    # an exact diagonal
    ("A1", "D2", [["B1"], ["C2"]]),                    # 1/3 and 2/3 of a row
    ("A1", "C2", [["B1", "B2"]]),                      # exactly between two squares: grazes both
    ("C2", "G4", [["D2", "D3"], ["E3"], ["F3", "F4"]]),
    ("A1", "E2", [["B1"], ["C1", "C2"], ["D2"]]),
])
def test_bresenham_steps_are_the_switch(a: str, b: str, expected: list[list[str]]) -> None:
    got = squares_between(S(a), S(b), SightLine.BRESENHAM)
    assert [[str(s) for s in step] for step in got] == expected


def _crosses_inside(a: Square, b: Square, s: Square) -> bool:
    """Oracle: does the open segment between the centres of a and b enter the open square s?

    Clips the segment's parameter t to the slab |x − s.col| < 1/2, then |y − s.row| < 1/2
    (Liang–Barsky), in exact fractions; a non-empty open interval means it passes inside.
    """
    lo, hi = Fraction(0), Fraction(1)
    for start, delta, centre in ((a.col, b.col - a.col, s.col), (a.row, b.row - a.row, s.row)):
        if delta == 0:
            if abs(start - centre) >= Fraction(1, 2):
                return False
            continue
        t1 = (centre - Fraction(1, 2) - start) / Fraction(delta)
        t2 = (centre + Fraction(1, 2) - start) / Fraction(delta)
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    return lo < hi


def test_supercover_is_exactly_the_squares_the_line_passes_through() -> None:
    # Every pair of squares on an 8x8 board, against an independent geometric oracle: the single
    # steps are exactly the squares the line enters; a grazing step only touches a corner.
    board = [Square(c, r) for c in range(1, 9) for r in range(1, 9)]
    bresenham_misses = 0
    for a, b in combinations(board, 2):
        steps = squares_between(a, b)
        inside = {s for s in board if s not in (a, b) and _crosses_inside(a, b, s)}
        assert {step[0] for step in steps if len(step) == 1} == inside, (a, b)
        assert all(not _crosses_inside(a, b, s) for step in steps if len(step) == 2
                   for s in step)
        # The count: with one blocker, Bresenham reads clear a line that crosses it.
        bresenham_misses += sum(
            sight_blocker(a, b, {s}.__contains__, SightLine.BRESENHAM) is None for s in inside)
    assert bresenham_misses == 2832


def test_the_line_of_sight_parameter() -> None:
    woods = [{"kind": "woods", "squares": ["C1"]}]
    exact = battle([unit("t", "A1")], terrain=woods)
    assert squares_state(exact).sees(S("A1"), S("E2")) == (False, "blocked at C1 (woods)")
    old = battle([unit("t", "A1")], terrain=woods, parameters={"line_of_sight": "bresenham"})
    assert squares_state(old).sees(S("A1"), S("E2")) == (True, "clear")


def test_a_campaign_stored_without_the_parameter_keeps_bresenham() -> None:
    from rallypoint.rulesets.squares.data import load_data, resolve_data

    raw = resolve_data({})
    del raw["parameters"]["line_of_sight"]
    assert load_data(raw).params.line_of_sight is SightLine.BRESENHAM
    assert load_data(resolve_data({})).params.line_of_sight is SightLine.SUPERCOVER


coords = st.builds(Square, st.integers(1, 12), st.integers(1, 12))


@given(coords, coords)
def test_sight_is_the_same_from_either_end(a: Square, b: Square) -> None:
    forward = [set(step) for step in squares_between(a, b)]
    backward = [set(step) for step in reversed(squares_between(b, a))]
    assert forward == backward
    assert all(a not in step and b not in step for step in forward)


def test_a_grazing_line_is_blocked_only_when_both_squares_block() -> None:
    # A1→C3 passes exactly through the corner of A2 and B1 (and of B3 and C2).
    one = {S("B1")}
    both = {S("B1"), S("A2")}
    assert sight_blocker(S("A1"), S("C3"), lambda s: s in one) is None
    assert sight_blocker(S("A1"), S("C3"), lambda s: s in both) == S("A2")
    old_one = {S("B1")}
    assert sight_blocker(S("A1"), S("C2"), lambda s: s in old_one, SightLine.BRESENHAM) is None


def test_terrain_blocks_only_between_the_ends() -> None:
    c = battle([unit("t", "D4")], terrain=[{"kind": "woods", "squares": ["D4", "D6", "D8"]}])
    assert squares_state(c).sees(S("D4"), S("D5")) == (True, "clear")
    assert squares_state(c).sees(S("D4"), S("D8")) == (False, "blocked at D6 (woods)")
    assert squares_state(c).sees(S("D6"), S("D7")) == (True, "clear"), "ends never block"


def test_open_and_fortification_do_not_block_but_a_walled_farm_does() -> None:
    c = battle([unit("t", "A1")], terrain=[{"kind": "fortification", "squares": ["A2"]},
                                           {"kind": "walled_farm", "squares": ["B2"]}])
    assert squares_state(c).sees(S("A1"), S("A3"))[0]
    assert not squares_state(c).sees(S("A1"), S("C3"))[0]


def test_scenario_terrain_kinds_are_data() -> None:
    c = battle([unit("t", "A1")], terrain=[{"kind": "cornfield", "squares": ["A2"]}],
               terrain_kinds={"cornfield": {"blocks_sight": True}})
    assert squares_state(c).sees(S("A1"), S("A3")) == (False, "blocked at A2 (cornfield)")


def test_units_block_sight_only_with_the_parameter() -> None:
    units = [unit("t", "A1"), unit("u", "A2")]
    assert squares_state(battle(units)).sees(S("A1"), S("A3"))[0]
    blocked = battle(units, parameters={"units_block_sight": True})
    assert squares_state(blocked).sees(S("A1"), S("A3")) == (False, "blocked at A2 (units)")


def test_player_ruling_overrides_and_auto_removes_it() -> None:
    c = battle([unit("t", "D4")], terrain=[{"kind": "woods", "squares": ["D6"]}])
    c = run(c, SetSight(expected_version=c.version, a="D8", b="D4", ruling="clear"))
    assert squares_state(c).sees(S("D4"), S("D8")) == (True, "player's ruling")
    assert squares_state(c).sight == {"D4|D8": True}
    assert last_event(c, SightSet).computed is False
    c = run(c, SetSight(expected_version=c.version, a="D4", b="D8", ruling="auto"))
    assert squares_state(c).sees(S("D4"), S("D8")) == (False, "blocked at D6 (woods)")
    with pytest.raises(IllegalNowError, match="no ruling on sight between D4 and D8"):
        c.decide(SetSight(expected_version=c.version, a="D4", b="D8", ruling="auto"),
                 ScriptedRoller(()))
    with pytest.raises(IllegalNowError, match="the same square"):
        c.decide(SetSight(expected_version=c.version, a="D4", b="d4", ruling="clear"),
                 ScriptedRoller(()))
