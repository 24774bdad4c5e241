"""Platoon commands: the day (a battle report, a stand-in battle, a rest day), the lieutenant's
decisions (placing men, the commander's seat, park tanks) and the year's end."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from rallypoint.core.ruleset import Command
from rallypoint.rulesets.platoon.model import Seat
from rallypoint.rulesets.platoon.v1.battle import BattleReport


class IngestReport(Command):
    """Take a battle's report back; the day ends and the next morning begins."""

    kind: Literal["report"] = "report"
    report: BattleReport


class StandInBattle(Command):
    """Fight today's action with the STAND-IN battle generator (not a rule of the seed)."""

    kind: Literal["standin"] = "standin"
    intensity: int = Field(default=1, ge=0, le=6)


class RestDay(Command):
    """A day out of action (or, on an action day with fewer than two fit tanks, withdrawn)."""

    kind: Literal["rest"] = "rest"


class PlaceMan(Command):
    """Place an unassigned man in an empty seat."""

    kind: Literal["place"] = "place"
    man: str
    crew: str
    seat: Seat


class FillCommander(Command):
    """Fill an empty commander seat with the crew's own man or another crew's non-commander."""

    kind: Literal["commander"] = "commander"
    crew: str
    man: str


class WaitCommander(Command):
    """Leave an empty commander seat to wait (for today) — 14.8's third answer."""

    kind: Literal["wait"] = "wait"
    crew: str


class AssignTank(Command):
    """Give a tank waiting in the park to a crew without one."""

    kind: Literal["tank"] = "tank"
    tank: str
    crew: str


class YearEnd(Command):
    """14.9: the year's end, every step in order."""

    kind: Literal["year_end"] = "year_end"


PlatoonCommand = Annotated[
    IngestReport | StandInBattle | RestDay | PlaceMan | FillCommander | WaitCommander | AssignTank
    | YearEnd,
    Field(discriminator="kind"),
]
