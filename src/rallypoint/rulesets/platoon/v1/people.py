"""Men and tanks coming and going: replacements (14.6), placing men, the commander's seat (14.8),
giving park tanks to crews."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.dice import fraction_text
from rallypoint.rulesets.platoon.data import ATTRIBUTES
from rallypoint.rulesets.platoon.model import (
    Man,
    PlatoonState,
    Request,
    Seat,
    Status,
    Tank,
    TankStatus,
)
from rallypoint.rulesets.platoon.v1 import dice as pd
from rallypoint.rulesets.platoon.v1.section9 import Hooks


def next_name(state: PlatoonState) -> tuple[PlatoonState, str]:
    """The next surname from the list (numbered after the list runs out)."""
    names = state.rules.names.surnames
    n = state.names_used
    name = names[n % len(names)] + ("" if n < len(names) else f" {n // len(names) + 1}")
    return replace(state, names_used=n + 1), name


def fresh_id(state: PlatoonState, prefix: str) -> tuple[PlatoonState, str]:
    """A new man or tank id (``m026``, ``t031``) that no man or tank already has."""
    serial = state.serial
    while f"{prefix}{serial:03d}" in state.men or f"{prefix}{serial:03d}" in state.tanks:
        serial += 1
    return replace(state, serial=serial + 1), f"{prefix}{serial:03d}"


def tank_name(state: PlatoonState) -> str:
    """The first name on the list that no tank of the platoon bears or has borne (numbered once
    every name has been used), so two tanks never answer to one name."""
    taken = {t.name for t in state.tanks.values()}
    names = state.rules.names.tanks
    round_ = 1
    while True:
        for name in names:
            candidate = name if round_ == 1 else f"{name} {round_}"
            if candidate not in taken:
                return candidate
        round_ += 1


def new_man(state: PlatoonState, trade: Seat, progress: Fraction, dice: pd.Recorder,
            why: str, transfer: bool = False) -> tuple[PlatoonState, Man]:
    """A man drawn from section 8's columns at ``progress`` (0: a green man from the depot)."""
    state, name = next_name(state)
    values: dict[str, int] = {}
    for attribute in ATTRIBUTES:
        column = state.rules.section8[attribute]
        clamp = attribute != "age"
        law = {str(v): p for v, p in pd.attribute_odds(column, progress, clamp).items()}
        r = dice.roll(pd.attribute_node(f"{why}: {name}'s {attribute}"),
                      reading=lambda t, c=column, k=clamp: str(  # type: ignore[misc]
                          pd.attribute_value(c, progress, t, k)), law=law)
        values[attribute] = int(r.outcome)
    state, man_id = fresh_id(state, "m")
    man = Man(id=man_id, name=name, age=values["age"], trade=trade,
              skill=values["skill"], traits={"nerve": values["nerve"],
                                              "initiative": values["initiative"]},
              steadiness=values["steadiness"], transfer=transfer)
    return state.with_man(man), man


def file_request(state: PlatoonState, kind: str, trade: Seat | None, reason: str,
                 dice: pd.Recorder, lieutenant: bool = False) -> PlatoonState:
    """File a request with the depot for a trade (not a seat) or a tank; roll its delay."""
    rules = state.rules
    who = "man" if kind == "man" else "tank"
    base = rules.n("replacements", f"{who}_days_base")
    sides = rules.n("replacements", f"{who}_days_die")
    what = trade.value if trade else "tank"
    odds = pd.delay_odds(base, sides)
    r = dice.roll(pd.delay_node(f"{what} requested ({reason}): days until he arrives"
                                if kind == "man" else f"replacement tank ({reason}): days", sides),
                  reading=lambda v: f"{base + v} days",
                  odds=lambda _: ", ".join(f"{d}d {fraction_text(p)}" for d, p in odds.items()))
    # The serial, not the number pending: a landed request's id must never be handed out again.
    request = Request(id=f"r{state.filed + 1:03d}", kind=kind, trade=trade,
                      filed_day=state.day, arrival_day=state.day + base + r.natural,
                      reason=reason, lieutenant=lieutenant)
    return replace(state, requests=(*state.requests, request), filed=state.filed + 1)


def land_arrivals(state: PlatoonState, dice: pd.Recorder, every: bool = False) -> PlatoonState:
    """Requests due today (or all of them, at the year's end) land: men wait unassigned, tanks
    wait in the park."""
    due = [r for r in state.requests if every or r.arrival_day <= state.day]
    on = state.rules.n("replacements", "transfer_on")
    chance = fraction_text(pd.transfer_node("").probability(lambda v: v >= on))
    state = replace(state, requests=tuple(r for r in state.requests if r not in due))
    for request in due:
        if request.kind == "tank":
            state, tank_id = fresh_id(state, "t")
            tank = Tank(id=tank_id, name=tank_name(state), status=TankStatus.PARK)
            state = state.with_tank(tank)
            continue
        assert request.trade is not None
        r = dice.roll(pd.transfer_node(f"{request.trade.value} arriving: from another unit?"),
                      reading=lambda v: "transfer" if v >= on else "depot",
                      odds=lambda _: f"P(transfer) = {chance}")
        progress = state.progress if r.outcome == "transfer" else Fraction(0)
        state, man = new_man(state, request.trade, progress, dice,
                             "transfer" if r.outcome == "transfer" else "depot replacement",
                             transfer=r.outcome == "transfer")
        state = state.with_man(replace(man, lieutenant=request.lieutenant))
    return state


