"""The day cycle: a battle's aftermath (14.1–14.7), a day out of action, the evening, the morning.

Each function is a pure transition ``state → state``; rolls go through a
:class:`~rallypoint.rulesets.platoon.dice.Recorder`, so ``decide`` and ``apply`` run the very same
code (apply replays the recorded faces).
"""

from __future__ import annotations

from dataclasses import replace

from rallypoint.dice import fraction_text
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.battle import BattleReport, ManResult, TankResult, check_report
from rallypoint.rulesets.platoon.model import (
    Man,
    PlatoonState,
    Seat,
    Status,
    TankStatus,
    Wound,
)
from rallypoint.rulesets.platoon.people import file_request, land_arrivals, vacate
from rallypoint.rulesets.platoon.section9 import Hooks


def _clamp(value: int, top: int = 100) -> int:
    return max(0, min(top, value))


def fight(state: PlatoonState, report: BattleReport, dice: pd.Recorder,
          hooks: Hooks) -> PlatoonState:
    """Take a battle report back: fatigue, wounds, steadiness, tanks, cohesion, morale, requests;
    then the evening and the next morning."""
    check_report(state, report)
    rules = state.rules
    by_crew = {t.crew: t for t in report.tanks}
    results = {m.man: m.result for m in report.men}
    morale: list[int] = []  # the battle's morale changes in the seed's order (14.5)
    # Fatigue for every man who fought, and steadiness for each one who survives (14.2), in one
    # pass: a battle touches every man, so the men are rebuilt once rather than one by one.
    per_battle = rules.n("steadiness", "per_battle")
    tired = {}
    for crew_id, t in by_crew.items():
        hit = t.result is not TankResult.UNHIT
        out = t.bailed_out or t.result in (TankResult.KNOCKED_OUT, TankResult.WRITTEN_OFF)
        gain = rules.n("fatigue", "fight") + (rules.n("fatigue", "tank_hit") if hit else 0) + (
            rules.n("fatigue", "knocked_out") if out else 0)
        for man_id in (m for m in state.crews[crew_id].seats.values() if m):
            man = state.men[man_id]
            survives = results.get(man_id, ManResult.UNHURT) in (ManResult.UNHURT, ManResult.LIGHT)
            tired[man_id] = replace(man, fatigue=_clamp(man.fatigue + gain), steadiness=min(
                100, man.steadiness + per_battle) if survives else man.steadiness)
    state = replace(state, men={**state.men, **tired})
    for crew_id, t in by_crew.items():
        crew = state.crews[crew_id]
        state = state.with_crew(replace(state.crews[crew_id], cohesion=_clamp(t.cohesion)))
        if crew.tank is not None and t.result in (TankResult.KNOCKED_OUT, TankResult.WRITTEN_OFF):
            if _lost(state, t.result):
                morale.append(-rules.n("morale", "tank_lost"))
            tank = state.tanks[crew.tank]
            if t.result is TankResult.KNOCKED_OUT:
                assert t.ordnance_days is not None
                tank = replace(tank, status=TankStatus.ORDNANCE, crew=None,
                               return_day=state.day + t.ordnance_days)
            else:
                tank = replace(tank, status=TankStatus.WRITTEN_OFF, crew=None)
                state = file_request(state, "tank", None, f"{tank.name} written off", dice)
            state = state.with_tank(tank)
            state = state.with_crew(replace(state.crews[crew_id], tank=None))
    for crew_id in by_crew:
        for man_id in [m for m in state.crews[crew_id].seats.values() if m]:
            result = results.get(man_id, ManResult.UNHURT)
            if result is not ManResult.UNHURT:
                state = _wound(state, state.men[man_id], result, dice)
            if result is ManResult.KILLED:
                morale.append(-rules.n("morale", "man_killed"))
    if report.objective:
        morale.append(rules.n("morale", "objective"))
    if report.enemy_withdrawn:
        morale.append(rules.n("morale", "enemy_withdrawn"))
    state = replace(state, morale=_morale_after(state, morale),
                    fought=state.fought + 1)
    fought = {m for c in by_crew for m in state.crews[c].seats.values() if m}
    return morning(evening(state, hooks, rest=False, fought=fought), dice)


def _lost(state: PlatoonState, result: TankResult) -> bool:
    """14.5 "Each tank lost": knocked out or written off (parameter ``morale.knocked_out_is_lost``
    = 0: written off only, a knocked-out tank comes back from ordnance)."""
    knocked_out = state.rules.reading("morale", "knocked_out_is_lost", before=True)
    return result is TankResult.WRITTEN_OFF or knocked_out


def _morale_after(state: PlatoonState, changes: list[int]) -> int:
    """14.5: morale after one battle's changes (tanks lost, men killed, objective, enemy
    withdrawn, in that order), bounded to 0..``morale.cap``.

    The reading (docs/rules/platoon.md, "Readings"): the changes are netted, then bounded once,
    so a tank lost and an objective taken cancel even near a bound. Parameter
    ``morale.bound_each_step`` = 1 bounds after each change instead; a campaign created before
    the parameter nets.
    """
    cap = state.rules.n("morale", "cap")
    if not state.rules.reading("morale", "bound_each_step"):
        return _clamp(state.morale + sum(changes), cap)
    morale = state.morale
    for change in changes:
        morale = _clamp(morale + change, cap)
    return _clamp(morale, cap)


