"""Platoon values: men, crews, tanks, requests, and the campaign state. All frozen.

Rules replace values (``dataclasses.replace``) and never mutate them, so a state handed to
``apply`` is never changed and replaying the log rebuilds it exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction

from rallypoint.rulesets.platoon.data import PlatoonData


class Seat(StrEnum):
    """The five seats of a Sherman, which are also the trades the depot sends."""

    COMMANDER = "commander"
    GUNNER = "gunner"
    LOADER = "loader"
    DRIVER = "driver"
    ASSISTANT_DRIVER = "assistant_driver"


SEATS = tuple(Seat)


class Wound(StrEnum):
    """A man's wound state (14.3)."""

    NONE = "none"
    LIGHT = "light"


class Status(StrEnum):
    """Where a man is."""

    SERVING = "serving"
    UNASSIGNED = "unassigned"
    EVACUATED = "evacuated"
    KILLED = "killed"


class TankStatus(StrEnum):
    """Where a tank is (14.6)."""

    WITH_CREW = "with_crew"
    PARK = "park"
    ORDNANCE = "ordnance"
    WRITTEN_OFF = "written_off"
    RETIRED = "retired"
    """Handed back at the year's end when the platoon draws five new tanks (14.9)."""


@dataclass(frozen=True)
class Man:
    """One man of the platoon.

    Attributes:
        fatigue: 0 fresh … 100 spent (14.1); battle-start stress.
        steadiness: 0 … 100, only rises (14.2).
        trust: a commander's trust in the lieutenant (9.9 stand-in), 0 … 100.
        fit_day: for a light wound, the morning he is fit again.
        stayed: True while he has stayed in one crew all this year (14.9).
        light_wounds: Light wounds taken, a second one on a wounded man included (14.3), so the
            log can say each.
    """

    id: str
    name: str
    age: int
    trade: Seat
    skill: int
    traits: dict[str, int]
    fatigue: int = 0
    steadiness: int = 0
    wound: Wound = Wound.NONE
    fit_day: int | None = None
    years_with_crew: int = 0
    trust: int = 50
    status: Status = Status.UNASSIGNED
    crew: str | None = None
    seat: Seat | None = None
    stayed: bool = True
    lieutenant: bool = False
    transfer: bool = False
    light_wounds: int = 0


@dataclass(frozen=True)
class Tank:
    """A tank: with a crew, waiting in the park, at ordnance until ``return_day``, or gone.

    Attributes:
        crew: The crew it is with now (none at ordnance or in the park).
        own_crew: The crew whose tank it is: set when a crew gets it and kept through ordnance
            and the park, so a tank "returning from ordnance as itself" (14.6) is known as that
            crew's. ``None`` for a tank from the depot not yet given, and in events stored
            before the field existed.
    """

    id: str
    name: str
    status: TankStatus
    crew: str | None = None
    return_day: int | None = None
    own_crew: str | None = None


@dataclass(frozen=True)
class Crew:
    """A crew: its seats (man id or None), its tank, its cohesion."""

    id: str
    seats: dict[Seat, str | None]
    tank: str | None
    cohesion: int


@dataclass(frozen=True)
class Request:
    """A request filed with the depot for a trade (or a tank), landing on ``arrival_day``."""

    id: str
    kind: str
    trade: Seat | None
    filed_day: int
    arrival_day: int
    reason: str
    lieutenant: bool = False


@dataclass(frozen=True)
class PlatoonState:
    """The whole platoon between battles."""

    rules: PlatoonData
    name: str
    day: int
    year: int
    morale: int
    action_days: tuple[int, ...]
    fought: int
    men: dict[str, Man]
    crews: dict[str, Crew]
    tanks: dict[str, Tank]
    requests: tuple[Request, ...] = ()
    serial: int = 1
    names_used: int = 0
    filed: int = 0
    """Requests filed so far: each request's id is its serial (``r001``), never reused."""
    deferred: frozenset[str] = field(default_factory=frozenset)
    year_start: int = 1
    """The first day of the current year (14.9 lays the next year's calendar out from it)."""

    @property
    def progress(self) -> Fraction:
        """Actions fought over actions the campaign holds (14.6)."""
        total = len(self.action_days)
        return Fraction(min(self.fought, total), total) if total else Fraction(1)

    @property
    def action_today(self) -> bool:
        """Whether today holds an action."""
        return self.day in self.action_days

    def with_man(self, man: Man) -> PlatoonState:
        """A state with one man replaced."""
        return replace(self, men={**self.men, man.id: man})

    def with_crew(self, crew: Crew) -> PlatoonState:
        """A state with one crew replaced."""
        return replace(self, crews={**self.crews, crew.id: crew})

    def with_tank(self, tank: Tank) -> PlatoonState:
        """A state with one tank replaced."""
        return replace(self, tanks={**self.tanks, tank.id: tank})

    def unassigned(self) -> list[Man]:
        """Men waiting to be placed, in arrival order."""
        return [m for m in self.men.values() if m.status is Status.UNASSIGNED]

    def park(self) -> list[Tank]:
        """Tanks waiting in the park."""
        return [t for t in self.tanks.values() if t.status is TankStatus.PARK]

    def fit_crews(self) -> list[str]:
        """Crews whose tank is fit to fight this morning (14.7, defined in data [fit])."""
        fit = []
        for crew in self.crews.values():
            if crew.tank is None or self.tanks[crew.tank].status is not TankStatus.WITH_CREW:
                continue
            aboard = [s for s, m in crew.seats.items() if m is not None]
            drives = Seat.DRIVER in aboard or Seat.ASSISTANT_DRIVER in aboard
            if len(aboard) >= self.rules.n("fit", "min_crew") and drives:
                fit.append(crew.id)
        return fit

    def withdrawn(self) -> bool:
        """Whether the platoon is withdrawn to refit on this action morning (14.7)."""
        return self.action_today and len(self.fit_crews()) < self.rules.n("fit", "min_tanks")
