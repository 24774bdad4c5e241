"""Platoon ("Between battles", seed 002, 14.1–14.9): one test (or a few) per clause, exact values.

Source: ../shared/seeds/002_7ddbf099d50faa1f.txt, read with ../shared/reference/platoon-notes.md.
The coverage matrix in docs/rules/platoon.md maps every clause to the test that checks it. The
platoons are small rosters built by ``platoon_kit`` (crews "1", "2", "3" of men ``1C``, ``1G``, …)
and the dice are scripted: in a battle report the rolls are each written-off tank's replacement
delay, then per man (crews in report order, seats in order) a light wound's healing delay or a
serious/killed man's request delay; then the next morning's arrivals (per man: 1d6 transfer, then
five 2d6 section-8 draws — age, skill, nerve, initiative, steadiness).
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import run
from platoon_kit import (
    GREEN,
    battle_roster,
    campaign,
    man,
    quiet_day,
    refuse,
    report,
    rest,
    rolls,
    seat_of,
    seated,
    snapshot,
    tank,
    view,
)
from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import (
    IllegalNowError,
    MalformedInputError,
    RallypointError,
    UnknownIdError,
)
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.platoon import RULESET
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.battle import BattleReport
from rallypoint.rulesets.platoon.choices import CommanderChoices
from rallypoint.rulesets.platoon.commands import (
    AssignTank,
    FillCommander,
    IngestReport,
    PlaceMan,
    RestDay,
    StandInBattle,
    WaitCommander,
    YearEnd,
)
from rallypoint.rulesets.platoon.data import ATTRIBUTES, Column, load_data, resolve_data
from rallypoint.rulesets.platoon.events import PlatoonEvent
from rallypoint.rulesets.platoon.front.campaign import platoon_state
from rallypoint.rulesets.platoon.model import Man, Seat, Status, TankStatus, Wound
from rallypoint.rulesets.platoon.ruleset import transition
from rallypoint.rulesets.platoon.section9 import (
    Hooks,
    effective_skill,
    stress_gain_multiplier,
    threshold_shift,
)

RULES = load_data(resolve_data({}))
ROSTER_SEAT_KEYS = {"man", "name", "starting_stress", "stress_gain_multiplier", "threshold_shift",
                    "skill", "traits"}


def n(section: str, key: str) -> int:
    """A shipped parameter's value."""
    return RULES.n(section, key)


def men(c: Campaign) -> dict[str, dict[str, Any]]:
    """Every man's JSON view."""
    result: dict[str, dict[str, Any]] = view(c)["men"]
    return result


def fatigue(c: Campaign, *ids: str) -> list[int]:
    """The fatigue of the named men."""
    return [platoon_state(c).men[i].fatigue for i in ids]


def cohesion(c: Campaign, *crews: str) -> list[int]:
    """The cohesion of the named crews."""
    return [platoon_state(c).crews[i].cohesion for i in crews]


def new_men(before: Campaign, after: Campaign) -> list[Man]:
    """Men who exist in ``after`` but not in ``before``, in creation order."""
    return [m for i, m in platoon_state(after).men.items() if i not in platoon_state(before).men]


def test_parameters_are_as_documented() -> None:
    # Every test below is written against these defaults (docs/rules/platoon.md, parameter table).
    assert (n("fatigue", "fight"), n("fatigue", "tank_hit"), n("fatigue", "knocked_out")) == (
        22, 12, 18)
    assert (n("fatigue", "rest_recovery"), n("fatigue", "night_recovery"),
            n("fatigue", "shaken_stress")) == (75, 10, 35)
    assert (n("steadiness", "per_battle"), n("steadiness", "max_reduction")) == (5, 25)
    assert (n("cohesion", "per_day"), n("cohesion", "cap"), n("cohesion", "stranger_loss"),
            n("cohesion", "start")) == (2, 90, 15, 60)
    assert (n("morale", "start"), n("morale", "tank_lost"), n("morale", "man_killed"),
            n("morale", "objective"), n("morale", "enemy_withdrawn"), n("morale", "rest_day"),
            n("morale", "cap")) == (60, 10, 4, 10, 5, 2, 90)


# -- 14.1 Fatigue ----------------------------------------------------------------------------------


def test_fighting_hit_and_knocked_out_or_bailed_out_tire_exactly() -> None:
    # night_recovery 0 so the event shows the battle's gain alone.
    c = campaign(("1", "2", "3", "4", "5", "6"), action_days=(1,),
                 parameters={"fatigue.night_recovery": 0},
                 edit={"1G": {"steadiness": 100}})
    c = run(c, report(c, [
        tank("1"), tank("2", result="hit"), tank("3", result="hit", bailed_out=True),
        tank("4", result="knocked_out", ordnance_days=3), tank("5", result="written_off"),
        tank("6", bailed_out=True)]), dice=(1,))
    fight, hit, out = 22, 22 + 12, 22 + 12 + 18
    assert fatigue(c, "1C", "1G", "1A") == [fight] * 3   # steadiness cuts the battle's gain only
    assert fatigue(c, "2C", "2L") == [hit] * 2
    assert fatigue(c, "3C", "4C", "5C") == [out] * 3     # bailed out / knocked out / written off
    assert fatigue(c, "6C") == [fight + 18]              # bailed out of an unhit tank


def test_a_day_out_of_action_gives_most_of_it_back() -> None:
    c = campaign(action_days=(), edit={"1C": {"fatigue": 40}, "1G": {"fatigue": 50},
                                       "1L": {"fatigue": 3}, "1D": {"fatigue": 100}})
    c = rest(c)
    # rest_recovery 75%; the part given back rounds up ('rested men start fresh').
    assert fatigue(c, "1C", "1G", "1L", "1D", "1A") == [10, 12, 0, 25, 0]


def test_rest_brings_fatigue_to_zero() -> None:
    # 14.1 'rested men start fresh': 100 → 25 → 6 → 1 → 0, and a man at 1 is fresh in a day.
    c = campaign(action_days=(), edit={"1C": {"fatigue": 100}, "1G": {"fatigue": 1}})
    seen = []
    for _ in range(4):
        c = rest(c)
        seen.append(fatigue(c, "1C", "1G"))
    assert seen == [[25, 0], [6, 0], [1, 0], [0, 0]]


def test_rounding_rest_down_is_the_old_reading() -> None:
    # fatigue.rest_rounds_up = 0 (and any campaign stored before the parameter existed): a man
    # at 1 stays at 1 for good.
    c = campaign(action_days=(), parameters={"fatigue.rest_rounds_up": 0},
                 edit={"1C": {"fatigue": 40}, "1G": {"fatigue": 50}, "1L": {"fatigue": 3},
                       "1D": {"fatigue": 1}})
    c = rest(rest(c))
    assert fatigue(c, "1C", "1G", "1L", "1D") == [3, 4, 1, 1]
    raw = resolve_data({})
    del raw["sections"]["fatigue"]["rest_rounds_up"]
    assert load_data(raw).reading("fatigue", "rest_rounds_up") is False


def test_the_night_after_an_action_gives_back_little() -> None:
    c = campaign(edit={"1C": {"fatigue": 30}})
    c = quiet_day(c)
    assert fatigue(c, "1C", "1G") == [52 - 5, 22 - 2]  # night_recovery 10%, rounded down


def test_men_who_sat_the_action_out_had_a_day_out_of_action() -> None:
    # 14.1 per man: crew 3 has no tank and does not fight; its men rest while the others fight.
    c = campaign(tankless=("3",), edit={"3L": {"fatigue": 40}, "1L": {"fatigue": 40}})
    c = quiet_day(c)
    assert fatigue(c, "1L", "3L") == [62 - 6, 40 - 30]


def test_third_day_running_starts_shaken_from_accumulated_fatigue() -> None:
    c = campaign(action_days=(1, 2, 3))
    shaken = battle_roster(c)["shaken_stress"]
    assert shaken == 35
    starts = []
    for _ in range(3):
        starts.append(seated(c, "2", "loader")["starting_stress"])
        c = quiet_day(c)
    assert starts == [0, 20, 38]
    assert starts[1] < shaken <= starts[2]
    # Rested men start fresh: two days out of action after the third action.
    c = rest(rest(c))
    assert seated(c, "2", "loader")["starting_stress"] == 54 - 41 - 10


