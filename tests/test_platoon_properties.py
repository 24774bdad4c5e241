"""Platoon properties: random campaigns keep every invariant the seed implies.

Random calendars, stand-in intensities, seeds, rest days, year ends and decisions (named policies
or random legal answers) are played; after every event the state is checked: fatigue within
0..100, steadiness never falls, the evacuated and killed never return, no seat holds two men and
no man two seats, no tank is in two crews and no two tanks share a name, every request is filled
exactly once (a man of its trade or a tank; none lost, none duplicated), cohesion and morale
within 0 and their caps. At the end, replaying the log rebuilds identical state and undo
restores the state before the last event.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from platoon_kit import snapshot
from rallypoint.core.campaign import Campaign, created_from_scenario, start
from rallypoint.core.errors import IllegalNowError
from rallypoint.core.ruleset import Command, Decision
from rallypoint.dice import ChanceNode, Roll, SeededRoller
from rallypoint.rulesets.platoon import RULESET
from rallypoint.rulesets.platoon.choices import CommanderChoices, PlaceChoices, TankChoices
from rallypoint.rulesets.platoon.commands import (
    AssignTank,
    FillCommander,
    PlaceMan,
    RestDay,
    StandInBattle,
    WaitCommander,
    YearEnd,
)
from rallypoint.rulesets.platoon.front.campaign import platoon_state
from rallypoint.rulesets.platoon.model import PlatoonState, Seat, Status, TankStatus
from rallypoint.rulesets.platoon.scenario import PlatoonInfo, PlatoonScenario, expand

GONE = (Status.KILLED, Status.EVACUATED)
NAPLES = "green replacement from Naples: "


def _explicit(state: PlatoonState, decision: Decision, version: int, pick: int) -> Command:
    """A legal answer to ``decision`` chosen by ``pick`` among those the engine lists."""
    options = decision.options
    if decision.kind == "place":
        seats = PlaceChoices.model_validate(options).seats
        seat = seats[pick % len(seats)]
        return PlaceMan(expected_version=version, man=decision.subject, crew=seat.crew,
                        seat=Seat(seat.seat))
    if decision.kind == "tank":
        crews = TankChoices.model_validate(options).crews
        return AssignTank(expected_version=version, tank=decision.subject,
                          crew=crews[pick % len(crews)])
    commander = CommanderChoices.model_validate(options)
    choices = [*commander.own, *commander.other, None]
    man = choices[pick % len(choices)]
    if man is None:
        return WaitCommander(expected_version=version, crew=decision.subject)
    return FillCommander(expected_version=version, crew=decision.subject, man=man)


def _check_state(s: PlatoonState) -> None:
    rules = s.rules
    assert 0 <= s.morale <= rules.n("morale", "cap")
    seated: Counter[str] = Counter()
    for crew in s.crews.values():
        assert 0 <= crew.cohesion <= rules.n("cohesion", "cap")
        for seat, man_id in crew.seats.items():
            if man_id is None:
                continue
            seated[man_id] += 1
            m = s.men[man_id]
            assert (m.status, m.crew, m.seat) == (Status.SERVING, crew.id, seat)
        if crew.tank is not None:
            t = s.tanks[crew.tank]
            assert (t.status, t.crew) == (TankStatus.WITH_CREW, crew.id)
    assert all(n == 1 for n in seated.values()), "a man in two seats"
    for m in s.men.values():
        assert 0 <= m.fatigue <= 100 and 0 <= m.steadiness <= 100
        assert (m.status is Status.SERVING) == (m.id in seated)
        if m.status is not Status.SERVING:
            assert m.crew is None and m.seat is None
    with_crew = [t for t in s.tanks.values() if t.status is TankStatus.WITH_CREW]
    assert sorted(t.id for t in with_crew) == sorted(
        c.tank for c in s.crews.values() if c.tank is not None), "a tank in two crews"
    present = [t.name for t in s.tanks.values()
               if t.status not in (TankStatus.RETIRED, TankStatus.WRITTEN_OFF)]
    assert len(set(present)) == len(present), "two tanks answer to one name"
    ids = [r.id for r in s.requests]
    assert len(set(ids)) == len(ids), "a request id used twice"
    assert all(r.arrival_day > s.day for r in s.requests), "an overdue request was lost"


def _check_step(before: PlatoonState, after: PlatoonState, event_type: str,
                rolls: list[Roll], landed: set[str]) -> None:
    for ident, old in before.men.items():
        new = after.men[ident]
        assert new.steadiness >= old.steadiness, f"{ident}'s steadiness fell"
        if old.status in GONE:
            assert new == old, f"{ident} came back"
    was = {r.id: r for r in before.requests}
    now = {r.id for r in after.requests}
    removed = [r for i, r in was.items() if i not in now]
    assert not (now - set(was)) & landed, "a filled request came back"
    landed.update(r.id for r in removed)
    year = event_type == "year_end"
    assert all(year or r.arrival_day <= after.day for r in removed), "a request landed early"
    naples = {p.purpose[len(NAPLES):].rsplit("'s ", 1)[0] for p in rolls
              if p.purpose.startswith(NAPLES)}
    assert year or not naples
    arrived = [m for i, m in after.men.items() if i not in before.men and m.name not in naples]
    assert Counter(m.trade for m in arrived) == Counter(
        r.trade for r in removed if r.kind == "man"), "a man per request, none lost or doubled"
    new_tanks = [t for i, t in after.tanks.items() if i not in before.tanks]
    tank_requests = sum(r.kind == "tank" for r in removed)
    assert len(new_tanks) == tank_requests + (len(after.crews) if year else 0)


class _Counting:
    """A roller that counts the dice it is asked for."""

    def __init__(self, inner: SeededRoller) -> None:
        self.inner, self.asked = inner, 0

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        self.asked += 1
        return self.inner.faces(node)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(),
       seed=st.text("abcdefgh0123456789", min_size=1, max_size=6),
       calendar=st.one_of(st.none(), st.just(tuple(range(1, 25))),
                          st.sets(st.integers(1, 24)).map(lambda days: tuple(sorted(days)))),
       veteran_percent=st.integers(0, 100),
       crews=st.integers(2, 5))
def test_random_campaigns_keep_every_invariant(data: st.DataObject, seed: str,
                                               calendar: tuple[int, ...] | None,
                                               veteran_percent: int,
                                               crews: int) -> None:
    info = PlatoonInfo(seed=seed, days=24, action_days=calendar, crews=crews,
                       veteran_percent=veteran_percent)
    doc: dict[str, Any] = expand(PlatoonScenario(platoon=info))
    c = start(created_from_scenario(RULESET, doc, "prop", seed=seed))
    _check_state(platoon_state(c))
    policies = {p.name: p for p in RULESET.policies()}
    landed: set[str] = set()
    intensity = data.draw(st.integers(0, 6), label="intensity")
    for _ in range(data.draw(st.integers(10, 70), label="events")):
        pending = RULESET.pending(platoon_state(c))
        move = data.draw(st.sampled_from(["policy", "explicit", "day", "day", "day", "day",
                                          "day", "year"]))
        command: Command
        if pending and move == "policy":
            name = data.draw(st.sampled_from(sorted(policies)))
            command = policies[name].decide(platoon_state(c), pending[0], c.version)
        elif pending and move == "explicit":
            decision = data.draw(st.sampled_from(pending))
            command = _explicit(platoon_state(c), decision, c.version,
                                data.draw(st.integers(0, 50)))
        elif move == "year":
            command = YearEnd(expected_version=c.version)
        elif platoon_state(c).action_today and not platoon_state(c).withdrawn():
            command = StandInBattle(expected_version=c.version,
                                    intensity=data.draw(st.integers(0, 6)) if intensity == 6
                                    else intensity)
        else:
            command = RestDay(expected_version=c.version)
        before = c
        event(type(command).__name__)
        roller = _Counting(SeededRoller(seed, f"prop/v{c.version}"))
        try:
            c = c.execute(command, roller)
        except IllegalNowError:
            # A refused command (a year end before the year's calendar is out) rolls no die and
            # changes nothing.
            assert roller.asked == 0, "a refused command rolled a die"
            assert snapshot(c) == snapshot(before)
            event("refused")
            continue
        _check_step(platoon_state(before), platoon_state(c), c.events[-1].type,
                    list(c.rolls(c.version)), landed)
        _check_state(platoon_state(c))
    assert snapshot(Campaign.from_events(c.events)) == snapshot(c), "replay differs"
    if c.version > 1:
        previous = snapshot(Campaign.from_events(c.events[:-1]))
        assert snapshot(c.undo()) == previous, "undo did not restore the previous state"
