"""Automatic recovery from disorder on activation, and the move it forbids.

Source: ../shared/seeds/003_d34c7a60f6abd116.txt, 'Recovery': a disordered unit recovers on its
next activation when no enemy is in an adjacent square, it was not the target of bombardment or
ranged fire in the same turn, and it has more than 1 SP; it may then fire but not move during that
activation. 'A unit at 1SP (and therefore Shaken)' never recovers automatically.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import last_event, run
from rallypoint.core.errors import IllegalNowError
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.squares.commands import Activate, Disorder, MarkFire, Move, NextTurn
from rallypoint.rulesets.squares.events import Activated, RecoveryConditions
from rallypoint.rulesets.squares.front.campaign import squares_state
from squares_kit import (
    battle,
    snapshot,
    unit,
)

FAR_ENEMY = unit("e", "H8", brigade="r1")


def activate(c: Any, who: str) -> Any:
    return run(c, Activate(expected_version=c.version, who=who))


def test_all_three_conditions_met_recovers() -> None:
    c = activate(battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY]), "t")
    activated = last_event(c, Activated)
    assert activated.recovered is True
    assert activated.recovery == RecoveryConditions(
        no_enemy_adjacent=True, adjacent_enemies=(), not_under_fire=True, under_fire=(),
        enough_sp=True, sp=4, needs_more_than=1)
    assert not c.state.units["t"].disordered
    assert c.state.units["t"].sp == 4
    assert c.state.activation is not None and c.state.activation.recovered


@pytest.mark.parametrize("enemy", ["C3", "D5", "E5", "D4"])
def test_enemy_adjacent_prevents_recovery(enemy: str) -> None:
    c = activate(battle([unit("t", "D4", sp=4, disordered=True),
                         unit("e", enemy, brigade="r1")]), "t")
    activated = last_event(c, Activated)
    assert activated.recovered is False
    assert activated.recovery is not None and activated.recovery.adjacent_enemies == ("e",)
    assert c.state.units["t"].disordered


def test_four_square_adjacency_ignores_a_diagonal_enemy() -> None:
    c = activate(battle([unit("t", "D4", sp=4, disordered=True), unit("e", "E5", brigade="r1")],
                        parameters={"adjacency": "four"}), "t")
    assert last_event(c, Activated).recovered is True


@pytest.mark.parametrize("kind", ["ranged", "bombardment"])
def test_fired_upon_this_turn_prevents_recovery_until_next_turn(kind: str) -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), FAR_ENEMY])
    c = run(c, MarkFire.model_validate({"expected_version": c.version, "unit": "t", "fire": kind}))
    c = activate(c, "t")
    recovery = last_event(c, Activated).recovery
    assert recovery is not None and recovery.under_fire == (kind,)
    assert c.state.units["t"].disordered
    c = run(c, NextTurn(expected_version=c.version))
    assert squares_state(c).under_fire == {}
    c = activate(c, "t")
    assert not c.state.units["t"].disordered


def test_fire_on_another_unit_does_not_count() -> None:
    c = battle([unit("t", "D4", sp=4, disordered=True), unit("u", "F2"), FAR_ENEMY])
    c = run(c, MarkFire(expected_version=c.version, unit="u"))
    assert not activate(c, "t").state.units["t"].disordered


@pytest.mark.parametrize(("sp", "recovers"), [(1, False), (2, True), (6, True)])
def test_more_than_one_sp_needed(sp: int, recovers: bool) -> None:
    c = battle([unit("t", "D4", sp=sp, disordered=True), FAR_ENEMY])
    for _ in range(3):   # a shaken unit never recovers on its own, turn after turn
        c = activate(c, "t")
        c = run(c, NextTurn(expected_version=c.version))
    assert squares_state(c).units["t"].disordered is not recovers


def test_failed_recovery_lists_every_failed_condition() -> None:
    c = battle([unit("t", "D4", sp=1, disordered=True), unit("e", "D5", brigade="r1")])
    c = run(c, MarkFire(expected_version=c.version, unit="t"))
    c = activate(c, "t")
    text = c.describe(c.version)
    assert text == ("t activates: stays disordered — enemy adjacent (e); under fire this turn "
                    "(ranged); only 1 SP (needs more than 1)")


def test_a_recovered_unit_may_not_move_in_that_activation() -> None:
    c = activate(battle([unit("t", "D4", sp=4, disordered=True), unit("u", "F2"), FAR_ENEMY]),
                 "t")
    before = snapshot(c)
    with pytest.raises(IllegalNowError, match="recovered from disorder in this activation: it "
                                              "may fire but not move"):
        c.execute(Move(expected_version=c.version, who="t", square="D3"), ScriptedRoller(()))
    assert snapshot(c) == before
    # Being fired upon or disordered again does not end the activation.
    c = run(c, MarkFire(expected_version=c.version, unit="t"))
    with pytest.raises(IllegalNowError):
        c.decide(Move(expected_version=c.version, who="t", square="D3"), ScriptedRoller(()))
    # Once another unit activates, that activation is over: a move is recorded again.
    later = activate(c, "u")
    run(later, Move(expected_version=later.version, who="t", square="D3"))
    next_turn = run(c, NextTurn(expected_version=c.version))
    run(next_turn, Move(expected_version=next_turn.version, who="t", square="D3"))


def test_an_ordered_unit_activates_without_recovery_and_may_move() -> None:
    c = activate(battle([unit("t", "D4", sp=4), FAR_ENEMY]), "t")
    assert last_event(c, Activated).recovery is None
    run(c, Move(expected_version=c.version, who="t", square="D5"))


def test_a_unit_activates_once_per_turn_unless_the_parameter_is_off() -> None:
    c = activate(battle([unit("t", "D4", sp=4), FAR_ENEMY]), "t")
    with pytest.raises(IllegalNowError, match="has already activated on turn 1"):
        c.decide(Activate(expected_version=c.version, who="t"), ScriptedRoller(()))
    free = activate(battle([unit("t", "D4", sp=4), FAR_ENEMY],
                           parameters={"once_per_turn": False}), "t")
    activate(free, "t")


def test_disorder_then_recover_round_trip() -> None:
    c = battle([unit("t", "D4", sp=4), FAR_ENEMY])
    c = run(c, Disorder(expected_version=c.version, unit="t"))
    with pytest.raises(IllegalNowError, match="already disordered"):
        c.decide(Disorder(expected_version=c.version, unit="t"), ScriptedRoller(()))
    c = activate(c, "t")
    assert not c.state.units["t"].disordered


def test_an_enemy_in_the_same_square_is_adjacent_by_the_parameter() -> None:
    units = [unit("t", "D4", sp=4, disordered=True), unit("e", "D4", brigade="r1")]
    assert last_event(activate(battle(units), "t"), Activated).recovered is False
    c = activate(battle(units, parameters={"same_square_is_adjacent": False}), "t")
    assert last_event(c, Activated).recovered is True
    from rallypoint.rulesets.squares.data import load_data, resolve_data

    raw = resolve_data({})
    del raw["parameters"]["same_square_is_adjacent"]
    assert load_data(raw).params.same_square_is_adjacent is True