def test_shaken_emerges_from_fatigue_not_from_a_day_counter() -> None:
    # Smaller fights: three days running no longer reach the shaken level ...
    c = campaign(parameters={"fatigue.fight": 10})
    c = quiet_day(quiet_day(c))
    assert seated(c, "1", "gunner")["starting_stress"] == 18
    # ... a platoon that is already tired starts its first day shaken ...
    c = campaign(edit={"1G": {"fatigue": 40}})
    assert seated(c, "1", "gunner")["starting_stress"] == 40
    # ... and a man placed on the third morning starts it fresh beside his shaken crew.
    c = campaign(drop=("1G",), extra=[man("U1", "gunner")])
    c = quiet_day(quiet_day(c))
    c = run(c, PlaceMan(expected_version=c.version, man="U1", crew="1", seat=Seat.GUNNER))
    assert seated(c, "1", "gunner")["starting_stress"] == 0
    assert seated(c, "1", "loader")["starting_stress"] == 38


def test_battle_start_stress_is_fatigue() -> None:
    c = campaign(edit={"1C": {"fatigue": 12}, "2L": {"fatigue": 77}})
    for t in battle_roster(c)["tanks"]:
        for entry in t["seats"].values():
            assert entry["starting_stress"] == platoon_state(c).men[entry["man"]].fatigue
    assert seated(c, "2", "loader")["starting_stress"] == 77


# -- 14.2 Steadiness -------------------------------------------------------------------------------


def test_steadiness_grows_for_each_battle_survived_only() -> None:
    c = campaign(action_days=(1,), tankless=("3",),
                 edit={k: {"steadiness": 10} for k in ("1C", "1G", "1L", "1D", "3C")})
    c = run(c, report(c, [tank("1", result="hit"), tank("2")],
                      {"1G": "light", "1L": "serious", "1D": "killed"}), dice=(1, 1, 1))
    s = {i: m.steadiness for i, m in platoon_state(c).men.items()}
    assert (s["1C"], s["1G"], s["1A"], s["2C"]) == (15, 15, 5, 5)  # unhurt and light survive
    assert (s["1L"], s["1D"]) == (10, 10)                         # evacuated, killed: no gain
    assert s["3C"] == 10                                          # crew 3 did not fight


def test_steadiness_never_decays_and_stops_at_its_top() -> None:
    c = campaign(action_days=(1,), edit={"1C": {"steadiness": 98}, "1G": {"steadiness": 40}})
    c = quiet_day(c)
    now = platoon_state(c)
    assert (now.men["1C"].steadiness, now.men["1G"].steadiness) == (100, 45)
    c = rest(rest(c))
    c = run(c, YearEnd(expected_version=c.version))
    state = platoon_state(c)
    assert (state.men["1C"].steadiness, state.men["1G"].steadiness) == (100, 45)


def test_steadiness_cuts_stress_gain_by_up_to_a_quarter() -> None:
    def multiplier(steadiness: int) -> Fraction:
        return stress_gain_multiplier(Man(id="x", name="x", age=20, trade=Seat.GUNNER, skill=50,
                                          traits={}, steadiness=steadiness), RULES)

    assert [multiplier(s) for s in (0, 20, 50, 100)] == [
        Fraction(1), Fraction(19, 20), Fraction(7, 8), Fraction(3, 4)]
    c = campaign(edit={"1C": {"steadiness": 100}, "1G": {"steadiness": 50}})
    assert seated(c, "1", "commander")["stress_gain_multiplier"] == "3/4"
    assert seated(c, "1", "gunner")["stress_gain_multiplier"] == "7/8"
    assert seated(c, "1", "loader")["stress_gain_multiplier"] == "1"


def test_a_tired_veteran_is_closer_to_breaking_than_the_replacement_beside_him() -> None:
    c = campaign(action_days=(5,), edit={"1C": {"steadiness": 100, "fatigue": 60},
                                         "1G": {"steadiness": 0, "fatigue": 0}})
    veteran, draftee = seated(c, "1", "commander"), seated(c, "1", "gunner")
    # High steadiness does not hide high fatigue: the battle sees both halves.
    assert (veteran["starting_stress"], veteran["stress_gain_multiplier"]) == (60, "3/4")
    assert (draftee["starting_stress"], draftee["stress_gain_multiplier"]) == (0, "1")
    assert veteran["starting_stress"] >= battle_roster(c)["shaken_stress"]
    # Rested, he is the steadiest man in the platoon.
    c = rest(rest(c))
    assert seated(c, "1", "commander")["starting_stress"] == 3


# -- 14.3 Wounds -----------------------------------------------------------------------------------


def test_light_wound_stays_with_reduced_skill_invisible_to_the_battle() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"1G": "light"}),
            dice=(2,))
    assert rolls(c)[0].purpose == "Gunner 1 lightly wounded: days until fit"
    g = platoon_state(c).men["1G"]
    assert (g.status, g.crew, g.seat, g.wound, g.fit_day) == (
        Status.SERVING, "1", Seat.GUNNER, Wound.LIGHT, 1 + 2 + 2)
    assert g.skill == 60 and platoon_state(c).crews["1"].seats[Seat.GUNNER] == "1G"
    entry = seated(c, "1", "gunner")
    assert entry["skill"] == 60 * 75 // 100 == 45          # somewhat less than his skill
    assert set(entry) == ROSTER_SEAT_KEYS                   # no wound flag for section 7 to halve
    assert "wound" not in json.dumps(battle_roster(c))
    assert not platoon_state(c).requests  # no replacement for a light wound
    c = rest(rest(c))
    assert platoon_state(c).day == 4 and platoon_state(c).men["1G"].wound is Wound.LIGHT
    c = rest(c)
    assert platoon_state(c).day == 5 and platoon_state(c).men["1G"].wound is Wound.NONE
    assert seated(c, "1", "gunner")["skill"] == 60


def test_light_wound_heals_after_base_plus_one_die_days() -> None:
    base, sides = n("wounds", "light_days_base"), n("wounds", "light_days_die")
    third = Fraction(1, 3)
    assert pd.delay_odds(base, sides) == {3: third, 4: third, 5: third}
    for die in (1, 3):
        c = campaign(action_days=(1,))
        c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"1L": "light"}),
                dice=(die,))
        assert platoon_state(c).men["1L"].fit_day == 1 + base + die


def test_serious_wound_is_an_evacuation_for_good() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"1L": "serious"}),
            dice=(2,))
    gone = platoon_state(c).men["1L"]
    assert (gone.status, gone.crew, gone.seat) == (Status.EVACUATED, None, None)
    assert platoon_state(c).crews["1"].seats[Seat.LOADER] is None
    assert seat_of(c, "1", "loader") is None
    assert next(t for t in battle_roster(c)["tanks"] if t["crew"] == "1")["empty_seats"] == [
        "loader"]
    (request,) = view(c)["requests"]
    assert request == {"id": "r001", "kind": "man", "trade": "loader", "filed_day": 1,
                       "arrival_day": 1 + 2 + 2, "reason": "Loader 1 evacuated"}
    # His replacement is a new man; he never comes back.
    c = rest(rest(rest(c)), dice=(1, *GREEN))
    (arrival,) = platoon_state(c).unassigned()
    assert arrival.id != "1L" and arrival.trade is Seat.LOADER
    c = run(c, PlaceMan(expected_version=c.version, man=arrival.id, crew="1", seat=Seat.LOADER))
    assert platoon_state(c).men["1L"].status is Status.EVACUATED
    refuse(c, PlaceMan(expected_version=c.version, man="1L", crew="1", seat=Seat.LOADER),
           IllegalNowError, "not waiting to be placed")


def test_killed_man_files_a_request_and_costs_morale() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"1D": "killed"}),
            dice=(3,))
    assert platoon_state(c).men["1D"].status is Status.KILLED
    assert platoon_state(c).crews["1"].seats[Seat.DRIVER] is None
    requests = platoon_state(c).requests
    assert [(r.trade, r.arrival_day) for r in requests] == [(Seat.DRIVER, 1 + 2 + 3)]
    assert platoon_state(c).morale == 60 - 4


# -- 14.4 Cohesion between battles -----------------------------------------------------------------


def test_cohesion_after_a_battle_is_what_the_report_left_it_at() -> None:
    c = campaign(action_days=(1,), parameters={"cohesion.per_day": 0})
    c = run(c, report(c, [tank("1", 33), tank("2", 71), tank("3", 60)]))
    assert cohesion(c, "1", "2", "3") == [33, 71, 60]
    # With the default, the battle day's evening is a day together: +per_day.
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", 33), tank("2", 71), tank("3", 60)]))
    assert cohesion(c, "1", "2", "3") == [35, 73, 62]


