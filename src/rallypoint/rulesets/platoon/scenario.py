"""Platoon scenario files: the platoon, its calendar, and its roster (given, or generated).

A generated roster is expanded when the campaign is created and stored, man by man, in the
``created`` event — so a campaign never depends on regenerating anything.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from rallypoint.core.models import FrozenModel
from rallypoint.core.scenario_check import COLLECTING
from rallypoint.core.tomlfile import load_ruleset_file
from rallypoint.dice import SeededRoller
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.data import load_data, resolve_data
from rallypoint.rulesets.platoon.model import SEATS, PlatoonState, Seat


class ManSpec(FrozenModel):
    """A man of a given roster."""

    id: str
    name: str
    age: int = Field(ge=14, le=70)
    trade: Seat
    skill: int = Field(ge=0, le=100)
    traits: dict[str, int] = Field(default_factory=dict)
    steadiness: int = Field(default=0, ge=0, le=100)
    fatigue: int = Field(default=0, ge=0, le=100)
    trust: int = Field(default=50, ge=0, le=100)
    crew: str | None = None
    seat: Seat | None = None
    lieutenant: bool = False
    years_with_crew: int = Field(default=0, ge=0)


class TankSpec(FrozenModel):
    """A tank of a given roster and the crew it belongs to."""

    id: str
    name: str
    crew: str


class PlatoonInfo(FrozenModel):
    """The platoon and its calendar."""

    name: str = "3rd Platoon"
    setting: str = "US Sherman platoon, Italy; replacements from the depot at Naples"
    seed: str = "rallypoint"
    veteran_percent: int = Field(default=30, ge=0, le=100,
                                 description="how far toward the veteran column a generated "
                                             "roster is drawn")
    days: int = Field(default=30, ge=1, le=3650)
    action_days: tuple[int, ...] | None = None
    crews: int = Field(default=5, ge=1, le=10)

    def calendar(self) -> tuple[int, ...]:
        """The action days: given, else three days running each week (days 1–3 of every 7)."""
        if self.action_days is not None:
            return tuple(sorted(set(self.action_days)))
        return tuple(d for d in range(1, self.days + 1) if d % 7 in (1, 2, 3))


class PlatoonScenario(FrozenModel):
    """A whole platoon scenario file."""

    ruleset: str = "platoon"
    platoon: PlatoonInfo = PlatoonInfo()
    parameters: dict[str, Any] = Field(default_factory=dict)
    men: tuple[ManSpec, ...] = ()
    tanks: tuple[TankSpec, ...] = ()

    @model_validator(mode="after")
    def _roster(self, info: ValidationInfo) -> PlatoonScenario:
        if info.context and info.context.get(COLLECTING):
            return self  # the checker asks roster_problems for all of them
        problems = roster_problems(self)
        if problems:
            raise ValueError(problems[0])
        return self


def roster_problems(scenario: PlatoonScenario) -> list[str]:
    """Every problem of a given roster: a man id used twice, a man with a crew but no seat (or
    the reverse), two men in one seat of a crew."""
    problems = []
    seen_ids: set[str] = set()
    for m in scenario.men:
        if m.id in seen_ids:
            problems.append(f"man id {m.id!r} is used twice")
        seen_ids.add(m.id)
    seats: set[tuple[str, Seat]] = set()
    for m in scenario.men:
        if (m.crew is None) != (m.seat is None):
            problems.append(f"man {m.id!r}: give both crew and seat, or neither")
        if m.crew is not None and m.seat is not None:
            if (m.crew, m.seat) in seats:
                problems.append(f"two men in crew {m.crew}'s {m.seat.value} seat")
            seats.add((m.crew, m.seat))
    return problems


def load_scenario(path: Path) -> dict[str, Any]:
    """Read a platoon scenario and return it with its roster expanded (JSON-ready)."""
    scenario: PlatoonScenario = load_ruleset_file(path, "platoon", PlatoonScenario)
    return expand(scenario)


def expand(scenario: PlatoonScenario) -> dict[str, Any]:
    """The scenario with a generated roster written out man by man, if none was given."""
    if scenario.men:
        return scenario.model_dump(mode="json")
    info = scenario.platoon
    rules = load_data(resolve_data(scenario.parameters))
    state = PlatoonState(rules=rules, name=info.name, day=1, year=1, morale=0, action_days=(),
                         fought=0, men={}, crews={}, tanks={})
    dice = pd.Recorder(SeededRoller(info.seed, "roster"))
    from rallypoint.rulesets.platoon.people import new_man

    men, tanks = [], []
    progress = Fraction(info.veteran_percent, 100)
    for n in range(1, info.crews + 1):
        crew = str(n)
        for seat in SEATS:
            state, man = new_man(state, seat, progress, dice, f"roster, crew {crew} {seat.value}")
            men.append(ManSpec(id=man.id, name=man.name, age=man.age, trade=seat,
                               skill=man.skill, traits=man.traits, steadiness=man.steadiness,
                               crew=crew, seat=seat,
                               lieutenant=(n == 1 and seat is Seat.COMMANDER)))
        tanks.append(TankSpec(id=f"t{n:03d}", name=rules.names.tanks[(n - 1) % len(
            rules.names.tanks)], crew=crew))
    done = scenario.model_copy(update={"men": tuple(men), "tanks": tuple(tanks)})
    return done.model_dump(mode="json")
