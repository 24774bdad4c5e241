"""The seed's rally test: every modifier, the thresholds, the results, who may test, attachment.

Source: ../shared/seeds/003_d34c7a60f6abd116.txt ("Recovery and Rally"), sections 'Rally' and
'Modifiers'. Each test names the clause it checks. Layout used throughout: the testing unit ``t``
(blue, brigade b1) stands at D4; leaders wait at A1 (blue) and H8 (red) unless placed.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import last_event, run
from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.dice import Modifier, ScriptedRoller
from rallypoint.rulesets.squares.commands import (
    Activate,
    Disorder,
    LoseSp,
    MarkFire,
    Move,
    NextTurn,
    Rally,
    SetSight,
)
from rallypoint.rulesets.squares.data import RallyKind
from rallypoint.rulesets.squares.events import Moved, Rallied, Sight
from rallypoint.rulesets.squares.front.campaign import squares_state
from squares_kit import (
    battle,
    mods,
    snapshot,
    unit,
)

REC = "recovering from disorder"
LOST = "SP lost from starting stamina"
BOTH = "brigadier and army commander both in the square"
FORT = "friendly fortification"
UNSEEN = "no enemy visible"
SHAKEN = "shaken friendly unit(s) in same/adjacent squares"
ALONE = "no friendly unit in same/adjacent squares"
STEADY = "non-shaken friendly unit(s) in same/adjacent squares"
FAR_ENEMY = unit("e", "H8", brigade="r1")
"""An enemy in plain sight of D4 (the line D4→H8 crosses only open squares)."""


def rally(c: Any, leader: str, unit_id: str, kind: str, **kw: Any) -> Rally:
    return Rally(expected_version=c.version, leader=leader, unit=unit_id, rally=RallyKind(kind),
                 **kw)


# -- 'Recovery only': recovering from disorder +2 -----------------------------------------------


def test_disorder_recovery_plus_two_only_on_a_disorder_rally() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    assert mods(c, "brig", "t", "disorder") == {REC: 2, LOST: -2}
    assert mods(c, "brig", "t", "sp") == {LOST: -2, ALONE: -1}


# -- 'For each SP loss from testing unit's starting Stamina: -1' ---------------------------------


@pytest.mark.parametrize("lost", [0, 1, 2, 3, 4, 5])
def test_minus_one_per_sp_lost_from_starting_stamina(lost: int) -> None:
    c = battle([unit("t", "D4", sp=6 - lost, disordered=True), FAR_ENEMY])
    got = mods(c, "brig", "t", "disorder")
    assert got.get(LOST, 0) == -lost
    assert (LOST in got) == (lost > 0), "a modifier worth 0 is not listed"


def test_sp_lost_counts_from_starting_stamina_not_from_the_scenario_start() -> None:
    c = battle([unit("t", "D4", stamina=5, sp=4, disordered=True), FAR_ENEMY])
    c = run(c, LoseSp(expected_version=c.version, unit="t", sp=2))
    assert mods(c, "brig", "t", "disorder")[LOST] == -3


# -- 'If both the Brigadier and Army Commander are in the same square as testing unit: +1' -------


@pytest.mark.parametrize(
    ("leader", "placed", "expected"),
    [
        ("brig", {"cmdr": "D4"}, 1),   # the brigadier moves in; the commander is already there
        ("cmdr", {"brig": "D4"}, 1),   # the other way round
        ("brig", {"cmdr": "D5"}, 0),   # adjacent is not the same square
        ("cmdr", {"brig2": "D4"}, 0),  # another brigade's brigadier does not count
        ("brig", {}, 0),               # the commander stays at A1
    ],
)
def test_both_leaders_in_the_square(leader: str, placed: dict[str, str], expected: int) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY], leaders=placed)
    assert mods(c, leader, "t", "disorder").get(BOTH, 0) == expected


# -- 'Testing unit is in a square with friendly fortification terrain: +1' -----------------------


@pytest.mark.parametrize(
    ("terrain", "expected"),
    [
        ({"kind": "fortification", "side": "blue"}, 1),
        ({"kind": "fortification"}, 1),               # nobody's: friendly to whoever holds it
        ({"kind": "walled_farm", "side": "blue"}, 1),
        ({"kind": "fortification", "side": "red"}, 0),  # the enemy's works
        ({"kind": "woods"}, 0),
        ({"kind": "town"}, 0),
    ],
)
def test_friendly_fortification(terrain: dict[str, Any], expected: int) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY],
               terrain=[{**terrain, "squares": ["D4"]}])
    assert mods(c, "brig", "t", "disorder").get(FORT, 0) == expected


# -- 'There are no enemy units visible to testing unit: +1' --------------------------------------


@pytest.mark.parametrize(
    ("enemies", "woods", "expected"),
    [
        (["D8"], [], 0),            # open ground: seen
        (["D8"], ["D6"], 1),        # woods between
        (["D8"], ["D8"], 0),        # woods at the far end do not hide (ends never block)
        (["D8", "H4"], ["D6"], 0),  # one hidden, one seen
        (["D8", "H4"], ["D6", "F4"], 1),
        ([], [], 1),                # no enemy on the table at all
    ],
)
def test_no_enemy_visible(enemies: list[str], woods: list[str], expected: int) -> None:
    units = [unit("t", "D4", sp=4, disordered=True)]
    units += [unit(f"e{n}", sq, brigade="r1") for n, sq in enumerate(enemies)]
    c = battle(units, terrain=[{"kind": "woods", "squares": woods}] if woods else [])
    assert mods(c, "brig", "t", "disorder").get(UNSEEN, 0) == expected


def test_player_overrides_enemy_visible_per_test() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("e", "D8", brigade="r1")],
               terrain=[{"kind": "woods", "squares": ["D6"]}])
    assert mods(c, "brig", "t", "disorder")[UNSEEN] == 1
    assert UNSEEN not in mods(c, "brig", "t", "disorder", enemy_visible=True)
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("e", "D8", brigade="r1")])
    assert UNSEEN not in mods(c, "brig", "t", "disorder")
    after = run(c, rally(c, "brig", "t", "disorder", enemy_visible=False), (1,))
    rallied = last_event(after, Rallied)
    assert Modifier(name="no enemy visible (player's ruling)", value=1) in rallied.roll.modifiers
    assert rallied.enemy_visible == Sight(computed=True, ruling=False, seen=("e",))


def test_a_sight_ruling_between_squares_counts_until_removed() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("e", "D8", brigade="r1")])
    c = run(c, SetSight(expected_version=c.version, a="D8", b="D4", ruling="blocked"))
    assert mods(c, "brig", "t", "disorder")[UNSEEN] == 1
    c = run(c, SetSight(expected_version=c.version, a="D4", b="D8", ruling="auto"))
    assert UNSEEN not in mods(c, "brig", "t", "disorder")


# -- 'For attempts to Rally SP only': the friends around the testing unit ------------------------


@pytest.mark.parametrize(
    ("friends", "expected"),
    [
        ([], {ALONE: -1}),
        ([("D5", 6)], {STEADY: 1}),
        ([("D4", 6)], {STEADY: 1}),                       # same square
        ([("E5", 1)], {SHAKEN: -1}),                      # a shaken friend is still a friend
        ([("D6", 6)], {ALONE: -1}),                       # two squares away
        ([("C3", 1), ("E3", 1), ("C5", 4), ("E5", 2)], {SHAKEN: -2, STEADY: 2}),
        ([("C3", 6), ("C4", 6), ("C5", 6), ("D5", 6)], {STEADY: 3}),   # at most +3
        ([("C3", 6), ("C4", 6), ("C5", 6), ("D5", 6), ("E5", 1)], {SHAKEN: -1, STEADY: 3}),
    ],
)
def test_sp_rally_friends(friends: list[tuple[str, int]], expected: dict[str, int]) -> None:
    units = [unit("t", "D4", sp=4), FAR_ENEMY]
    units += [unit(f"f{n}", sq, brigade="b2", sp=sp) for n, (sq, sp) in enumerate(friends)]
    c = battle(units)
    got = mods(c, "brig", "t", "sp")
    assert got == {LOST: -2, **expected}
    assert set(got) & {SHAKEN, ALONE, STEADY} == set(expected)


def test_the_cap_is_named_and_friends_are_listed() -> None:
    units = [unit("t", "D4", sp=4), FAR_ENEMY]
    units += [unit(f"f{n}", sq) for n, sq in enumerate(["C3", "C4", "C5", "D5"])]
    c = battle(units)
    from rallypoint.rulesets.squares.rally import plan_rally

    plan = plan_rally(squares_state(c), "brig", "t", RallyKind.SP)
    steady = next(m for m in plan.node.modifiers if m.name.startswith(STEADY))
    assert steady.name == f"{STEADY} (F0, F1, F2, F3; at most +3)"


def test_friends_out_of_play_do_not_count() -> None:
    c = battle([unit("t", "D4", sp=4), unit("f", "D5", sp=1), FAR_ENEMY])
    assert mods(c, "brig", "t", "sp") == {LOST: -2, SHAKEN: -1}
    c = run(c, LoseSp(expected_version=c.version, unit="f", sp=1))
    assert mods(c, "brig", "t", "sp") == {LOST: -2, ALONE: -1}


def test_friend_modifiers_do_not_apply_to_a_disorder_rally() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("f", "D5", sp=1), FAR_ENEMY])
    assert mods(c, "brig", "t", "disorder") == {REC: 2, LOST: -2}


# -- 'If the result is 6 or more ... passed'; '0 or less, the unit breaks' -----------------------


@pytest.mark.parametrize(("die", "result"), [(1, "no_effect"), (5, "no_effect"), (6, "pass")])
def test_disorder_rally_total_zero_modifier(die: int, result: str) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])   # +2 -2 = 0
    after = run(c, rally(c, "brig", "t", "disorder"), (die,))
    rallied = last_event(after, Rallied)
    assert rallied.result == result
    assert rallied.roll.total == die
    assert squares_state(after).units["t"].disordered is (result != "pass")
    assert squares_state(after).units["t"].sp == 4, "a disorder rally never changes SP"


@pytest.mark.parametrize(("die", "result"), [(4, "break"), (5, "no_effect"), (6, "no_effect")])
def test_sp_rally_breaks_at_zero_or_less(die: int, result: str) -> None:
    c = battle([unit("t", "D4", sp=3), FAR_ENEMY])   # -3 lost -1 alone = -4
    after = run(c, rally(c, "brig", "t", "sp"), (die,))
    assert last_event(after, Rallied).result == result
    assert last_event(after, Rallied).roll.total == die - 4
    broken = result == "break"
    assert squares_state(after).units["t"].in_play is not broken
    assert squares_state(after).units["t"].status.value == ("broken" if broken else "in_play")


def _supported(sp: int, disordered: bool = False, **kw: Any) -> Any:
    # Three steady friends (+3) and no enemy on the table (+1): an SP rally at sp 4 is +2.
    units = [unit("t", "D4", sp=sp, disordered=disordered)]
    units += [unit(f"f{n}", sq) for n, sq in enumerate(["C3", "C4", "C5"])]
    return battle(units, **kw)


@pytest.mark.parametrize(("gain", "sp_after"), [(1, 5), (2, 6), ("all", 6)])
def test_passed_sp_rally_gives_back_the_parameter(gain: Any, sp_after: int) -> None:
    c = _supported(4, parameters={"sp_rally_gain": gain})
    after = run(c, rally(c, "brig", "t", "sp"), (4,))
    assert last_event(after, Rallied).result == "pass"
    assert squares_state(after).units["t"].sp == sp_after


def test_sp_regain_never_exceeds_starting_stamina() -> None:
    c = _supported(5, disordered=True,
                   parameters={"sp_rally_gain": 2, "rally_eligibility": "either"})
    after = run(c, rally(c, "brig", "t", "sp"), (6,))
    assert last_event(after, Rallied).result == "pass"
    assert squares_state(after).units["t"].sp == 6, "5 + 2 is capped at the starting stamina 6"
    assert squares_state(after).units["t"].disordered, "an SP rally leaves disorder alone"


def test_the_roll_is_stored_with_named_modifiers_and_exact_odds() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    after = run(c, rally(c, "brig", "t", "disorder"), (6,))
    roll = last_event(after, Rallied).roll
    assert roll.purpose == "brig rallies T (disorder)"
    assert roll.dice == "1d6" and roll.faces == (6,)
    assert roll.odds == "pass 1/6, no effect 5/6, break 0"
    assert roll.outcome == "pass"
    assert [m.value for m in roll.modifiers] == [2, -2]


# -- who may test ---------------------------------------------------------------------------------


def _refused(c: Any, command: Rally, needle: str) -> None:
    before = snapshot(c)
    # No dice at all: an attempt to roll would fail differently, so this proves nothing is rolled.
    with pytest.raises(IllegalNowError) as caught:
        c.execute(command, ScriptedRoller(()))
    assert needle in str(caught.value)
    assert snapshot(c) == before


@pytest.mark.parametrize(("enemy", "adjacency", "allowed"), [
    ("E5", "eight", False), ("D5", "eight", False), ("D4", "eight", False),
    ("E5", "four", True), ("D5", "four", False), ("D6", "eight", True), ("F6", "eight", True),
])
def test_no_rally_with_an_enemy_adjacent(enemy: str, adjacency: str, allowed: bool) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("e", enemy, brigade="r1")],
               parameters={"adjacency": adjacency})
    command = rally(c, "brig", "t", "disorder")
    if allowed:
        run(c, command, (3,))
    else:
        _refused(c, command, "enemy adjacent: E (e)")


@pytest.mark.parametrize(("sp", "disordered", "kind", "needle"), [
    (5, False, "sp", "it has lost 1 SP (an SP rally needs 2 or more)"),
    (6, False, "disorder", "it is not disordered"),
    (4, False, "disorder", "it is not disordered"),
    (5, True, "sp", "it has lost 1 SP"),
])
def test_rally_needs_two_sp_lost_or_disorder(sp: int, disordered: bool, kind: str,
                                             needle: str) -> None:
    c = battle([unit("t", "D4", sp=sp, disordered=disordered), FAR_ENEMY])
    _refused(c, rally(c, "brig", "t", kind), needle)


def test_either_reading_lets_a_disordered_unit_rally_for_one_lost_sp() -> None:
    c = battle([unit("t", "D4", sp=5, disordered=True), FAR_ENEMY],
               parameters={"rally_eligibility": "either"})
    run(c, rally(c, "brig", "t", "sp"), (1,))
    c = battle([unit("t", "D4", sp=6, disordered=True), FAR_ENEMY],
               parameters={"rally_eligibility": "either"})
    _refused(c, rally(c, "brig", "t", "sp"), "it has lost no SP")
    c = battle([unit("t", "D4", sp=5), FAR_ENEMY], parameters={"rally_eligibility": "either"})
    _refused(c, rally(c, "brig", "t", "sp"), "has lost 1 SP and is not disordered")


@pytest.mark.parametrize(("leader", "allowed"), [
    ("brig", True), ("cmdr", True), ("brig2", False), ("rbrig", False), ("rcmdr", False),
])
def test_leader_must_be_its_brigadier_or_army_commander(leader: str, allowed: bool) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    if allowed:
        run(c, rally(c, leader, "t", "disorder"), (2,))
    else:
        _refused(c, rally(c, leader, "t", "disorder"),
                 "is neither its brigadier (brig) nor its army commander")


def test_every_reason_is_listed() -> None:
    c = battle([unit("t", "D4", sp=6), unit("e", "D5", brigade="r1")])
    _refused(c, rally(c, "brig2", "t", "disorder"),
             "is neither its brigadier (brig) nor its army commander (cmdr); it is "
             "not disordered; enemy adjacent: E (e)")


def test_a_leader_rallies_once_per_turn() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("u", "F2", sp=4, disordered=True),
                FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (1,))
    _refused(c, rally(c, "brig", "u", "disorder"), "has already activated this turn")
    c = run(c, NextTurn(expected_version=c.version))
    run(c, rally(c, "brig", "u", "disorder"), (1,))
    free = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY],
                  parameters={"once_per_turn": False})
    free = run(free, rally(free, "brig", "t", "disorder"), (1,))
    run(free, rally(free, "brig", "t", "disorder"), (1,))


def test_unknown_ids_are_refused() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    with pytest.raises(UnknownIdError, match="no leader 'nobody'"):
        c.decide(rally(c, "nobody", "t", "disorder"), ScriptedRoller(()))
    with pytest.raises(UnknownIdError, match="no unit 'brig' in this battle \\(that is a leader"):
        c.decide(rally(c, "brig", "brig", "disorder"), ScriptedRoller(()))


# -- 'the unit breaks and is removed from play' ---------------------------------------------------


def test_a_broken_unit_never_acts_again() -> None:
    c = battle([unit("t", "D4", sp=3, disordered=True), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "sp"), (4,))
    assert last_event(c, Rallied).result == "break"
    v = c.version
    for command in [
        Move(expected_version=v, who="t", square="D5"),
        MarkFire(expected_version=v, unit="t"),
        LoseSp(expected_version=v, unit="t"),
        Disorder(expected_version=v, unit="t"),
        Activate(expected_version=v, who="t"),
        Rally(expected_version=v, leader="cmdr", unit="t", rally=RallyKind.DISORDER),
    ]:
        with pytest.raises(IllegalNowError, match="is broken and out of play"):
            c.decide(command, ScriptedRoller(()))


# -- 'the leader figure is moved to the same square ... temporarily attached' --------------------


def test_the_leader_moves_into_the_square_and_attaches() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (2,))
    assert squares_state(c).leaders["brig"].square == "D4"
    assert squares_state(c).leaders["brig"].attached == "t"
    assert last_event(c, Rallied).from_ == "A1"


def test_an_attached_leader_goes_with_its_unit_and_cannot_move_alone() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (2,))
    c = run(c, Move(expected_version=c.version, who="t", square="C4"))
    assert squares_state(c).leaders["brig"].square == "C4"
    assert last_event(c, Moved).carried == ("brig",)
    with pytest.raises(IllegalNowError, match="attached to T until either of them activates"):
        c.decide(Move(expected_version=c.version, who="brig", square="C5"),
                 ScriptedRoller(()))


@pytest.mark.parametrize("who", ["t", "brig"])
def test_attachment_ends_when_either_activates_next(who: str) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (2,))
    c = run(c, NextTurn(expected_version=c.version))
    c = run(c, Activate(expected_version=c.version, who=who))
    assert squares_state(c).leaders["brig"].attached is None
    assert squares_state(c).leaders["brig"].square == "D4", "detaching does not move the leader"


def test_attachment_survives_other_activations_and_turns() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("u", "F2"), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (2,))
    c = run(c, Activate(expected_version=c.version, who="u"))
    c = run(c, NextTurn(expected_version=c.version))
    assert squares_state(c).leaders["brig"].attached == "t"


def test_a_leader_rallying_another_unit_leaves_the_first() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("u", "F2", sp=4, disordered=True),
                FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (2,))
    c = run(c, NextTurn(expected_version=c.version))
    c = run(c, rally(c, "brig", "u", "disorder"), (2,))
    assert squares_state(c).leaders["brig"].attached == "u"
    assert last_event(c, Rallied).detached_from == "t"


def test_a_broken_or_destroyed_unit_releases_its_leaders() -> None:
    c = battle([unit("t", "D4", sp=3, disordered=True), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (2,))   # +2 -3 = -1: 2 → 1, no effect
    c = run(c, rally(c, "cmdr", "t", "sp"), (5,))         # -3 -1 +1 both = -3: 5 → 2
    assert sorted(squares_state(c).attached_to("t")) == ["brig", "cmdr"]
    broken = run(c, LoseSp(expected_version=c.version, unit="t", sp=3))
    assert squares_state(broken).attached_to("t") == []
    assert squares_state(broken).leaders["cmdr"].square == "D4"


# -- 'A Rally may not be attempted if any enemy is adjacent': an enemy leader figure -------------


@pytest.mark.parametrize(("where", "blocks", "allowed"), [
    ("D5", True, False), ("D4", True, False), ("D6", True, True), ("D5", False, True),
])
def test_an_enemy_leader_adjacent_blocks_a_rally_by_the_parameter(where: str, blocks: bool,
                                                                  allowed: bool) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY],
               leaders={"rbrig": where}, parameters={"enemy_leaders_block_rally": blocks})
    command = rally(c, "brig", "t", "disorder")
    if allowed:
        run(c, command, (3,))
    else:
        _refused(c, command, "enemy adjacent: rbrig")


def test_an_enemy_leader_does_not_stop_automatic_recovery() -> None:
    # The recovery clause says 'no enemy units in an adjacent square': figures are not units.
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY], leaders={"rbrig": "D5"})
    c = run(c, Activate(expected_version=c.version, who="t"))
    assert squares_state(c).units["t"].disordered is False


# -- behaviours the audit found unpinned ----------------------------------------------------------


def test_an_sp_rally_is_refused_with_an_enemy_adjacent() -> None:
    c = battle([unit("t", "D4", sp=3), unit("e", "E5", brigade="r1")])
    _refused(c, rally(c, "brig", "t", "sp"), "enemy adjacent: E (e)")


def test_another_brigades_brigadier_is_refused_for_an_sp_rally() -> None:
    c = battle([unit("t", "D4", sp=3), FAR_ENEMY])
    _refused(c, rally(c, "brig2", "t", "sp"),
             "brig2 is neither its brigadier (brig) nor its army commander (cmdr)")


@pytest.mark.parametrize(("die", "result"), [(1, "break"), (2, "break"), (3, "no_effect")])
def test_a_disorder_rally_can_break(die: int, result: str) -> None:
    c = battle([unit("t", "D4", sp=2, disordered=True), FAR_ENEMY])   # +2 -4 = -2
    after = run(c, rally(c, "brig", "t", "disorder"), (die,))
    assert last_event(after, Rallied).result == result
    assert squares_state(after).units["t"].in_play is (result != "break")


def test_the_leader_stays_in_the_square_after_a_break() -> None:
    c = battle([unit("t", "D4", sp=2, disordered=True), FAR_ENEMY])
    after = run(c, rally(c, "brig", "t", "disorder"), (1,))
    assert squares_state(after).units["t"].status.value == "broken"
    assert squares_state(after).leaders["brig"].square == "D4"
    assert squares_state(after).leaders["brig"].attached is None


def test_attachment_ends_when_the_unit_activates_still_disordered() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "disorder"), (2,))       # no effect: still disordered
    c = run(c, NextTurn(expected_version=c.version))
    c = run(c, MarkFire(expected_version=c.version, unit="t"))
    c = run(c, Activate(expected_version=c.version, who="t"))  # under fire: no recovery
    assert squares_state(c).units["t"].disordered is True
    assert squares_state(c).leaders["brig"].attached is None


def test_attachment_ends_when_a_never_disordered_unit_activates() -> None:
    c = battle([unit("t", "D4", sp=3), FAR_ENEMY])
    c = run(c, rally(c, "brig", "t", "sp"), (5,))              # -3 -1 = -4: 5 → 1, no effect
    assert squares_state(c).leaders["brig"].attached == "t"
    c = run(c, NextTurn(expected_version=c.version))
    c = run(c, Activate(expected_version=c.version, who="t"))
    assert squares_state(c).leaders["brig"].attached is None
    assert squares_state(c).leaders["brig"].square == "D4"


def test_broken_units_are_no_longer_adjacent_or_visible() -> None:
    units = [unit("t", "D4", sp=4, disordered=True),
             unit("e", "D5", brigade="r1", sp=2, disordered=True)]
    # rbrig ends beside t after rallying e; only the unit is in question here.
    c = battle(units, parameters={"enemy_leaders_block_rally": False})
    state = squares_state(c)
    assert state.enemies_adjacent("t") == ["e"] and state.enemies_seen("t") == ["e"]
    c = run(c, LoseSp(expected_version=c.version, unit="e", sp=1))
    # Red's own rally is refused while t is adjacent: move t away, break e, come back.
    c = run(c, Move(expected_version=c.version, who="t", square="B2"))
    c = run(c, rally(c, "rbrig", "e", "disorder"), (1,))     # +2 -5 = -3: 1 → break
    assert squares_state(c).units["e"].status.value == "broken"
    c = run(c, Move(expected_version=c.version, who="t", square="D4"))
    assert squares_state(c).enemies_adjacent("t") == [] and squares_state(c).enemies_seen("t") == []
    assert mods(c, "brig", "t", "disorder")[UNSEEN] == 1


def test_the_shaken_penalty_has_no_cap() -> None:
    units = [unit("t", "D4", sp=4), FAR_ENEMY]
    units += [unit(f"f{n}", sq, brigade="b2", sp=1) for n, sq in enumerate(["C3", "C4", "C5",
                                                                            "D5", "E5"])]
    assert mods(battle(units), "brig", "t", "sp") == {LOST: -2, SHAKEN: -5}


# -- Readings the rules always took, with their switches (docs/rules/squares.md "Readings") ----


def _old_data_reads(name: str) -> object:
    """The value a campaign stored before parameter ``name`` existed plays by."""
    from rallypoint.rulesets.squares.data import load_data, resolve_data

    raw = resolve_data({})
    del raw["parameters"][name]
    return getattr(load_data(raw).params, name)


def test_unowned_fortification_is_friendly_by_the_parameter() -> None:
    units = [unit("t", "D4", sp=4, disordered=True), FAR_ENEMY]
    works = [{"kind": "fortification", "squares": ["D4"]}]
    assert mods(battle(units, terrain=works), "brig", "t", "disorder").get(FORT) == 1
    c = battle(units, terrain=works, parameters={"unowned_fortification_friendly": False})
    assert FORT not in mods(c, "brig", "t", "disorder")
    assert _old_data_reads("unowned_fortification_friendly") is True


def test_a_shaken_friend_is_a_friend_by_the_parameter() -> None:
    units = [unit("t", "D4", sp=4), unit("f", "E5", brigade="b2", sp=1), FAR_ENEMY]
    assert mods(battle(units), "brig", "t", "sp") == {LOST: -2, SHAKEN: -1}
    c = battle(units, parameters={"shaken_friends_are_friends": False})
    assert mods(c, "brig", "t", "sp") == {LOST: -2, SHAKEN: -1, ALONE: -1}
    assert _old_data_reads("shaken_friends_are_friends") is True


def test_a_passed_sp_rally_leaves_disorder_by_the_parameter() -> None:
    for clears in (False, True):
        c = _supported(4, disordered=True, parameters={
            "rally_eligibility": "either", "sp_rally_clears_disorder": clears})
        after = run(c, rally(c, "brig", "t", "sp"), (6,))
        assert last_event(after, Rallied).result == "pass"
        assert squares_state(after).units["t"].sp == 5
        assert squares_state(after).units["t"].disordered is not clears
    assert _old_data_reads("sp_rally_clears_disorder") is False