def test_cohesion_gains_a_little_each_day_together_up_to_a_cap() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", 30), tank("2", 87), tank("3", 95)]))
    assert cohesion(c, "1", "2", "3") == [32, 89, 95]
    c = rest(c)
    assert cohesion(c, "1", "2", "3") == [34, 90, 95]
    c = rest(c)
    # The cap stops growth; a crew the battle left above it keeps what it has.
    assert cohesion(c, "1", "2", "3") == [36, 90, 95]


def test_cohesion_drops_when_a_stranger_sits_down_not_when_he_reports() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, men={"1G": "killed"}), dice=(1,))  # he arrives on day 1 + 2 + 1
    c = rest(rest(c), dice=(1, *GREEN))
    (arrival,) = platoon_state(c).unassigned()
    assert platoon_state(c).day == 4 and arrival.status is Status.UNASSIGNED
    assert cohesion(c, "1", "2", "3") == [66, 66, 66]        # his arrival cost nobody anything
    c = run(c, PlaceMan(expected_version=c.version, man=arrival.id, crew="1", seat=Seat.GUNNER))
    assert cohesion(c, "1", "2", "3") == [66 - 15, 66, 66]


# -- 14.5 Morale -----------------------------------------------------------------------------------


def test_morale_starts_a_little_above_the_middle() -> None:
    assert platoon_state(campaign()).morale == 60 > 50


def test_morale_amounts() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", result="knocked_out", ordnance_days=2),
                          tank("2", result="written_off"), tank("3", result="hit")],
                      {"3G": "killed"}), dice=(1, 1))
    assert platoon_state(c).morale == 60 - 10 - 10 - 4  # two tanks lost, one man killed
    c = campaign(action_days=(1,))
    c = run(c, report(c, objective=True))
    assert platoon_state(c).morale == 60 + 10
    c = campaign(action_days=(1,))
    c = run(c, report(c, enemy_withdrawn=True))
    assert platoon_state(c).morale == 60 + 5
    c = campaign(action_days=(1,))
    c = run(c, report(c, objective=True, enemy_withdrawn=True))
    assert platoon_state(c).morale == 60 + 10 + 5
    c = rest(c)
    assert platoon_state(c).morale == 75 + 2                             # a rest day


def test_morale_clamps_at_zero_and_its_cap() -> None:
    c = campaign(action_days=(1,), parameters={"morale.start": 5})
    c = run(c, report(c, [tank("1", result="knocked_out", ordnance_days=2), tank("2"),
                          tank("3")]))
    assert platoon_state(c).morale == 0
    c = campaign(action_days=(), parameters={"morale.start": 89})
    c = rest(c)
    assert platoon_state(c).morale == 90
    c = rest(c)
    assert platoon_state(c).morale == 90


def test_the_morale_cap_holds_after_a_battle() -> None:
    # 85 + an objective (10) + the enemy withdrawn (5) would be 100: the cap (90) holds on a
    # battle day too, not only on rest days and at the year's end.
    c = campaign(action_days=(1, 2), parameters={"morale.start": 85})
    c = run(c, report(c, objective=True, enemy_withdrawn=True))
    assert platoon_state(c).morale == 90
    # From the cap a lost tank costs its full amount: the clamp did not bank the excess.
    c = run(c, report(c, [tank("1", result="knocked_out", ordnance_days=2), tank("2"),
                          tank("3")]))
    assert platoon_state(c).morale == 80


def test_one_battle_nets_its_morale_changes_then_bounds_them() -> None:
    # 14.5 read as one battle, one change: at morale 5 a tank lost (-10) and an objective taken
    # (+10) cancel. Bounded step by step (the switch), the loss stops at 0 and the objective
    # then lifts morale to 10. A campaign stored before the switch nets.
    lost = [tank("1", result="knocked_out", ordnance_days=2), tank("2"), tank("3")]
    netted = campaign(action_days=(1,), parameters={"morale.start": 5})
    netted = run(netted, report(netted, lost, objective=True))
    assert platoon_state(netted).morale == 5
    stepped = campaign(action_days=(1,), parameters={"morale.start": 5,
                                                     "morale.bound_each_step": 1})
    stepped = run(stepped, report(stepped, lost, objective=True))
    assert platoon_state(stepped).morale == 10
    raw = resolve_data({})
    del raw["sections"]["morale"]["bound_each_step"]
    assert load_data(raw).reading("morale", "bound_each_step") is False


def _night(**p: int) -> int:
    # Crew 3 has no tank and sits the action out; its loader starts at fatigue 40.
    c = campaign(tankless=("3",), edit={"3L": {"fatigue": 40}}, parameters=p)
    return int(platoon_state(quiet_day(c)).men["3L"].fatigue)


def _second_wound(**p: int) -> int:
    c = campaign(action_days=(1, 2), parameters=p)
    for die in (3, 1):  # fit on day 1 + 2 + 3 = 6, then on day 2 + 2 + 1 = 5
        c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"1L": "light"}),
                dice=(die,))
    fit_day = platoon_state(c).men["1L"].fit_day
    assert fit_day is not None
    return fit_day


def _battle_evening(**p: int) -> int:
    c = campaign(action_days=(1,), parameters=p)
    return int(platoon_state(quiet_day(c)).crews["1"].cohesion)


def _knocked_out(**p: int) -> int:
    c = campaign(action_days=(1,), parameters=p)
    c = run(c, report(c, [tank("1", result="knocked_out", ordnance_days=2), tank("2"),
                          tank("3")]))
    return int(platoon_state(c).morale)


def _withdrawn(**p: int) -> int:
    c = campaign(("1", "2"), action_days=(1, 5), tankless=("2",), parameters=p)
    assert platoon_state(c).withdrawn()
    return int(platoon_state(rest(c)).fought)


def _request(**p: int) -> str:
    # A gunner by trade commands crew 1 and is killed.
    c = campaign(action_days=(1,), drop=("1C",), parameters=p,
                 extra=[man("X", "gunner", crew="1", seat="commander")])
    c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"X": "killed"}),
            dice=(1,))
    trade: str = view(c)["requests"][0]["trade"]
    return trade


@pytest.mark.parametrize(("switch", "play", "taken", "other"), [
    ("fatigue.night_per_man", _night, 40 - 30, 40 - 4),
    ("wounds.later_fit_day", _second_wound, 6, 5),
    ("cohesion.battle_evening", _battle_evening, 62, 60),
    ("morale.knocked_out_is_lost", _knocked_out, 50, 60),
    ("replacements.withdrawn_action_counts", _withdrawn, 1, 0),
    ("replacements.request_seat_trade", _request, "commander", "gunner"),
])
def test_the_readings_the_rules_always_took_have_switches(
        switch: str, play: Any, taken: object, other: object) -> None:
    # docs/rules/platoon.md "Readings": each reading the rules always took is the switch's
    # default, the other reading is 0, and a campaign stored before the switch keeps the first.
    assert play() == taken
    assert play(**{switch: 0}) == other
    section, _, key = switch.partition(".")
    raw = resolve_data({})
    del raw["sections"][section][key]
    assert load_data(raw).reading(section, key, before=True) is True


def test_threshold_shift_stand_in_is_exact() -> None:
    assert [threshold_shift(m, RULES) for m in (0, 20, 50, 55, 60, 90)] == [
        Fraction(-5), Fraction(-3), Fraction(0), Fraction(1, 2), Fraction(1), Fraction(4)]


def test_morale_only_shifts_the_reaction_threshold() -> None:
    beaten = campaign(parameters={"morale.start": 20}, edit={"1C": {"fatigue": 30}})
    confident = campaign(parameters={"morale.start": 80}, edit={"1C": {"fatigue": 30}})
    low, high = battle_roster(beaten), battle_roster(confident)
    assert (low["morale"], high["morale"]) == (20, 80)
    for a, b in zip(low["tanks"], high["tanks"], strict=True):
        for seat, entry in a["seats"].items():
            assert (entry["threshold_shift"], b["seats"][seat]["threshold_shift"]) == ("-3", "3")
            other = b["seats"][seat]
            assert {k: v for k, v in entry.items() if k != "threshold_shift"} == {
                k: v for k, v in other.items() if k != "threshold_shift"}
        assert {k: v for k, v in a.items() if k != "seats"} == {
            k: v for k, v in b.items() if k != "seats"}
    # The same battle with the same dice leaves the two platoons different only in morale.
    dice = (2, 3)  # 1G's light wound, 2L's request
    men_results = {"1G": "light", "2L": "serious"}
    tanks = [tank("1", 50, result="hit"), tank("2", 40, result="hit"), tank("3")]
    beaten = run(beaten, report(beaten, tanks, men_results), dice)
    confident = run(confident, report(confident, tanks, men_results), dice)
    low_view, high_view = view(beaten), view(confident)
    assert (low_view.pop("morale"), high_view.pop("morale")) == (20, 80)
    assert low_view == high_view