def _wound(state: PlatoonState, man: Man, result: ManResult, dice: pd.Recorder) -> PlatoonState:
    rules = state.rules
    if result in (ManResult.SERIOUS, ManResult.KILLED):
        state = vacate(state, man)
        status = Status.KILLED if result is ManResult.KILLED else Status.EVACUATED
        state = state.with_man(replace(man, status=status, crew=None, seat=None,
                                       wound=Wound.NONE, fit_day=None))
        # The request is for the trade of the seat he held (``replacements.request_seat_trade``
        # = 0: his own trade): a gunner commanding the tank is replaced by a commander.
        seat_trade = rules.reading("replacements", "request_seat_trade", before=True)
        trade = (man.seat or man.trade) if seat_trade else man.trade
        why = f"{man.name} {'killed' if status is Status.KILLED else 'evacuated'}"
        return file_request(state, "man", trade, why, dice, lieutenant=man.lieutenant)
    if result is ManResult.LIGHT:
        base, sides = rules.n("wounds", "light_days_base"), rules.n("wounds", "light_days_die")
        odds = pd.delay_odds(base, sides)
        r = dice.roll(pd.delay_node(f"{man.name} lightly wounded: days until fit", sides),
                      reading=lambda v: f"fit in {base + v} days",
                      odds=lambda _: ", ".join(f"{d}d {fraction_text(p)}"
                                               for d, p in odds.items()))
        fit_day = state.day + base + r.natural
        # A second light wound keeps the later fit day (``wounds.later_fit_day`` = 0: its own).
        later = rules.reading("wounds", "later_fit_day", before=True)
        man = replace(man, wound=Wound.LIGHT,
                      fit_day=max(fit_day, man.fit_day or 0) if later else fit_day,
                      light_wounds=man.light_wounds + 1)
    return state.with_man(man)


def rest(state: PlatoonState, dice: pd.Recorder, hooks: Hooks) -> PlatoonState:
    """A day out of action (or withdrawn to refit, 14.7): most fatigue back, morale up somewhat."""
    withdrawn = state.withdrawn()
    state = replace(state, morale=_clamp(state.morale + state.rules.n("morale", "rest_day"),
                                         state.rules.n("morale", "cap")),
                    fought=state.fought + (1 if withdrawn and state.rules.reading(
                        "replacements", "withdrawn_action_counts", before=True) else 0))
    return morning(evening(state, hooks, rest=True), dice)


def evening(state: PlatoonState, hooks: Hooks, rest: bool,
            fought: frozenset[str] | set[str] = frozenset()) -> PlatoonState:
    """The day's end: fatigue recovery, cohesion up a little for each crew together (14.4), an
    evening's effect on a commander's trust in the lieutenant (9.9).

    14.1 reads per man: a man who fought today gets back only the night's little; every other
    man (a rest day, or a crew that sat the action out) had a day out of action and gets most of
    it back.
    """
    rules = state.rules
    fresh = rules.reading("fatigue", "rest_rounds_up")
    per_man = rules.reading("fatigue", "night_per_man", before=True)
    together = rest or rules.reading("cohesion", "battle_evening", before=True)
    men = {}
    for man_id, man in state.men.items():
        if man.status in (Status.KILLED, Status.EVACUATED):
            men[man_id] = man
            continue
        # 14.1 per man (``fatigue.night_per_man`` = 0: after an action every man has the night).
        night = not rest and (man_id in fought or not per_man)
        pct = rules.n("fatigue", "night_recovery" if night else "rest_recovery")
        fatigue = man.fatigue - _given_back(man.fatigue, pct, up=not night and fresh)
        # The lieutenant's trust in himself does not grow: 9.9 is about the other commanders.
        commander = man.seat is Seat.COMMANDER and not man.lieutenant
        trust = hooks.evening_trust(man.trust, rules) if commander else man.trust
        changed = fatigue != man.fatigue or trust != man.trust
        men[man_id] = replace(man, fatigue=fatigue, trust=trust) if changed else man
    cap = rules.n("cohesion", "cap")
    crews = {
        c.id: replace(c, cohesion=max(c.cohesion, min(cap, c.cohesion + rules.n(
            "cohesion", "per_day")))) if any(c.seats.values()) and together else c
        for c in state.crews.values()
    }
    return replace(state, men=men, crews=crews)


def _given_back(fatigue: int, pct: int, up: bool) -> int:
    """The fatigue a day or a night gives back: ``pct`` percent of it, rounded up after a day out
    of action (14.1 'rested men start fresh': rest reaches 0) and down after a night."""
    return -(-fatigue * pct // 100) if up else fatigue * pct // 100


def morning(state: PlatoonState, dice: pd.Recorder) -> PlatoonState:
    """The next morning: arrivals land, tanks back from ordnance wait in the park, light wounds
    heal."""
    state = replace(state, day=state.day + 1, deferred=frozenset())
    state = land_arrivals(state, dice)
    for tank in list(state.tanks.values()):
        if tank.status is TankStatus.ORDNANCE and tank.return_day is not None \
                and tank.return_day <= state.day:
            state = state.with_tank(replace(tank, status=TankStatus.PARK, return_day=None))
    for man in list(state.men.values()):
        if man.status in (Status.KILLED, Status.EVACUATED):
            continue
        if man.wound is Wound.LIGHT and man.fit_day is not None and man.fit_day <= state.day:
            state = state.with_man(replace(man, wound=Wound.NONE, fit_day=None))
    return state
