"""The platoon ruleset ("Between battles", seed 002) as the core sees it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, get_args

from pydantic import BaseModel, TypeAdapter

from rallypoint.core.due import Due
from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.core.ruleset import Command, Decision, PolicyInfo, parse_with
from rallypoint.core.suggest import foreign_command
from rallypoint.dice import Roll, Roller
from rallypoint.errors import Hint
from rallypoint.rulesets.platoon import days, people, policies, views
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.battle import BattleReport, standin_battle
from rallypoint.rulesets.platoon.commands import (
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
from rallypoint.rulesets.platoon.data import load_data, resolve_data
from rallypoint.rulesets.platoon.due import due as platoon_due
from rallypoint.rulesets.platoon.events import (
    EVENT_TYPES,
    READER,
    PlatoonEvent,
    outcome,
    write_down,
)
from rallypoint.rulesets.platoon.fixes import FixKind, fix
from rallypoint.rulesets.platoon.model import (
    Crew,
    Man,
    PlatoonState,
    Seat,
    Status,
    Tank,
    TankStatus,
)
from rallypoint.rulesets.platoon.scenario import (
    PlatoonScenario,
    expand,
    load_scenario,
    roster_problems,
)
from rallypoint.rulesets.platoon.section9 import DEFAULT_HOOKS, Hooks
from rallypoint.rulesets.platoon.table import TABLE
from rallypoint.rulesets.platoon.year import year_end

_COMMANDS: TypeAdapter[PlatoonCommand] = TypeAdapter(PlatoonCommand)


def initial_state(scenario: Mapping[str, Any], rules_data: Mapping[str, Any]) -> PlatoonState:
    """The platoon when the campaign starts, from the stored (expanded) scenario."""
    spec = PlatoonScenario.model_validate(scenario)
    rules = load_data(rules_data)
    men = {m.id: Man(id=m.id, name=m.name, age=m.age, trade=m.trade, skill=m.skill,
                     traits=dict(m.traits), fatigue=m.fatigue, steadiness=m.steadiness,
                     trust=m.trust, years_with_crew=m.years_with_crew,
                     status=Status.SERVING if m.crew else Status.UNASSIGNED, crew=m.crew,
                     seat=m.seat, lieutenant=m.lieutenant) for m in spec.men}
    crew_ids = sorted({m.crew for m in spec.men if m.crew} | {t.crew for t in spec.tanks},
                      key=lambda c: (len(c), c))
    crews = {}
    for cid in crew_ids:
        seats: dict[Seat, str | None] = dict.fromkeys(Seat)
        for m in spec.men:
            if m.crew == cid and m.seat is not None:
                seats[m.seat] = m.id
        tank = next((t.id for t in spec.tanks if t.crew == cid), None)
        crews[cid] = Crew(id=cid, seats=seats, tank=tank,
                          cohesion=rules.n("cohesion", "start"))
    tanks = {t.id: Tank(id=t.id, name=t.name, status=TankStatus.WITH_CREW, crew=t.crew,
                        own_crew=t.crew)
             for t in spec.tanks}
    return PlatoonState(rules=rules, name=spec.platoon.name, day=1, year=1,
                        morale=rules.n("morale", "start"), action_days=spec.platoon.calendar(),
                        fought=0, men=men, crews=crews, tanks=tanks,
                        serial=len(men) + len(tanks) + 1, names_used=len(men))


def transition(state: PlatoonState, command: Command, dice: pd.Recorder,
               hooks: Hooks) -> PlatoonState:
    """Every command's rules, run by ``decide`` only (``apply`` writes down stored outcomes)."""
    if isinstance(command, IngestReport):
        return days.fight(state, command.report, dice, hooks)
    if isinstance(command, StandInBattle):
        if state.action_today and not state.withdrawn():
            return days.fight(state, standin_battle(state, command.intensity, dice), dice, hooks)
        raise IllegalNowError(
            f"no battle today (day {state.day}: "
            + ("withdrawn to refit)" if state.withdrawn() else "no action)"),
            fix=fix(FixKind.REST), instead="rest")
    if isinstance(command, RestDay):
        if state.action_today and not state.withdrawn():
            raise IllegalNowError(
                f"day {state.day} holds an action and the platoon has "
                f"{len(state.fit_crews())} fit tanks: it fights",
                fix=fix(FixKind.REPORT_OR_STANDIN),
                instead="report")
        return days.rest(state, dice, hooks)
    if isinstance(command, PlaceMan):
        return people.place(state, command.man, command.crew, command.seat, hooks)
    if isinstance(command, FillCommander):
        return people.fill_commander(state, command.crew, command.man, hooks)
    if isinstance(command, WaitCommander):
        people.find_crew(state, command.crew)   # an unknown crew is refused as unknown
        if state.crews[command.crew].seats[Seat.COMMANDER]:
            raise IllegalNowError(f"crew {command.crew!r} has no empty commander seat",
                                  fix="Wait only on an empty commander seat.")
        return replace(state, deferred=state.deferred | {f"commander:{command.crew}"})
    if isinstance(command, AssignTank):
        return people.assign_tank(state, command.tank, command.crew)
    if isinstance(command, YearEnd):
        return year_end(state, dice, hooks)
    raise MalformedInputError(f"{foreign_command(command)} is not a platoon command",
                              fix=fix(FixKind.PLATOON_COMMAND),
                              instead=Hint.FIX_FIELD)