# -- 14.6 Replacements -----------------------------------------------------------------------------


def test_a_request_is_for_a_trade_not_a_seat() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, men={"1G": "killed", "2C": "killed"}), dice=(1, 1))
    assert {tuple(r) for r in view(c)["requests"]} == {
        ("id", "kind", "trade", "filed_day", "arrival_day", "reason")}
    assert [(r.id, r.trade) for r in platoon_state(c).requests] == [("r001", Seat.GUNNER),
                                                          ("r002", Seat.COMMANDER)]
    c = rest(rest(c), dice=(1, *GREEN, 1, *GREEN))
    gunner = next(m for m in platoon_state(c).unassigned() if m.trade is Seat.GUNNER)
    # The lieutenant may place the gunner in any empty seat: crew 2's commander seat, say.
    decision = next(d for d in RULESET.pending(platoon_state(c)) if d.subject == gunner.id)
    assert decision.options["seats"] == [{"crew": "1", "seat": "gunner"},
                                         {"crew": "2", "seat": "commander"}]
    c = run(c, PlaceMan(expected_version=c.version, man=gunner.id, crew="2",
                        seat=Seat.COMMANDER))
    assert platoon_state(c).crews["2"].seats[Seat.COMMANDER] == gunner.id


def test_request_ids_are_never_handed_out_twice() -> None:
    c = campaign(action_days=(1, 4))
    c = run(c, report(c, men={"1G": "killed", "2G": "killed"}), dice=(1, 3))
    c = rest(rest(c), dice=(1, *GREEN))          # r001 lands on day 4, r002 waits for day 6
    assert [r.id for r in platoon_state(c).requests] == ["r002"]
    c = run(c, report(c, men={"3G": "killed"}), dice=(1,))
    assert [r.id for r in platoon_state(c).requests] == ["r002", "r003"]


def test_a_man_arrives_days_later_and_waits_to_be_placed() -> None:
    base, sides = n("replacements", "man_days_base"), n("replacements", "man_days_die")
    assert pd.delay_odds(base, sides) == dict.fromkeys((3, 4, 5), Fraction(1, 3))
    c = campaign(action_days=(1,))
    c = run(c, report(c, men={"1G": "killed"}), dice=(2,))
    assert platoon_state(c).requests[0].arrival_day == 1 + 2 + 2
    c = rest(rest(c))
    state = platoon_state(c)
    assert state.day == 4 and not state.unassigned() and state.requests
    c = rest(c, dice=(1, *GREEN))
    assert platoon_state(c).day == 5 and not platoon_state(c).requests
    (arrival,) = platoon_state(c).unassigned()
    assert (arrival.status, arrival.crew, arrival.seat, arrival.trade) == (
        Status.UNASSIGNED, None, None, Seat.GUNNER)
    assert [r.purpose for r in rolls(c)][:2] == [
        "gunner arriving: from another unit?", f"depot replacement: {arrival.name}'s age"]
    assert [d.key for d in RULESET.pending(platoon_state(c))] == [f"place:{arrival.id}"]
    # He waits (a day passes) until the lieutenant places him.
    c = rest(c)
    assert platoon_state(c).men[arrival.id].status is Status.UNASSIGNED
    assert platoon_state(c).crews["1"].seats[Seat.GUNNER] is None
    c = run(c, PlaceMan(expected_version=c.version, man=arrival.id, crew="1", seat=Seat.GUNNER))
    assert platoon_state(c).men[arrival.id].status is Status.SERVING


def test_a_tank_arrives_after_longer_and_waits_in_the_park() -> None:
    base, sides = n("replacements", "tank_days_base"), n("replacements", "tank_days_die")
    assert pd.delay_odds(base, sides) == dict.fromkeys(range(5, 11), Fraction(1, 6))
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", result="written_off"), tank("2"), tank("3")]), dice=(1,))
    assert rolls(c)[0].purpose == "replacement tank (Able written off): days"
    assert platoon_state(c).tanks["t1"].status is TankStatus.WRITTEN_OFF
    assert platoon_state(c).crews["1"].tank is None
    (request,) = platoon_state(c).requests
    assert (request.kind, request.trade, request.arrival_day) == ("tank", None, 1 + 4 + 1)
    for _ in range(4):
        c = rest(c)
    assert platoon_state(c).day == 6
    (new,) = platoon_state(c).park()
    assert new.id not in ("t1", "t2", "t3") and new.crew is None
    assert new.name == "Avenger"                  # a name no tank of the platoon has borne
    assert platoon_state(c).crews["1"].tank is None
    assert [d.key for d in RULESET.pending(platoon_state(c))] == [f"tank:{new.id}"]
    c = run(c, AssignTank(expected_version=c.version, tank=new.id, crew="1"))
    assert platoon_state(c).crews["1"].tank == new.id
    assert platoon_state(c).tanks[new.id].status is TankStatus.WITH_CREW


def test_a_knocked_out_tank_returns_from_ordnance_as_itself() -> None:
    c = campaign(action_days=(1,))
    c = run(c, report(c, [tank("1", result="knocked_out", ordnance_days=3), tank("2"),
                          tank("3")]))
    t1 = platoon_state(c).tanks["t1"]
    assert (t1.status, t1.return_day, t1.crew) == (TankStatus.ORDNANCE, 4, None)
    assert not platoon_state(c).requests                   # no replacement: it comes back
    c = rest(rest(c))
    assert platoon_state(c).day == 4
    back = platoon_state(c).tanks["t1"]
    assert (back.id, back.name, back.status, back.crew) == ("t1", "Able", TankStatus.PARK, None)
    assert platoon_state(c).crews["1"].tank is None  # it waits in the park until given to a crew
    c = run(c, AssignTank(expected_version=c.version, tank="t1", crew="1"))
    assert platoon_state(c).crews["1"].tank == "t1"


def _knocked_out_both(returns: tuple[int, int] = (5, 1)) -> Campaign:
    """Crews 1 and 2 knocked out on day 1; their tanks back after ``returns`` days."""
    c = campaign(action_days=(1,))
    return run(c, report(c, [tank("1", result="knocked_out", ordnance_days=returns[0]),
                             tank("2", result="knocked_out", ordnance_days=returns[1]),
                             tank("3")]))


def test_by_trade_gives_a_tank_back_from_ordnance_to_its_own_crew() -> None:
    # 14.6 "returning from ordnance as itself": Baker (crew 2's) is back first, while crew 1 is
    # also without a tank; the default policy gives it back to crew 2, not the first crew.
    c = _knocked_out_both()
    assert platoon_state(c).tanks["t2"].status is TankStatus.PARK
    assert platoon_state(c).tanks["t2"].own_crew == "2"
    (decision,) = [d for d in RULESET.pending(platoon_state(c)) if d.kind == "tank"]
    assert decision.options["crews"] == ["1", "2"]
    command = RULESET.policies()[0].decide(platoon_state(c), decision, c.version)
    assert command == AssignTank(expected_version=c.version, tank="t2", crew="2")
    c = run(c, command)
    assert platoon_state(c).tanks["t2"].own_crew == "2"


