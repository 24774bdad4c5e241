"""Replaying a v1 platoon event: its command through the pinned v1 rules over its stored dice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic import TypeAdapter

from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.core.ruleset import Command
from rallypoint.dice import Roll
from rallypoint.rulesets.platoon.model import PlatoonState, Seat
from rallypoint.rulesets.platoon.v1 import days, people
from rallypoint.rulesets.platoon.v1 import dice as pd
from rallypoint.rulesets.platoon.v1.battle import standin_battle
from rallypoint.rulesets.platoon.v1.commands import (
    AssignTank,
    FillCommander,
    IngestReport,
    PlaceMan,
    PlatoonCommand,
    RestDay,
    StandInBattle,
    WaitCommander,
    YearEnd,
)
from rallypoint.rulesets.platoon.v1.section9 import DEFAULT_HOOKS, Hooks
from rallypoint.rulesets.platoon.v1.year import year_end

_COMMANDS: TypeAdapter[Any] = TypeAdapter(PlatoonCommand)


def replay(state: PlatoonState, command: Mapping[str, Any], rolls: Sequence[Roll]) -> PlatoonState:
    """The state after a v1 event: the v1 transition of ``command`` over exactly ``rolls``."""
    parsed: Command = _COMMANDS.validate_python({**command, "expected_version": 0})
    return transition(state, parsed, pd.Recorder.replaying(list(rolls)), DEFAULT_HOOKS)


def transition(state: PlatoonState, command: Command, dice: pd.Recorder,
               hooks: Hooks) -> PlatoonState:
    """The one implementation of every command, used by decide (rolling) and apply (replaying)."""
    if isinstance(command, IngestReport):
        return days.fight(state, command.report, dice, hooks)
    if isinstance(command, StandInBattle):
        if state.action_today and not state.withdrawn():
            return days.fight(state, standin_battle(state, command.intensity, dice), dice, hooks)
        raise IllegalNowError(
            f"no battle today (day {state.day}: "
            + ("withdrawn to refit)" if state.withdrawn() else "no action)"),
            fix="Use `rallypoint platoon rest`.")
    if isinstance(command, RestDay):
        if state.action_today and not state.withdrawn():
            raise IllegalNowError(
                f"day {state.day} holds an action and the platoon has "
                f"{len(state.fit_crews())} fit tanks: it fights",
                fix="Ingest the battle's report (`platoon report`) or fight a stand-in battle.")
        return days.rest(state, dice, hooks)
    if isinstance(command, PlaceMan):
        return people.place(state, command.man, command.crew, command.seat, hooks)
    if isinstance(command, FillCommander):
        return people.fill_commander(state, command.crew, command.man, hooks)
    if isinstance(command, WaitCommander):
        if command.crew not in state.crews or state.crews[command.crew].seats[Seat.COMMANDER]:
            raise IllegalNowError(f"crew {command.crew!r} has no empty commander seat",
                                  fix="Wait only on an empty commander seat.")
        return replace(state, deferred=state.deferred | {f"commander:{command.crew}"})
    if isinstance(command, AssignTank):
        return people.assign_tank(state, command.tank, command.crew)
    if isinstance(command, YearEnd):
        return year_end(state, dice, hooks)
    raise MalformedInputError(f"{type(command).__name__} is not a platoon command",
                              fix="Use one of the `rallypoint platoon` commands.")