def _man(state: PlatoonState, man_id: str) -> Man:
    if man_id not in state.men:
        raise UnknownIdError(f"no man {man_id!r} in this platoon",
                             fix="Use a man id from `rallypoint platoon roster`.")
    return state.men[man_id]


def _crew_id(state: PlatoonState, crew_id: str) -> str:
    if crew_id not in state.crews:
        raise UnknownIdError(f"no crew {crew_id!r}",
                             fix=f"Use one of: {', '.join(state.crews)}.")
    return crew_id


def seat_man(state: PlatoonState, man: Man, crew_id: str, seat: Seat, hooks: Hooks,
             stranger: bool) -> PlatoonState:
    """Put ``man`` in a seat; a stranger costs the receiving crew cohesion (9.6, 14.6)."""
    crew = state.crews[crew_id]
    cohesion = hooks.cohesion_after_stranger(crew.cohesion, state.rules) if stranger \
        else crew.cohesion
    state = state.with_crew(replace(crew, seats={**crew.seats, seat: man.id}, cohesion=cohesion))
    moved = man.crew != crew_id
    return state.with_man(replace(man, status=Status.SERVING, crew=crew_id, seat=seat,
                                  years_with_crew=0 if moved else man.years_with_crew,
                                  stayed=man.stayed and not moved))


def vacate(state: PlatoonState, man: Man) -> PlatoonState:
    """Empty the seat a man holds (the crew he leaves keeps its cohesion, 14.8)."""
    if man.crew is None or man.seat is None:
        return state
    crew = state.crews[man.crew]
    return state.with_crew(replace(crew, seats={**crew.seats, man.seat: None}))


def place(state: PlatoonState, man_id: str, crew_id: str, seat: Seat, hooks: Hooks) -> PlatoonState:
    """The lieutenant places an unassigned man in an empty seat (14.6)."""
    man = _man(state, man_id)
    _crew_id(state, crew_id)
    if man.status is not Status.UNASSIGNED:
        raise IllegalNowError(f"{man.name} ({man_id}) is not waiting to be placed",
                              fix="Place a man listed as unassigned.")
    if state.crews[crew_id].seats[seat] is not None:
        raise IllegalNowError(f"crew {crew_id}'s {seat.value} seat is not empty",
                              fix="Choose an empty seat.")
    return seat_man(state, man, crew_id, seat, hooks, stranger=True)


def fill_commander(state: PlatoonState, crew_id: str, man_id: str, hooks: Hooks) -> PlatoonState:
    """14.8: the crew's own man, or another crew's non-commander, takes an empty commander seat.

    The man keeps his skill, steadiness and trust exactly; his old seat empties. A man from another
    crew is a stranger to the receiving crew; the crew he left keeps its cohesion.
    """
    _crew_id(state, crew_id)
    man = _man(state, man_id)
    if state.crews[crew_id].seats[Seat.COMMANDER] is not None:
        raise IllegalNowError(f"crew {crew_id} has a commander",
                              fix="Fill only an empty commander seat.")
    if man.status is not Status.SERVING:
        raise IllegalNowError(f"{man.name} is not serving in a crew",
                              fix="Place an unassigned man with `platoon place`, or choose a "
                                  "serving man.")
    if man.seat is Seat.COMMANDER:
        raise IllegalNowError(f"{man.name} commands crew {man.crew}: another crew's commander "
                              "cannot be brought over", fix="Choose a man who is not a commander.")
    stranger = man.crew != crew_id
    return seat_man(vacate(state, man), man, crew_id, Seat.COMMANDER, hooks, stranger)


def assign_tank(state: PlatoonState, tank_id: str, crew_id: str) -> PlatoonState:
    """Give a tank waiting in the park to a crew without one (14.6)."""
    _crew_id(state, crew_id)
    tank = state.tanks.get(tank_id)
    if tank is None or tank.status is not TankStatus.PARK:
        raise IllegalNowError(f"{tank_id!r} is not waiting in the park",
                              fix=f"Use one of: {', '.join(t.id for t in state.park()) or 'none'}.")
    if state.crews[crew_id].tank is not None:
        raise IllegalNowError(f"crew {crew_id} already has a tank",
                              fix="Give park tanks to crews without one.")
    state = state.with_tank(replace(tank, status=TankStatus.WITH_CREW, crew=crew_id,
                                    return_day=None))
    return state.with_crew(replace(state.crews[crew_id], tank=tank_id))
