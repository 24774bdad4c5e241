"""Building small platoons in memory for the platoon tests.

The default platoon: crews ``"1"``, ``"2"``, ``"3"``, each with a tank (``t1`` Able, ``t2`` Baker,
``t3`` Charlie, …) and five men whose ids are the crew and the seat's letter — ``1C`` commander,
``1G`` gunner, ``1L`` loader, ``1D`` driver, ``1A`` assistant driver — named ``Gunner 1`` etc.,
aged 22, skill 60, fresh, steadiness 0, trust 50. Action days 1, 2 and 3 of a ten-day campaign
unless a test says otherwise. ``drop`` leaves seats empty, ``edit`` changes men, ``extra`` adds
men (without a crew they wait unassigned).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from conftest import run
from rallypoint.core.campaign import Campaign, created_from_scenario, start
from rallypoint.core.errors import RallypointError
from rallypoint.core.ruleset import Command
from rallypoint.dice import Roll, Roller, ScriptedRoller
from rallypoint.rulesets.platoon import RULESET
from rallypoint.rulesets.platoon.battle import BattleReport, roster
from rallypoint.rulesets.platoon.commands import IngestReport, RestDay, StandInBattle
from rallypoint.rulesets.platoon.front.campaign import platoon_state
from rallypoint.rulesets.platoon.model import SEATS, Seat
from rallypoint.rulesets.platoon.scenario import PlatoonScenario, expand

SHORT = {Seat.COMMANDER: "C", Seat.GUNNER: "G", Seat.LOADER: "L", Seat.DRIVER: "D",
         Seat.ASSISTANT_DRIVER: "A"}
TANK_NAMES = {"1": "Able", "2": "Baker", "3": "Charlie", "4": "Dog", "5": "Easy", "6": "Fox"}
GREEN = (3, 4) * 5
"""Ten faces for one man's five section-8 draws, each 2d6 = 7: exactly every column's mean."""


def man(ident: str, trade: str, crew: str | None = None, seat: str | None = None,
        **fields: Any) -> dict[str, Any]:
    """A man entry for a roster (skill 60, age 22 unless told)."""
    entry: dict[str, Any] = {"id": ident, "name": ident, "age": 22, "trade": trade, "skill": 60}
    if crew is not None:
        entry.update(crew=crew, seat=seat or trade)
    entry.update(fields)
    return entry


def roster_men(crews: Iterable[str], drop: Iterable[str] = (),
               edit: Mapping[str, Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Full crews of five (see the module docstring), less ``drop``, with ``edit`` applied."""
    dropped, edit = set(drop), edit or {}
    men = []
    for crew in crews:
        for seat in SEATS:
            ident = f"{crew}{SHORT[seat]}"
            if ident in dropped:
                continue
            entry = man(ident, seat.value, crew, name=f"{seat.value.replace('_', ' ').title()} "
                                                      f"{crew}")
            entry.update(edit.get(ident, {}))
            men.append(entry)
    return men


def scenario(crews: Sequence[str] = ("1", "2", "3"), *, action_days: Sequence[int] = (1, 2, 3),
             days: int = 10, drop: Iterable[str] = (),
             edit: Mapping[str, Mapping[str, Any]] | None = None,
             extra: Iterable[dict[str, Any]] = (), tankless: Iterable[str] = (),
             parameters: Mapping[str, int] | None = None) -> dict[str, Any]:
    """A platoon scenario document (JSON-ready, as stored in the ``created`` event)."""
    no_tank = set(tankless)
    doc = {
        "ruleset": "platoon",
        "platoon": {"name": "Test Platoon", "days": days, "action_days": list(action_days)},
        "parameters": dict(parameters or {}),
        "men": [*roster_men(crews, drop, edit), *extra],
        "tanks": [{"id": f"t{c}", "name": TANK_NAMES[c], "crew": c} for c in crews
                  if c not in no_tank],
    }
    return expand(PlatoonScenario.model_validate(doc))


def campaign(crews: Sequence[str] = ("1", "2", "3"), seed: str = "test", **options: Any
             ) -> Campaign:
    """A fresh in-memory platoon campaign (options as for :func:`scenario`)."""
    return start(created_from_scenario(RULESET, scenario(crews, **options), "test", seed=seed))


