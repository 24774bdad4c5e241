"""14.9 The year: one atomic step, in the order the seed gives."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from rallypoint.rulesets.platoon.model import (
    SEATS,
    PlatoonState,
    Seat,
    Status,
    Tank,
    TankStatus,
    Wound,
)
from rallypoint.rulesets.platoon.v1 import dice as pd
from rallypoint.rulesets.platoon.v1.people import (
    fresh_id,
    land_arrivals,
    new_man,
    seat_man,
    tank_name,
    vacate,
)
from rallypoint.rulesets.platoon.v1.section9 import Hooks


def year_end(state: PlatoonState, dice: pd.Recorder, hooks: Hooks) -> PlatoonState:
    """Each step of 14.9 in order; see docs/rules/platoon.md for the readings."""
    rules = state.rules
    cap = rules.n("year", "skill_cap")
    men = {}
    for man_id, man in state.men.items():
        if man.status in (Status.KILLED, Status.EVACUATED):
            men[man_id] = man
            continue
        men[man_id] = replace(
            man, age=man.age + 1, fatigue=0, wound=Wound.NONE, fit_day=None,
            skill=max(man.skill, min(cap, man.skill + rules.n("year", "skill_per_year"))),
            years_with_crew=man.years_with_crew + (1 if man.stayed and man.crew else 0),
            stayed=True)
    ccap = rules.n("cohesion", "cap")
    crews = {c.id: replace(c, cohesion=max(c.cohesion, min(ccap, c.cohesion + rules.n(
        "cohesion", "per_year")))) for c in state.crews.values()}
    morale = max(state.morale, min(rules.n("morale", "cap"),
                                   state.morale + rules.n("morale", "per_year")))
    state = replace(state, men=men, crews=crews, morale=morale)
    state = land_arrivals(state, dice, every=True)
    state = _commanders(state, hooks)
    state = _other_seats(state, dice, hooks)
    state = _new_tanks(state)
    return replace(state, year=state.year + 1)


def _commanders(state: PlatoonState, hooks: Hooks) -> PlatoonState:
    for crew_id in list(state.crews):
        if state.crews[crew_id].seats[Seat.COMMANDER] is not None:
            continue
        waiting = sorted(state.unassigned(), key=lambda m: (m.trade is not Seat.COMMANDER,
                                                             -m.skill, m.id))
        if waiting:
            state = seat_man(state, waiting[0], crew_id, Seat.COMMANDER, hooks, stranger=True)
            continue
        gunners = sorted((m for m in state.men.values()
                          if m.status is Status.SERVING and m.seat is Seat.GUNNER),
                         key=lambda m: (-m.skill, m.id))
        if gunners:
            best = gunners[0]
            state = seat_man(vacate(state, best), best, crew_id, Seat.COMMANDER, hooks,
                             stranger=best.crew != crew_id)
    return state


def _other_seats(state: PlatoonState, dice: pd.Recorder, hooks: Hooks) -> PlatoonState:
    for crew_id in list(state.crews):
        for seat in SEATS[1:]:
            if state.crews[crew_id].seats[seat] is not None:
                continue
            same = sorted((m for m in state.unassigned() if m.trade is seat),
                          key=lambda m: (-m.skill, m.id))
            if same:
                man = same[0]
            else:
                state, man = new_man(state, seat, Fraction(0), dice,
                                     "green replacement from Naples")
            state = seat_man(state, man, crew_id, seat, hooks, stranger=True)
    return state


def _new_tanks(state: PlatoonState) -> PlatoonState:
    tanks = {t.id: replace(t, status=TankStatus.RETIRED, crew=None, return_day=None)
             if t.status is not TankStatus.WRITTEN_OFF else t for t in state.tanks.values()}
    old_tanks = state.tanks
    state = replace(state, tanks=tanks)
    for crew in list(state.crews.values()):
        old = old_tanks.get(crew.tank) if crew.tank else None
        state, tank_id = fresh_id(state, "t")
        # 14.9: the old name is kept where the old tank was fit (with its crew, not at ordnance).
        fit = old is not None and old.status is TankStatus.WITH_CREW
        name = old.name if old is not None and fit else tank_name(state)
        state = state.with_tank(Tank(id=tank_id, name=name, status=TankStatus.WITH_CREW,
                                     crew=crew.id))
        state = state.with_crew(replace(crew, tank=tank_id))
    return replace(state, requests=tuple(r for r in state.requests if r.kind != "tank"))