def test_a_repaired_tank_waiting_in_the_park_keeps_its_name_at_the_year_end() -> None:
    # 14.9 "the old name kept where the old tank was fit": crew 2's Baker is repaired and waits
    # in the park; crew 1's Able is still at ordnance (not fit).
    c = _knocked_out_both()
    c = run(c, YearEnd(expected_version=c.version))
    now = platoon_state(c)
    names = {cid: now.tanks[crew.tank].name for cid, crew in now.crews.items()
             if crew.tank}
    assert names == {"1": "Avenger", "2": "Baker", "3": "Charlie"}
    # year.repaired_tank_keeps_name = 0 (and campaigns created before it): a new name.
    old = campaign(action_days=(1,), parameters={"year.repaired_tank_keeps_name": 0})
    old = run(old, report(old, [tank("1", result="knocked_out", ordnance_days=5),
                                tank("2", result="knocked_out", ordnance_days=1), tank("3")]))
    old = run(old, YearEnd(expected_version=old.version))
    state = platoon_state(old)
    assert {cid: state.tanks[crew.tank].name for cid, crew in state.crews.items()
            if crew.tank} == {"1": "Avenger", "2": "Boomer", "3": "Charlie"}
    raw = resolve_data({})
    del raw["sections"]["year"]["repaired_tank_keeps_name"]
    assert load_data(raw).reading("year", "repaired_tank_keeps_name") is False


def _last(c: Campaign) -> PlatoonEvent:
    event = c.typed[-1]
    assert isinstance(event, PlatoonEvent)
    return event


def test_a_second_light_wound_is_in_the_log() -> None:
    # 14.3: a man already lightly wounded is wounded again; the later fit day holds, and the
    # log says so either way (the second wound healing sooner or later than the first).
    for first, second, fit in ((1, 3, 7), (3, 1, 6)):
        c = campaign(action_days=(1, 2))
        c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"1L": "light"}),
                dice=(first,))
        assert _last(c).summary[1] == f"Loader 1 lightly wounded, fit on day {3 + first}"
        c = run(c, report(c, [tank("1", result="hit"), tank("2"), tank("3")], {"1L": "light"}),
                dice=(second,))
        assert platoon_state(c).men["1L"].fit_day == fit
        assert platoon_state(c).men["1L"].light_wounds == 2
        assert f"Loader 1 lightly wounded again, fit on day {fit}" in _last(c).summary
        assert "lightly wounded again" in RULESET.describe(_last(c))


def test_a_replacement_never_takes_a_surname_a_roster_man_bears() -> None:
    # 14 men in the roster: the list's next surname is its 15th, O'Brien, which the roster's
    # loader already bears ("Sgt. O'Brien"): the green driver from Naples is Price.
    c = campaign(action_days=(), drop=("1D",), edit={"1L": {"name": "Sgt. O'Brien"}})
    before = c
    c = run(c, YearEnd(expected_version=c.version), dice=GREEN)
    (green,) = new_men(before, c)
    assert RULES.names.surnames[14:16] == ("O'Brien", "Price")
    assert (green.name, green.seat) == ("Price", Seat.DRIVER)
    assert platoon_state(c).names_used == 16


