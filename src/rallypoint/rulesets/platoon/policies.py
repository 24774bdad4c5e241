"""The lieutenant's pending decisions, and named default policies that answer them."""

from __future__ import annotations

from rallypoint.core.ruleset import Command, Decision, PolicyInfo
from rallypoint.rulesets.platoon.choices import (
    CommanderChoices,
    PlaceChoices,
    SeatChoice,
    TankChoices,
)
from rallypoint.rulesets.platoon.commands import AssignTank, FillCommander, PlaceMan, WaitCommander
from rallypoint.rulesets.platoon.model import SEATS, PlatoonState, Seat, Status


def _empty_seats(state: PlatoonState) -> list[tuple[str, Seat]]:
    return [(c.id, s) for c in state.crews.values() for s in SEATS if c.seats[s] is None]


def pending(state: PlatoonState) -> list[Decision]:
    """Men to place (in arrival order), commander seats to fill, park tanks to give."""
    decisions = []
    empty = _empty_seats(state)
    if empty:
        for man in state.unassigned():
            decisions.append(Decision(
                key=f"place:{man.id}", kind="place", subject=man.id,
                prompt=f"place {man.name} ({man.trade.value}, skill {man.skill}"
                       f"{', transfer' if man.transfer else ''})",
                options=PlaceChoices(trade=man.trade.value, seats=tuple(
                    SeatChoice(crew=c, seat=s.value) for c, s in empty)).to_json()))
    for crew in state.crews.values():
        key = f"commander:{crew.id}"
        if crew.seats[Seat.COMMANDER] is not None or key in state.deferred:
            continue
        own = [m for s, m in crew.seats.items() if m and s is not Seat.COMMANDER]
        other = [m.id for m in state.men.values() if m.status is Status.SERVING
                 and m.crew != crew.id and m.seat is not Seat.COMMANDER]
        decisions.append(Decision(
            key=key, kind="commander", subject=crew.id,
            prompt=f"crew {crew.id} has no commander: its own man, another crew's, or wait",
            options=CommanderChoices(own=tuple(own), other=tuple(other), wait=True).to_json()))
    tankless = [c.id for c in state.crews.values() if c.tank is None]
    if tankless:
        for tank in state.park():
            decisions.append(Decision(
                key=f"tank:{tank.id}", kind="tank", subject=tank.id,
                prompt=f"{tank.name} ({tank.id}) waits in the park",
                options=TankChoices(crews=tuple(tankless)).to_json()))
    return decisions


def _place(state: PlatoonState, decision: Decision, version: int) -> Command:
    man = state.men[decision.subject]
    empty = _empty_seats(state)
    # Same trade first; then any seat but the commander's; the commander's seat last.
    empty.sort(key=lambda cs: (cs[1] is not man.trade, cs[1] is Seat.COMMANDER,
                               len(cs[0]), cs[0], SEATS.index(cs[1])))
    crew, seat = empty[0]
    return PlaceMan(expected_version=version, man=man.id, crew=crew, seat=seat)


def _tank(state: PlatoonState, decision: Decision, version: int) -> Command:
    # A tank back from ordnance goes back to its own crew (14.6 "returning from ordnance as
    # itself") if that crew is still without one; any other to the first crew without one.
    own = state.tanks[decision.subject].own_crew
    crews = sorted(TankChoices.model_validate(decision.options).crews,
                   key=lambda c: (c != own, len(c), c))
    crew = crews[0]
    return AssignTank(expected_version=version, tank=decision.subject, crew=crew)


def by_trade(state: PlatoonState, decision: Decision, version: int) -> Command:
    """Place men by trade; the crew's most skilled man steps up to command (gunner first on a
    tie); a park tank goes back to its own crew, else to the first crew without one."""
    if decision.kind == "place":
        return _place(state, decision, version)
    if decision.kind == "tank":
        return _tank(state, decision, version)
    own = sorted(CommanderChoices.model_validate(decision.options).own,
                 key=lambda m: (-state.men[m].skill, state.men[m].seat is not Seat.GUNNER, m))
    if own:
        return FillCommander(expected_version=version, crew=decision.subject, man=own[0])
    return WaitCommander(expected_version=version, crew=decision.subject)


def wait_for_depot(state: PlatoonState, decision: Decision, version: int) -> Command:
    """Like ``by_trade``, but an empty commander seat waits for a commander from the depot."""
    if decision.kind == "commander":
        return WaitCommander(expected_version=version, crew=decision.subject)
    return by_trade(state, decision, version)


POLICIES = [
    PolicyInfo("by_trade", "place men by trade; a crew's best man steps up to command",
               by_trade),
    PolicyInfo("wait_for_depot", "place men by trade; commander seats wait for the depot",
               wait_for_depot),
]
