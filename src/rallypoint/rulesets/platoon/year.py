"""14.9 The year: one atomic step, in the order the seed gives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction

from rallypoint.core.errors import IllegalNowError
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.fixes import FixKind, fix
from rallypoint.rulesets.platoon.model import (
    SEATS,
    Man,
    PlatoonState,
    Seat,
    Status,
    Tank,
    TankStatus,
    Wound,
)
from rallypoint.rulesets.platoon.people import (
    fresh_id,
    land_arrivals,
    new_man,
    seat_man,
    tank_name,
    vacate,
)
from rallypoint.rulesets.platoon.section9 import Hooks


def check_year_end(state: PlatoonState) -> None:
    """14.9 comes once, after the year's calendar (parameter ``year.once_after_calendar``).

    Raises:
        IllegalNowError: An action of this year is still to come, or the year has just ended.
    """
    if not state.rules.reading("year", "once_after_calendar"):
        return
    ahead = [d for d in state.action_days if d >= max(state.day, state.year_start)]
    if ahead:
        raise IllegalNowError(
            f"year {state.year}'s calendar still holds {len(ahead)} action(s), the next on day "
            f"{ahead[0]} (today is day {state.day})",
            fix=f"Play the year out first: the year ends after day {ahead[-1]}.")
    if state.year > 1 and state.day == state.year_start:
        raise IllegalNowError(
            f"year {state.year} began today (day {state.day}): the year ends once, after its "
            "calendar", fix=fix(FixKind.PLAY_NEW_YEAR),
            instead="rest")


def year_end(state: PlatoonState, dice: pd.Recorder, hooks: Hooks) -> PlatoonState:
    """Each step of 14.9 in order; see docs/rules/platoon.md for the readings."""
    check_year_end(state)
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
    state = _commanders(state, dice, hooks)
    state = _other_seats(state, dice, hooks)
    state = _new_tanks(state)
    return _next_calendar(replace(state, year=state.year + 1))


def _next_calendar(state: PlatoonState) -> PlatoonState:
    """The next year's calendar (parameter ``year.renew_calendar``): this year's action days,
    counted from today as the new year's first day."""
    if not state.rules.reading("year", "renew_calendar"):
        return state
    pattern = [d - state.year_start for d in state.action_days if d >= state.year_start]
    ahead = tuple(state.day + offset for offset in pattern)
    return replace(state, year_start=state.day,
                   action_days=tuple(sorted({*state.action_days, *ahead})))


def _commanders(state: PlatoonState, dice: pd.Recorder, hooks: Hooks) -> PlatoonState:
    """14.9 "empty commander seats are filled from the unassigned and then by promoting the
    platoon's best gunner": see :func:`_waiting_commanders` for who counts as unassigned."""
    for crew_id in list(state.crews):
        if state.crews[crew_id].seats[Seat.COMMANDER] is not None:
            continue
        waiting = _waiting_commanders(state)
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
        elif state.rules.reading("year", "naples_commanders"):
            # No one to place or promote: the commander's seat draws from Naples first, before
            # any other seat does (the text fills commander seats before the rest).
            state, man = new_man(state, Seat.COMMANDER, Fraction(0), dice,
                                 "green replacement from Naples")
            state = seat_man(state, man, crew_id, Seat.COMMANDER, hooks, stranger=True)
    return state


def _waiting_commanders(state: PlatoonState) -> list[Man]:
    """The unassigned men who may fill an empty commander seat at the year's end, best first.

    The reading (docs/rules/platoon.md, "Readings"): 14.9 fills "every other empty seat ... from
    the unassigned men of that seat", so "filled from the unassigned" for a commander's seat
    means the unassigned *commanders*; the best gunner is promoted before an unassigned loader
    or driver would take command, and those wait for a seat of their own trade. Parameter
    ``year.commanders_by_trade`` = 0 (and a campaign created before it) takes any unassigned
    man, commanders first, then the most skilled.
    """
    waiting = state.unassigned()
    if state.rules.reading("year", "commanders_by_trade"):
        waiting = [m for m in waiting if m.trade is Seat.COMMANDER]
    return sorted(waiting, key=lambda m: (m.trade is not Seat.COMMANDER, -m.skill, m.id))


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
        old = _old_tank(state, old_tanks, crew.id)
        state, tank_id = fresh_id(state, "t")
        # 14.9: the old name is kept where the old tank was fit (with its crew, not at ordnance;
        # or repaired and waiting in the park for it, by the reading in _old_tank).
        fit = old is not None and old.status in (TankStatus.WITH_CREW, TankStatus.PARK)
        name = old.name if old is not None and fit else tank_name(state)
        state = state.with_tank(Tank(id=tank_id, name=name, status=TankStatus.WITH_CREW,
                                     crew=crew.id, own_crew=crew.id))
        state = state.with_crew(replace(crew, tank=tank_id))
    return replace(state, requests=tuple(r for r in state.requests if r.kind != "tank"))


def _old_tank(state: PlatoonState, old_tanks: Mapping[str, Tank], crew_id: str) -> Tank | None:
    """A crew's old tank for 14.9's "the old name kept where the old tank was fit".

    The tank with the crew; for a crew without one, the reading (docs/rules/platoon.md,
    "Readings"): its own tank back from ordnance, repaired and waiting in the park, was fit (it
    fights as soon as it is given back). Parameter ``year.repaired_tank_keeps_name`` = 0 (and a
    campaign created before it) counts only a tank with its crew.
    """
    crew = state.crews[crew_id]
    if crew.tank is not None:
        return old_tanks.get(crew.tank)
    if not state.rules.reading("year", "repaired_tank_keeps_name"):
        return None
    return next((t for t in old_tanks.values()
                 if t.own_crew == crew_id and t.status is TankStatus.PARK), None)