def _brute(mean: Fraction, spread: Fraction, clamp: bool) -> dict[int, Fraction]:
    """mean + spread × (2d6 − 7)/5, rounded half up, by enumerating the 36 faces."""
    odds: dict[int, Fraction] = {}
    for a, b in product(range(1, 7), repeat=2):
        exact = mean + spread * Fraction(a + b - 7, 5)
        value = int((exact + Fraction(1, 2)) // 1)
        if clamp:
            value = max(0, min(100, value))
        odds[value] = odds.get(value, Fraction(0)) + Fraction(1, 36)
    return odds


@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_transfer_draws_interpolate_the_column_not_the_result(attribute: str) -> None:
    column: Column = RULES.section8[attribute]
    clamp = attribute != "age"
    g, v = column.green, column.veteran
    green = _brute(Fraction(g.mean), Fraction(g.spread), clamp)
    veteran = _brute(Fraction(v.mean), Fraction(v.spread), clamp)
    assert pd.attribute_odds(column, Fraction(0), clamp) == green
    assert pd.attribute_odds(column, Fraction(1), clamp) == veteran
    half = _brute(Fraction(g.mean + v.mean, 2), Fraction(g.spread + v.spread, 2), clamp)
    assert pd.attribute_odds(column, Fraction(1, 2), clamp) == half
    quarter = _brute(Fraction(3 * g.mean + v.mean, 4), Fraction(3 * g.spread + v.spread, 4), clamp)
    assert pd.attribute_odds(column, Fraction(1, 4), clamp) == quarter
    if g.spread != v.spread:
        # Never the mean of one column with the spread of the other.
        assert half != _brute(Fraction(g.mean + v.mean, 2), Fraction(g.spread), clamp)
        assert half != _brute(Fraction(g.mean + v.mean, 2), Fraction(v.spread), clamp)


def test_a_depot_man_starts_at_nothing_and_a_transfer_with_steadiness_to_match() -> None:
    steadiness = RULES.section8["steadiness"]
    assert pd.attribute_odds(steadiness, Fraction(0)) == {0: Fraction(1)}
    assert min(pd.attribute_odds(steadiness, Fraction(1))) == 60 - 15
    assert pd.transfer_node("").probability(lambda f: f >= n("replacements", "transfer_on")) == \
        Fraction(1, 6)


def test_a_transfer_arrives_drawn_at_campaign_progress() -> None:
    c = campaign(action_days=(1, 10))
    c = run(c, report(c, men={"1G": "killed"}), dice=(1,))  # arrives day 4
    assert platoon_state(c).progress == Fraction(1, 2)
    draws = (3, 4, 6, 6, 1, 1, 2, 3, 5, 5)   # 2d6 = 7, 12, 2, 5, 10
    before = c
    c = rest(rest(c), dice=(6, *draws))
    (arrival,) = new_men(before, c)
    # Halfway: age 22.5±3, skill 55±10, nerve 52.5±12.5, initiative 50±10, steadiness 30±7.5.
    assert (arrival.age, arrival.skill, arrival.traits, arrival.steadiness) == (
        23, 65, {"nerve": 40, "initiative": 46}, 35)
    assert arrival.transfer
    assert rolls(c)[0].outcome == "transfer" and rolls(c)[0].odds == "P(transfer) = 1/6"
    assert f"{arrival.name} (gunner, skill 65) arrives from another unit" in c.events[-1].payload[
        "summary"]


def test_a_depot_arrival_is_drawn_from_the_green_column() -> None:
    c = campaign(action_days=(1, 10))
    c = run(c, report(c, men={"1G": "killed"}), dice=(1,))
    before = c
    c = rest(rest(c), dice=(5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6))
    (arrival,) = new_men(before, c)
    assert not arrival.transfer
    # Green column at the top of its spread: age 22, skill 50, nerve 55, initiative 50, 0.
    assert (arrival.age, arrival.skill, arrival.traits, arrival.steadiness) == (
        22, 50, {"nerve": 55, "initiative": 50}, 0)


# -- 14.7 The platoon fights with what it has ------------------------------------------------------


def test_an_empty_seat_fights_a_man_short() -> None:
    c = campaign(drop=("1L",))
    entry = next(t for t in battle_roster(c)["tanks"] if t["crew"] == "1")
    assert (entry["fights"], entry["empty_seats"], entry["seats"]["loader"]) == (
        True, ["loader"], None)
    c = quiet_day(c)
    assert fatigue(c, "1C", "1G", "1D", "1A") == [20] * 4


def test_what_a_fit_tank_is() -> None:
    c = campaign(("1", "2", "3", "4", "5"), tankless=("5",),
                 drop=("2L", "2D", "2A",             # commander and gunner: nobody to drive
                       "3C", "3G", "3L", "3A",       # a driver alone
                       "4C", "4G", "4A"))            # a driver and a loader
    assert platoon_state(c).fit_crews() == ["1", "4"]        # crew 5 has no tank
    c = run(c, report(c, [tank("1", result="knocked_out", ordnance_days=2), tank("4")]))
    assert platoon_state(c).fit_crews() == ["4"]             # a tank at ordnance is not fit


def test_fewer_than_two_fit_tanks_withdraws_the_platoon_to_refit() -> None:
    c = campaign(action_days=(1, 2, 3), drop=("2D", "2A", "3D", "3A"),
                 edit={"1C": {"fatigue": 40}})
    assert platoon_state(c).fit_crews() == ["1"]
    roster = battle_roster(c)
    assert (roster["action"], roster["withdrawn"]) == (True, True)
    refuse(c, report(c, [tank("1")]), IllegalNowError, "withdrawn to refit")
    refuse(c, StandInBattle(expected_version=c.version), IllegalNowError, "withdrawn")
    c = rest(c)                                     # the day passes as rest ...
    assert fatigue(c, "1C") == [10] and platoon_state(c).morale == 62
    assert platoon_state(c).fought == 1                      # ... and the action still counts
    assert view(c)["actions"] == {"fought": 1, "total": 3, "progress": "1/3"}


def test_rest_is_refused_on_a_day_the_platoon_fights() -> None:
    c = campaign()
    refuse(c, RestDay(expected_version=c.version), IllegalNowError, "it fights")
    c = campaign(action_days=(2,))
    refuse(c, StandInBattle(expected_version=c.version), IllegalNowError, "no action")
    assert not battle_roster(c)["withdrawn"]


# -- 14.8 Filling the commander's seat -------------------------------------------------------------


def test_a_tank_whose_commander_is_killed_fights_uncommanded() -> None:
    c = campaign()
    c = run(c, report(c, men={"2C": "killed"}), dice=(1,))
    entry = next(t for t in battle_roster(c)["tanks"] if t["crew"] == "2")
    assert (entry["fights"], entry["seats"]["commander"]) == (True, None)
    decision = next(d for d in RULESET.pending(platoon_state(c)) if d.kind == "commander")
    assert decision.subject == "2"
    assert decision.options["own"] == ["2G", "2L", "2D", "2A"]
    other = CommanderChoices.model_validate(decision.options).other
    assert "1C" not in other and "1G" in other
    assert decision.options["wait"] is True


def test_the_crews_own_man_keeps_skill_steadiness_and_trust_exactly() -> None:
    c = campaign(drop=("1C",), edit={"1G": {"skill": 73, "steadiness": 40, "trust": 61,
                                            "fatigue": 12, "years_with_crew": 2}})
    before = platoon_state(c).men["1G"]
    c = run(c, FillCommander(expected_version=c.version, crew="1", man="1G"))
    after = platoon_state(c).men["1G"]
    assert (after.skill, after.steadiness, after.trust, after.fatigue) == (73, 40, 61, 12)
    assert after == replace(before, seat=Seat.COMMANDER)
    assert platoon_state(c).crews["1"].seats[Seat.COMMANDER] == "1G"
    assert platoon_state(c).crews["1"].seats[Seat.GUNNER] is None    # his own seat empties in turn
    assert cohesion(c, "1", "2") == [60, 60]                # not a stranger


def test_a_man_from_another_crew_costs_the_receiving_crew_only() -> None:
    c = campaign(drop=("1C",), edit={"2L": {"skill": 66, "steadiness": 25, "trust": 70}})
    c = run(c, FillCommander(expected_version=c.version, crew="1", man="2L"))
    moved = platoon_state(c).men["2L"]
    assert (moved.crew, moved.seat, moved.skill, moved.steadiness, moved.trust) == (
        "1", Seat.COMMANDER, 66, 25, 70)
    assert moved.years_with_crew == 0 and not moved.stayed
    assert platoon_state(c).crews["2"].seats[Seat.LOADER] is None
    assert cohesion(c, "1", "2", "3") == [60 - 15, 60, 60]  # the crew he left keeps what it had


def test_another_crews_commander_cannot_be_brought_over() -> None:
    c = campaign(drop=("1C",))
    refuse(c, FillCommander(expected_version=c.version, crew="1", man="2C"), IllegalNowError,
           "commands crew 2")
    refuse(c, FillCommander(expected_version=c.version, crew="2", man="1G"), IllegalNowError,
           "has a commander")
    refuse(c, FillCommander(expected_version=c.version, crew="9", man="1G"), UnknownIdError)
    refuse(c, FillCommander(expected_version=c.version, crew="1", man="nobody"), UnknownIdError)
    c = campaign(drop=("1C",), extra=[man("U1", "commander")])
    refuse(c, FillCommander(expected_version=c.version, crew="1", man="U1"), IllegalNowError,
           "not serving")


def test_the_commanders_seat_may_wait() -> None:
    c = campaign(drop=("1C",))
    assert [d.key for d in RULESET.pending(platoon_state(c))] == ["commander:1"]
    c = run(c, WaitCommander(expected_version=c.version, crew="1"))
    assert RULESET.pending(platoon_state(c)) == []
    assert platoon_state(c).crews["1"].seats[Seat.COMMANDER] is None
    assert "1" in platoon_state(c).fit_crews()                     # it fights uncommanded
    c = quiet_day(c)
    # Asked again the next day.
    assert [d.key for d in RULESET.pending(platoon_state(c))] == ["commander:1"]
    refuse(c, WaitCommander(expected_version=c.version, crew="2"), IllegalNowError)


def test_an_evening_in_camp_raises_a_commanders_trust_stand_in() -> None:
    c = campaign(action_days=(), edit={"1C": {"trust": 50}, "1G": {"trust": 50},
                                       "2C": {"trust": 100}})
    c = rest(c)
    assert [platoon_state(c).men[i].trust for i in ("1C", "1G", "2C")] == [51, 50, 100]


def test_the_lieutenants_trust_in_himself_does_not_grow() -> None:
    c = campaign(action_days=(), edit={"1C": {"trust": 50, "lieutenant": True},
                                       "2C": {"trust": 50}})
    c = rest(c)
    assert [platoon_state(c).men[i].trust for i in ("1C", "2C")] == [50, 51]


# -- 14.9 The year ---------------------------------------------------------------------------------


def test_the_year_every_step_in_order_as_one_event() -> None:
    crews = ("1", "2", "3", "4", "5")
    c = campaign(crews, action_days=(1,), drop=("3C", "5C"), parameters={"morale.start": 85},
                 edit={"1C": {"lieutenant": True}, "1G": {"skill": 65}, "2G": {"skill": 80},
                       "3G": {"skill": 62}, "4G": {"skill": 70}, "2D": {"skill": 93},
                       "1A": {"years_with_crew": 2}, "4A": {"years_with_crew": 2}})
    c = run(c, report(c, [tank("1", 88), tank("2", 70, result="hit"), tank("3"),
                          tank("4", 40, result="knocked_out", ordnance_days=20), tank("5")],
                      {"1C": "killed", "2L": "light"}, objective=True), dice=(3, 2))
    # 1C's commander request lands on day 6; 2L is fit on day 5; t4 is at ordnance.
    assert platoon_state(c).morale == 85 - 10 - 4 + 10 + 0
    c = run(c, FillCommander(expected_version=c.version, crew="5", man="4A"))
    assert cohesion(c, "1", "2", "3", "4", "5") == [90, 72, 62, 42, 62 - 15]
    state = platoon_state(c)
    pending_tanks = {cid: state.tanks[t].name for cid, cr in state.crews.items()
                     if (t := cr.tank)}
    assert pending_tanks == {"1": "Able", "2": "Baker", "3": "Charlie", "5": "Easy"}
    before = c
    c = run(c, YearEnd(expected_version=c.version), dice=(
        1, *GREEN,           # the pending commander lands (a depot man)
        *GREEN, *GREEN))     # Naples: crew 2's gunner, crew 4's assistant driver
    assert c.version == before.version + 1 and c.events[-1].type == "year_end"
    s, old = platoon_state(c), platoon_state(before)
    assert (s.year, s.day) == (2, 2)
    # Each man a year older, fatigue gone, light wound healed, skill up a little to its cap.
    for ident, m in old.men.items():
        if m.status in (Status.KILLED, Status.EVACUATED):
            assert s.men[ident] == m
            continue
        assert s.men[ident].age == m.age + 1
        assert s.men[ident].fatigue == 0 and s.men[ident].wound is Wound.NONE
        assert s.men[ident].skill == min(95, m.skill + 5)
        assert s.men[ident].steadiness == m.steadiness
    assert s.men["2D"].skill == 95 and s.men["2L"].fit_day is None
    # A year with his crew for those who stayed: 4A moved to crew 5 this year.
    assert (s.men["1A"].years_with_crew, s.men["4A"].years_with_crew) == (3, 0)
    assert s.men["2C"].years_with_crew == 1
    # Morale up to its cap.
    assert s.morale == 90
    # The pending arrival landed before seats were filled and took crew 1's commander seat.
    (arrival,) = [m for m in new_men(before, c) if m.trade is Seat.COMMANDER]
    assert not s.requests
    assert s.crews["1"].seats[Seat.COMMANDER] == arrival.id
    assert arrival.lieutenant                      # the lieutenant's replacement
    # No one left unassigned: crew 3's commander seat goes to the platoon's best gunner (2G).
    assert s.crews["3"].seats[Seat.COMMANDER] == "2G"
    assert (s.men["2G"].skill, s.men["2G"].crew) == (85, "3")
    # Every other empty seat: no unassigned man of that trade, so green men from Naples.
    naples = [m for m in new_men(before, c) if m.id != arrival.id]
    assert [(m.trade, m.crew, m.seat) for m in naples] == [
        (Seat.GUNNER, "2", Seat.GUNNER), (Seat.ASSISTANT_DRIVER, "4", Seat.ASSISTANT_DRIVER)]
    assert all(m.steadiness == 0 and m.skill == 40 and not m.transfer for m in naples)
    purposes = [r.purpose for r in rolls(c)]
    assert purposes[0] == "commander arriving: from another unit?"
    assert purposes[1].startswith("depot replacement: ")
    assert all(p.startswith("green replacement from Naples: ") for p in purposes[11:])
    assert len(purposes) == 1 + 5 + 5 + 5
    # Each crew's cohesion up (+10, cap 90), then a stranger's cost where one sat down.
    assert cohesion(c, "1", "2", "3", "4", "5") == [90 - 15, 82 - 15, 72 - 15, 52 - 15, 57]
    assert all(not any(m is None for m in cr.seats.values()) for cr in s.crews.values())
    # Five new tanks, the old name kept where the old tank was fit.
    new_tanks = {cid: s.tanks[t] for cid, cr in s.crews.items() if (t := cr.tank)}
    assert len(new_tanks) == 5
    assert all(t.id not in old.tanks and t.status is TankStatus.WITH_CREW
               for t in new_tanks.values())
    assert {cid: t.name for cid, t in new_tanks.items() if cid != "4"} == pending_tanks
    assert new_tanks["4"].name != "Dog" and new_tanks["4"].name in RULES.names.tanks
    assert {t.status for i, t in s.tanks.items() if i in old.tanks} == {TankStatus.RETIRED}


def test_a_roster_of_draftees_starts_at_nothing() -> None:
    from rallypoint.rulesets.platoon.scenario import PlatoonInfo, PlatoonScenario, expand

    draftees = expand(PlatoonScenario(platoon=PlatoonInfo(seed="s", veteran_percent=0)))
    assert {m["steadiness"] for m in draftees["men"]} == {0}
    seasoned = expand(PlatoonScenario(platoon=PlatoonInfo(seed="s")))
    assert min(m["steadiness"] for m in seasoned["men"]) > 0, "veteran_percent 30: a choice"


def test_by_trade_seats_an_arriving_commander_in_the_seat_left_empty() -> None:
    # Crew 1's loader stepped up to command earlier; a commander arrives: no commander seat is
    # empty, so he sits in the seat left empty, and nobody is bumped.
    c = campaign(action_days=(), drop=("1L",), extra=[man("C9", "commander")])
    (decision,) = RULESET.pending(platoon_state(c))
    command = RULESET.policies()[0].decide(platoon_state(c), decision, c.version)
    assert isinstance(command, PlaceMan)
    assert (command.man, command.crew, command.seat) == ("C9", "1", Seat.LOADER)


def test_the_year_ends_once_after_its_calendar() -> None:
    c = campaign(action_days=(1, 3))
    refuse(c, YearEnd(expected_version=c.version), IllegalNowError,
           "year 1's calendar still holds 2 action\\(s\\), the next on day 1")
    c = quiet_day(c)                                              # day 1 fought
    c = rest(c)                                                   # day 2
    refuse(c, YearEnd(expected_version=c.version), IllegalNowError, "the next on day 3")
    c = quiet_day(c)                                              # day 3: the last action
    c = run(c, YearEnd(expected_version=c.version), dice=())
    assert (platoon_state(c).year, platoon_state(c).day, platoon_state(c).year_start) == (2, 4, 4)
    # The next year's calendar, laid out from its first day: the same days, counted from day 4.
    assert platoon_state(c).action_days == (1, 3, 4, 6)
    # Not twice: year 2's calendar is still to come.
    refuse(c, YearEnd(expected_version=c.version), IllegalNowError,
           "year 2's calendar still holds 2 action")


def test_an_empty_calendar_still_ends_a_year_only_once_a_day() -> None:
    c = campaign(action_days=())
    c = run(c, YearEnd(expected_version=c.version))
    refuse(c, YearEnd(expected_version=c.version), IllegalNowError, "year 2 began today")
    c = rest(c)
    c = run(c, YearEnd(expected_version=c.version))
    assert platoon_state(c).year == 3


def test_the_year_guard_and_the_calendar_are_parameters() -> None:
    off = {"year.once_after_calendar": 0, "year.renew_calendar": 0}
    c = campaign(action_days=(1, 3), parameters=off)
    c = run(c, YearEnd(expected_version=c.version))
    c = run(c, YearEnd(expected_version=c.version))
    assert (platoon_state(c).year, platoon_state(c).action_days) == (3, (1, 3))


def test_the_year_clears_an_unassigned_mans_fatigue() -> None:
    c = campaign(action_days=(), extra=[man("U1", "loader", fatigue=40)])
    assert platoon_state(c).men["U1"].status is Status.UNASSIGNED
    c = run(c, YearEnd(expected_version=c.version))
    state = platoon_state(c)
    assert (state.men["U1"].fatigue, state.men["U1"].status) == (0, Status.UNASSIGNED)


def test_a_gunner_promoted_within_his_own_crew_is_no_stranger() -> None:
    # Crew 2 has no commander and nobody waits: its own gunner is the platoon's best and steps
    # up; crew 2 pays no stranger's cohesion for him (only for the green gunner from Naples).
    c = campaign(("1", "2"), action_days=(), drop=("2C",), edit={"2G": {"skill": 90}})
    c = run(c, YearEnd(expected_version=c.version), dice=GREEN)
    s = platoon_state(c)
    assert s.crews["2"].seats[Seat.COMMANDER] == "2G"
    assert cohesion(c, "1", "2") == [70, 70 - 15]
    green = s.men[str(s.crews["2"].seats[Seat.GUNNER])]
    assert (green.trade, green.skill) == (Seat.GUNNER, 40)


def test_commander_seats_draw_from_naples_before_other_seats() -> None:
    # Two crews; 2C, 1G and 2G gone, nobody waiting: no gunner to promote. Crew 2's commander
    # seat draws a green commander from Naples first; then the gunner seats.
    c = campaign(("1", "2"), action_days=(), drop=("2C", "1G", "2G"))
    before = c
    c = run(c, YearEnd(expected_version=c.version), dice=GREEN * 3)
    s = platoon_state(c)
    assert all(m is not None for cr in s.crews.values() for m in cr.seats.values())
    arrivals = [(m.trade, m.crew, m.seat) for m in new_men(before, c)]
    assert arrivals == [(Seat.COMMANDER, "2", Seat.COMMANDER), (Seat.GUNNER, "1", Seat.GUNNER),
                        (Seat.GUNNER, "2", Seat.GUNNER)]
    old = campaign(("1", "2"), action_days=(), drop=("2C", "1G", "2G"),
                   parameters={"year.naples_commanders": 0})
    old = run(old, YearEnd(expected_version=old.version), dice=GREEN * 2)
    assert platoon_state(old).crews["2"].seats[Seat.COMMANDER] is None


def test_the_year_promotes_the_best_gunner_before_an_unassigned_man_of_another_trade() -> None:
    # 14.9 read with "every other empty seat ... from the unassigned men of that seat": the
    # unassigned who fill a commander's seat are commanders. None waits, so the best gunner
    # (1G and 2G tie at 60: the first) is promoted, a stranger to crew 2; his seat takes the
    # unassigned gunner, and the loaders wait for a loader's seat (crew 1's takes the best).
    c = campaign(("1", "2"), action_days=(), drop=("1L", "2C"),
                 extra=[man("L1", "loader", skill=50), man("L2", "loader", skill=55),
                        man("G1", "gunner", skill=45), man("A1", "assistant_driver",
                                                           skill=90)])
    c = run(c, YearEnd(expected_version=c.version))
    s = platoon_state(c)
    assert s.crews["2"].seats[Seat.COMMANDER] == "1G"
    assert s.crews["1"].seats[Seat.GUNNER] == "G1"
    assert s.crews["1"].seats[Seat.LOADER] == "L2"
    assert [m.id for m in s.unassigned()] == ["L1", "A1"]
    assert s.crews["2"].cohesion == 60 + 10 - 15  # the year's step, then a stranger


def test_the_year_fills_seats_from_the_unassigned_before_naples() -> None:
    # year.commanders_by_trade = 0 (and every campaign created before it): any unassigned man.
    c = campaign(("1", "2"), action_days=(), drop=("1L", "1D", "2C"),
                 extra=[man("L1", "loader", skill=50), man("L2", "loader", skill=55),
                        man("G1", "gunner", skill=45)],
                 parameters={"year.commanders_by_trade": 0})
    before = c
    c = run(c, YearEnd(expected_version=c.version), dice=GREEN)
    s = platoon_state(c)
    # The commander seat takes the most skilled unassigned man of any trade (commanders first).
    assert s.crews["2"].seats[Seat.COMMANDER] == "L2"
    # Other seats: the unassigned of that trade ...
    assert s.crews["1"].seats[Seat.LOADER] == "L1"
    # ... else a green replacement from Naples; the unassigned gunner is no driver.
    (green,) = new_men(before, c)
    assert (green.trade, green.crew, green.seat, green.skill) == (
        Seat.DRIVER, "1", Seat.DRIVER, 40)
    assert s.men["G1"].status is Status.UNASSIGNED


def test_the_year_prefers_an_unassigned_commander_for_the_commanders_seat() -> None:
    c = campaign(("1", "2"), action_days=(), drop=("2C",),
                 extra=[man("L1", "loader", skill=90), man("C1", "commander", skill=30)])
    c = run(c, YearEnd(expected_version=c.version))
    assert platoon_state(c).crews["2"].seats[Seat.COMMANDER] == "C1"
    assert platoon_state(c).men["L1"].status is Status.UNASSIGNED


# -- The battle boundary ---------------------------------------------------------------------------


def test_report_refusals_change_nothing() -> None:
    c = campaign(("1", "2", "3", "4"), action_days=(1, 2), tankless=("4",))
    c = run(c, report(c, men={"1L": "killed"}), dice=(1,))
    cases: list[tuple[IngestReport, type[RallypointError], str]] = [
        (report(c, men={"nobody": "light"}), MalformedInputError, "no man 'nobody'"),
        (report(c, men={"1L": "unhurt"}), IllegalNowError, "killed: he cannot fight"),
        (report(c, men={"4G": "light"}), IllegalNowError, "not in a fighting tank"),
        (report(c, [tank("1"), tank("2"), tank("3"), tank("4")]), IllegalNowError,
         "crew 4 did not fight"),
        (report(c, [tank("1"), tank("2")]), MalformedInputError, "leaves out crew"),
        (report(c, [tank("1"), tank("2"), tank("3"), tank("2")]), MalformedInputError,
         "reported twice"),
        (report(c, [tank("1"), tank("2"), tank("9")]), MalformedInputError, "no crew '9'"),
        (report(c, [tank("1", result="hit", ordnance_days=3), tank("2"), tank("3")]),
         MalformedInputError, "ordnance_days"),
        (report(c, [tank("1", result="knocked_out"), tank("2"), tank("3")]),
         MalformedInputError, "ordnance_days"),
    ]
    for command, error, match in cases:
        refuse(c, command, error, match)
    twice = BattleReport.model_validate({
        "day": 2, "tanks": [tank("1"), tank("2"), tank("3")],
        "men": [{"man": "1G", "result": "light"}, {"man": "1G", "result": "unhurt"}]})
    refuse(c, IngestReport(expected_version=c.version, report=twice), MalformedInputError,
           "reported twice")
    in_two = BattleReport.model_validate({
        "day": 2, "tanks": [tank("1"), tank("2"), tank("3")],
        "men": [{"man": "2G", "result": "light"}, {"man": "2G", "result": "killed"}]})
    refuse(c, IngestReport(expected_version=c.version, report=in_two), MalformedInputError,
           "in two tanks")
    wrong_day = BattleReport.model_validate({"day": 1, "tanks": [tank("1"), tank("2"),
                                                                   tank("3")]})
    refuse(c, IngestReport(expected_version=c.version, report=wrong_day), IllegalNowError,
           "report is for day 1")
    schema = BattleReport.model_validate({"schema": "rallypoint.platoon.report/0", "day": 2,
                                          "tanks": [tank("1"), tank("2"), tank("3")]})
    refuse(c, IngestReport(expected_version=c.version, report=schema), MalformedInputError,
           "schema")
    with pytest.raises(MalformedInputError, match="cohesion"):
        RULESET.parse_command({"kind": "report", "expected_version": c.version, "report": {
            "day": 2, "tanks": [{"crew": "1", "cohesion": 101}]}})


def test_a_withdrawn_platoon_or_a_quiet_day_reports_no_fight() -> None:
    c = campaign(action_days=(1,), drop=("2D", "2A", "3D", "3A"))
    refuse(c, report(c, [tank("1")]), IllegalNowError, "withdrawn to refit: it did not fight")
    c = campaign(action_days=(2,))
    refuse(c, report(c, [tank("1"), tank("2"), tank("3")]), IllegalNowError, "holds no action")


def test_undo_of_a_day_restores_the_previous_state() -> None:
    c = campaign()
    first = snapshot(c)
    c = run(c, report(c, [tank("1", 40, result="written_off"), tank("2"), tank("3")],
                      {"1G": "killed", "1L": "light"}, objective=True), dice=(2, 1, 3))
    fought = snapshot(c)
    assert fought != first
    c = c.undo()
    assert snapshot(c) == first
    c = run(c, report(c), ())
    c = c.undo()
    assert snapshot(c) == first
    assert snapshot(Campaign.from_events(c.events)) == first


def test_stale_and_unknown_decisions_are_refused() -> None:
    c = campaign(drop=("1G",), extra=[man("U1", "gunner")])
    refuse(c, PlaceMan(expected_version=c.version, man="U1", crew="2", seat=Seat.GUNNER),
           IllegalNowError, "not empty")
    refuse(c, PlaceMan(expected_version=c.version, man="1C", crew="1", seat=Seat.GUNNER),
           IllegalNowError, "not waiting")
    refuse(c, PlaceMan(expected_version=c.version, man="U9", crew="1", seat=Seat.GUNNER),
           UnknownIdError)
    refuse(c, AssignTank(expected_version=c.version, tank="t1", crew="2"), IllegalNowError,
           "not waiting in the park")


# -- Replacing a stand-in --------------------------------------------------------------------------


def test_a_stand_in_is_replaced_through_hooks() -> None:
    c = campaign(drop=("1G",), extra=[man("U1", "gunner")])
    command = PlaceMan(expected_version=c.version, man="U1", crew="1", seat=Seat.GUNNER)
    harsh = Hooks(cohesion_after_stranger=lambda cohesion, rules: 0,
                  effective_skill=lambda m, rules: 0)
    after = transition(platoon_state(c), command, pd.Recorder(ScriptedRoller([])), harsh)
    assert after.crews["1"].cohesion == 0
    default = transition(platoon_state(c), command, pd.Recorder(ScriptedRoller([])), RULESET.hooks)
    assert default.crews["1"].cohesion == 45
    assert effective_skill(platoon_state(c).men["1C"], RULES) == 60


# -- The coverage matrix ---------------------------------------------------------------------------


def test_coverage_matrix_is_complete() -> None:
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "rules" / "platoon.md").read_text(encoding="utf-8")
    files = {"R": "test_platoon_rules.py", "P": "test_platoon_properties.py",
             "G": "test_platoon_golden.py", "C": "test_platoon_cli.py"}
    defined = {key: set(re.findall(r"^def (test_\w+)", (root / "tests" / name).read_text(
        encoding="utf-8"), re.M)) for key, name in files.items()}
    cited = re.findall(r"`([RPGC])::(test_\w+)", doc)
    assert cited
    for key, name in cited:
        assert name in defined[key], f"docs/rules/platoon.md cites {key}::{name}, which is gone"
    assert defined["R"] <= {name for key, name in cited if key == "R"}, "an uncited rules test"
    data = tomllib.loads((root / "src" / "rallypoint" / "rulesets" / "platoon" / "data.toml")
                        .read_text(encoding="utf-8"))
    for section, body in data.items():
        for key in body:
            if key != "source" and section not in ("section8", "names"):
                assert f"`{section}.{key}`" in doc, f"{section}.{key} is not in the table"
    matrix = doc.split("## Clauses")[1].split("\n## ")[0]
    clauses = [int(n) for n in re.findall(r"^\| (\d+) \|", matrix, re.M)]
    assert clauses == list(range(39)), "the clause rows are numbered in seed order"