def _check_outcome(before: PlatoonState, event: PlatoonEvent, after: PlatoonState) -> None:
    """The stored outcome must rebuild exactly the state the rules made (men in the same order).

    A failure is a bug in :func:`.events.outcome` (a state field it does not record), caught
    before anything is stored.
    """
    assert event.outcome is not None
    rebuilt = write_down(before, event.outcome)
    if rebuilt != after or list(rebuilt.men) != list(after.men) \
            or list(rebuilt.tanks) != list(after.tanks):
        raise AssertionError(f"platoon {event.type}: the outcome does not rebuild the state")


class PlatoonRuleset:
    """Between battles: fatigue, steadiness, wounds, cohesion, morale, replacements, the year."""

    name = "platoon"
    title = "Platoon: between battles (a WW2 tank platoon's campaign layer)"
    state_type = PlatoonState
    event_types: tuple[type[PlatoonEvent], ...] = get_args(PlatoonEvent)
    """Every member of :data:`PlatoonEvent` (what the registry's wrapper checks
    an event against)."""

    def __init__(self, hooks: Hooks = DEFAULT_HOOKS) -> None:
        self.hooks = hooks

    def load_scenario(self, path: Path) -> dict[str, Any]:
        """Validate a scenario and expand a generated roster."""
        return load_scenario(path)

    scenario_model = PlatoonScenario
    """The model of a whole platoon scenario file
    (:class:`rallypoint.core.scenario_check.ScenarioFiles`)."""

    file_models: Mapping[str, type[BaseModel]] = MappingProxyType({"platoon-report": BattleReport})
    """Files the platoon takes from outside, by published schema name (``rallypoint schema``):
    the battle report a battle engine writes (docs/platoon-battle.md)."""

    def parameter_schemas(self) -> dict[str, dict[str, Any]]:
        """Each ``[parameters]`` entry a scenario may set (``"section.key"``, a whole number),
        with its default and clause, for the published schema (``rallypoint schema``)."""
        sections = self.rules_data({})["sections"]
        return {f"{section}.{key}": {
                    "type": "integer", "default": entry["value"],
                    "description": f"{entry.get('clause', '')} {entry.get('note', '')}".strip()}
                for section, body in sorted(sections.items()) for key, entry in sorted(
                    body.items())}

    def scenario_problems(self, scenario: PlatoonScenario) -> list[str]:
        """Every problem of a given roster whose fields are valid."""
        return roster_problems(scenario)

    def scenario_json(self, scenario: PlatoonScenario) -> dict[str, Any]:
        """The JSON-ready form a campaign stores (a generated roster written out man by man)."""
        return expand(scenario)

    def rules_data(self, scenario: Mapping[str, Any]) -> dict[str, Any]:
        """The shipped data with the scenario's ``[parameters]`` applied."""
        return resolve_data(scenario.get("parameters") or {})

    def initial_state(self, scenario: Mapping[str, Any],
                      rules_data: Mapping[str, Any]) -> PlatoonState:
        """The platoon at the start."""
        return initial_state(scenario, rules_data)

    def parse_command(self, data: Mapping[str, Any]) -> Command:
        """A platoon command from JSON."""
        return parse_with(_COMMANDS, data, "platoon")

    def decide(self, state: PlatoonState, command: Command, roller: Roller) -> PlatoonEvent:
        """Run the command's transition with real dice; store the command, rolls and outcome."""
        dice = pd.Recorder(roller)
        after = transition(state, command, dice, self.hooks)
        data = command.model_dump(mode="json", by_alias=True, exclude={"expected_version"})
        event = EVENT_TYPES[str(data["kind"])](
            command=data, rolls=tuple(dice.rolls), summary=tuple(views.summary(state, after)),
            outcome=outcome(state, after))
        _check_outcome(state, event, after)
        return event

    def read_event(self, event_type: str, payload: Mapping[str, Any]) -> PlatoonEvent:
        """A stored platoon payload of any schema version as its typed event."""
        return READER.read(event_type, payload)

    def apply(self, state: PlatoonState, event: PlatoonEvent) -> PlatoonState:
        """Write the event's outcome down (pure; no rule runs). A v1 event, which stored no
        outcome, replays through the pinned v1 rules (:mod:`.v1`), never the live ones."""
        if event.outcome is None:
            # Imported here: only campaigns begun before events stored outcomes need the
            # pinned v1 rules, and loading them costs every platoon command ~5 ms.
            from rallypoint.rulesets.platoon.v1.replay import replay as v1_replay

            return v1_replay(state, event.command, event.rolls)
        return write_down(state, event.outcome)

    def pending(self, state: PlatoonState) -> list[Decision]:
        """Men to place, commander seats to fill, park tanks to give."""
        return policies.pending(state)

    def due(self, state: PlatoonState) -> tuple[Due, ...]:
        """What the day asks for next: the battle, a rest day, or the year's end (14.9)."""
        return platoon_due(state)

    def policies(self) -> Sequence[PolicyInfo[PlatoonState]]:
        """``by_trade`` (default) and ``wait_for_depot``."""
        return policies.POLICIES

    def state_json(self, state: PlatoonState) -> dict[str, Any]:
        """JSON view of the platoon."""
        return views.state_json(state)

    def describe(self, event: PlatoonEvent) -> str:
        """The command, then the stored summary lines."""
        return views.describe(event)

    def rolls(self, event: PlatoonEvent) -> list[Roll]:
        """Every roll of an event, in order."""
        return list(event.rolls)

    scenario_table = TABLE
    """The table ``rallypoint scenario import-csv platoon`` reads (docs/scenarios.md)."""

    def starter_scenario(self) -> Path:
        """A commented starting scenario that ``rallypoint new`` accepts as written
        (``rallypoint scenario init platoon``)."""
        return Path(str(resources.files("rallypoint.rulesets.platoon").joinpath("starter",
                                                                          "scenario.toml")))

    def example_scenarios(self) -> Sequence[Path]:
        """The seed's default Sherman platoon in Italy first, then a green one in Normandy."""
        root = resources.files("rallypoint.rulesets.platoon").joinpath("scenarios")
        return [Path(str(root.joinpath(n))) for n in ("italy_1944.toml", "normandy_1944.toml")]

    def conformance_commands(self, state: PlatoonState, version: int) -> Command | None:
        """A week with stand-in battles, rest days and default-policy decisions."""
        decisions = self.pending(state)
        if decisions:
            return policies.POLICIES[0].decide(state, decisions[0], version)
        if state.day > 8:
            return None
        if state.action_today and not state.withdrawn():
            return StandInBattle(expected_version=version, intensity=3)
        return RestDay(expected_version=version)


RULESET = PlatoonRuleset()
