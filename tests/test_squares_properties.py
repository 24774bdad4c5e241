"""Property tests: random command sequences against a small battle.

Whatever the player does (legal or not), a broken or destroyed unit never acts again, SP stays
within 0..starting stamina, an ineligible rally is refused and changes nothing, a refused command
changes nothing, and replaying the log rebuilds the identical state.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from json_kit import at
from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, RallypointError, StaleVersionError
from rallypoint.core.json_types import JsonValue
from rallypoint.core.ruleset import Command
from rallypoint.dice import ScriptedRoller
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
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.rally import eligibility
from squares_kit import LEADERS, battle, snapshot, unit

UNITS = [
    unit("a", "B2", stamina=4, sp=3, disordered=True),
    unit("b", "C2", stamina=3),
    unit("c", "B3", brigade="b2", stamina=5, sp=1),
    unit("r", "D4", brigade="r1", stamina=4),
    unit("s", "E5", brigade="r1", stamina=3, disordered=True),
]
UNIT_IDS = [u["id"] for u in UNITS]
LEADER_IDS = list(LEADERS)
SQUARES = [f"{c}{r}" for c in "ABCDE" for r in range(1, 6)]


def fresh(parameters: dict[str, Any]) -> Campaign:
    return battle(UNITS, columns=5, rows=5, parameters=parameters,
                  leaders={"rbrig": "E1", "rcmdr": "E1"},
                  terrain=[{"kind": "woods", "squares": ["C3"]},
                           {"kind": "fortification", "side": "blue", "squares": ["B2"]}])


ids = st.sampled_from(UNIT_IDS)
anyone = st.sampled_from(UNIT_IDS + LEADER_IDS + ["ghost"])
steps = st.one_of(
    st.tuples(st.just(Move), st.fixed_dictionaries({"who": anyone,
                                                    "square": st.sampled_from(SQUARES)})),
    st.tuples(st.just(MarkFire), st.fixed_dictionaries(
        {"unit": ids, "fire": st.sampled_from(["ranged", "bombardment"])})),
    st.tuples(st.just(LoseSp), st.fixed_dictionaries({"unit": ids, "sp": st.integers(1, 3)})),
    st.tuples(st.just(Disorder), st.fixed_dictionaries({"unit": ids})),
    st.tuples(st.just(Activate), st.fixed_dictionaries({"who": anyone})),
    st.tuples(st.just(Rally), st.fixed_dictionaries({
        "leader": st.sampled_from(LEADER_IDS), "unit": ids,
        "rally": st.sampled_from(list(RallyKind)),
        "enemy_visible": st.sampled_from([None, True, False])})),
    st.tuples(st.just(NextTurn), st.just({})),
    st.tuples(st.just(SetSight), st.fixed_dictionaries({
        "a": st.sampled_from(SQUARES), "b": st.sampled_from(SQUARES),
        "ruling": st.sampled_from(["clear", "blocked", "auto"])})),
)
parameters = st.fixed_dictionaries({
    "adjacency": st.sampled_from(["eight", "four"]),
    "sp_rally_gain": st.sampled_from([1, 2, "all"]),
    "rally_eligibility": st.sampled_from(["per_kind", "either"]),
    "once_per_turn": st.booleans(),
})


def _names(args: dict[str, Any]) -> set[str]:
    return {v for k, v in args.items() if k in ("who", "unit")}


@settings(max_examples=150, deadline=None)
@given(params=parameters, plan=st.lists(st.tuples(steps, st.integers(1, 6)), max_size=30))
def test_random_play_keeps_the_invariants(params: dict[str, Any],
                                          plan: list[tuple[tuple[type[Command], dict[str, Any]],
                                                           int]]) -> None:
    c = fresh(params)
    history = [snapshot(c)]
    out: dict[str, JsonValue] = {}
    for (kind, args), die in plan:
        command = kind.model_validate({"expected_version": c.version, **args})
        before = snapshot(c)
        ineligible = False
        state = squares_state(c)
        if isinstance(command, Rally) and state.units[command.unit].in_play:
            ineligible = bool(eligibility(state, command.leader, command.unit, command.rally))
        roller = ScriptedRoller((die,))
        try:
            c = c.execute(command, roller)
        except RallypointError as refused:
            assert snapshot(c) == before, "a refused command changes nothing"
            assert roller.used == 0, "a refused command rolls no die"
            if ineligible:
                assert isinstance(refused, IllegalNowError)
            continue
        assert not ineligible, "an ineligible rally must be refused"
        assert not (_names(args) & set(out)), "a unit out of play never acts again"
        history.append(snapshot(c))
        for u in squares_state(c).units.values():
            stamina = squares_state(c).stamina(u.id)
            assert 0 <= u.sp <= stamina
            assert (u.sp == 0) == (u.status.value == "destroyed")
            if u.id in out:
                assert at(c.ruleset.state_json(c.state), "units", u.id) == out[u.id]
            elif not u.in_play:
                out[u.id] = at(c.ruleset.state_json(c.state), "units", u.id)
        for ld in squares_state(c).leaders.values():
            assert ld.attached is None or squares_state(c).units[ld.attached].in_play
            assert ld.attached is None or squares_state(c).units[ld.attached].square == ld.square
    rebuilt = Campaign.from_events(c.events)
    assert snapshot(rebuilt) == snapshot(c), "replay rebuilds identical state"
    if len(history) > 1:
        assert snapshot(c.undo()) == history[-2]


@settings(max_examples=100, deadline=None)
@given(params=parameters, leader=st.sampled_from(LEADER_IDS), target=ids,
       kind=st.sampled_from(list(RallyKind)))
def test_an_ineligible_rally_is_refused_and_changes_nothing(params: dict[str, Any], leader: str,
                                                            target: str, kind: RallyKind) -> None:
    c = fresh(params)
    problems = eligibility(squares_state(c), leader, target, kind)
    command = Rally(expected_version=c.version, leader=leader, unit=target, rally=kind)
    before = snapshot(c)
    roller = ScriptedRoller((3,))
    try:
        after = c.execute(command, roller)
    except IllegalNowError as refused:
        assert problems, f"refused without a reason: {refused}"
        assert roller.used == 0, "a refused rally rolls no die"
        for what, _ in problems:
            assert what in str(refused)
        assert snapshot(c) == before
        return
    assert not problems
    assert after.version == c.version + 1


def test_undo_restores_every_kind_of_event_and_stale_commands_are_refused() -> None:
    c = fresh({})
    script: list[tuple[Command, tuple[int, ...]]] = [
        (Move(expected_version=0, who="b", square="C1"), ()),
        (MarkFire(expected_version=0, unit="a", fire="bombardment"), ()),
        (LoseSp(expected_version=0, unit="b", sp=2), ()),
        (Disorder(expected_version=0, unit="b"), ()),
        (Activate(expected_version=0, who="a"), ()),
        (Rally(expected_version=0, leader="brig", unit="a", rally=RallyKind.DISORDER), (4,)),
        (Activate(expected_version=0, who="brig2"), ()),
        (SetSight(expected_version=0, a="A1", b="E5", ruling="blocked"), ()),
        (NextTurn(expected_version=0), ()),
    ]
    types = []
    for command, dice in script:
        stale = command.model_copy(update={"expected_version": c.version - 1})
        with pytest.raises(StaleVersionError):
            c.decide(stale, ScriptedRoller(dice))
        before = snapshot(c)
        after = c.execute(command.model_copy(update={"expected_version": c.version}),
                          ScriptedRoller(dice))
        types.append(after.events[-1].type)
        assert snapshot(after.undo()) == before
        assert snapshot(Campaign.from_events(after.undo().events)) == before
        c = after
    assert types == ["moved", "fired_upon", "sp_lost", "disordered", "activated", "rallied",
                     "activated", "sight_set", "turn_advanced"]