def from_scenario(doc: dict[str, Any], seed: str = "test") -> Campaign:
    """A fresh in-memory campaign from a scenario document."""
    return start(created_from_scenario(RULESET, doc, "test", seed=seed))


def view(c: Campaign) -> dict[str, Any]:
    """The campaign's JSON state."""
    result: dict[str, Any] = c.ruleset.state_json(c.state)
    return result


def snapshot(c: Campaign) -> str:
    """The JSON state as one comparable string."""
    return json.dumps(view(c), sort_keys=True)


def battle_roster(c: Campaign) -> dict[str, Any]:
    """The roster the battle would receive today."""
    return roster(platoon_state(c), RULESET.hooks)


def seat_of(c: Campaign, crew: str, seat: str) -> dict[str, Any] | None:
    """A seat's entry in today's battle roster (None when empty)."""
    tank = next(t for t in battle_roster(c)["tanks"] if t["crew"] == crew)
    entry: dict[str, Any] | None = tank["seats"][seat]
    return entry


def seated(c: Campaign, crew: str, seat: str) -> dict[str, Any]:
    """A filled seat's entry in today's battle roster."""
    entry = seat_of(c, crew, seat)
    assert entry is not None, f"crew {crew}'s {seat} seat is empty"
    return entry


def refuse(c: Campaign, command: Command, error: type[RallypointError], match: str | None = None
           ) -> RallypointError:
    """Assert ``command`` is refused with ``error`` before any die is rolled, changing nothing."""
    before, version = snapshot(c), c.version
    roller = ScriptedRoller((1,) * 60)
    with pytest.raises(error, match=match) as info:
        c.execute(command, roller)
    assert type(info.value) is error, f"{type(info.value).__name__} is not {error.__name__}"
    assert roller.used == 0, "a refused command rolled dice"
    assert snapshot(c) == before
    assert c.version == version
    return info.value


def tank(crew: str, cohesion: int = 60, **fields: Any) -> dict[str, Any]:
    """One tank's entry in a battle report (unhit, crew cohesion 60, unless told)."""
    return {"crew": crew, "cohesion": cohesion, **fields}


def report(c: Campaign, tanks: Sequence[dict[str, Any]] | None = None,
           men: Mapping[str, str] | None = None, **fields: Any) -> IngestReport:
    """A battle report for today: ``tanks`` (default: every fighting tank unhit, cohesion kept),
    ``men`` as ``{man id: result}``."""
    if tanks is None:
        state = platoon_state(c)
        tanks = [tank(cid, state.crews[cid].cohesion) for cid in state.fit_crews()]
    body = {"day": platoon_state(c).day, "tanks": list(tanks),
            "men": [{"man": m, "result": r} for m, r in (men or {}).items()], **fields}
    return IngestReport(expected_version=c.version, report=BattleReport.model_validate(body))


def rest(c: Campaign, dice: Sequence[int] = ()) -> Campaign:
    """A day out of action."""
    return run(c, RestDay(expected_version=c.version), dice)


def quiet_day(c: Campaign, dice: Sequence[int] = ()) -> Campaign:
    """Today's action with every tank unhit and nobody hurt (a rest day when out of action)."""
    if platoon_state(c).action_today and not platoon_state(c).withdrawn():
        return run(c, report(c), dice)
    return rest(c, dice)


def rolls(c: Campaign) -> list[Roll]:
    """Every roll of the latest event, in order."""
    return list(c.rolls(c.version))


def play_day(c: Campaign, roller_for: Any, intensity: int = 1, policy: str = "by_trade"
             ) -> Campaign:
    """Resolve every pending decision by ``policy``, then fight a STAND-IN battle on an action
    day (else rest). ``roller_for(campaign) -> Roller`` picks each event's dice."""
    chosen = {p.name: p for p in c.ruleset.policies()}[policy]
    while pending := c.ruleset.pending(c.state):
        c = c.execute(chosen.decide(c.state, pending[0], c.version), roller_for(c))
    command: Command
    if platoon_state(c).action_today and not platoon_state(c).withdrawn():
        command = StandInBattle(expected_version=c.version, intensity=intensity)
    else:
        command = RestDay(expected_version=c.version)
    roller: Roller = roller_for(c)
    return c.execute(command, roller)
