"""Foraging rules: a party leaves camp and rolls a d6 (1: ambushed, lose a supply; 5-6: found one).

The whole ruleset: scenario, state, one command, one event, one chance node. Schema version 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter

from rallypoint.core.errors import IllegalNowError
from rallypoint.core.events import EventModel
from rallypoint.core.json_types import JsonObject, JsonValue
from rallypoint.core.ruleset import Command, Decision, DeclaredNode, PolicyInfo, parse_with
from rallypoint.core.tomlfile import load_ruleset_file
from rallypoint.dice import D6, ChanceNode, Roll, Roller, roll


class Scenario(BaseModel):
    """A camp, its foraging parties and its supplies at the start."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    ruleset: Literal["toy"] = "toy"
    title: str
    camp: str
    parties: tuple[str, ...]
    supplies: int


class Camp(BaseModel):
    """The state: supplies in camp and how many forays went out."""

    model_config = ConfigDict(frozen=True)
    parties: tuple[str, ...]
    supplies: int
    forays: int = 0


class Forage(Command):
    """Send a party out to forage (one d6)."""

    kind: Literal["forage"] = "forage"
    party: str


class Foraged(EventModel):
    """A foray's roll and the supplies it left in camp."""

    type: Literal["foraged"] = "foraged"
    v: int = 1
    party: str
    roll: Roll
    supplies: int


def foray(party: str) -> ChanceNode:
    """The foray roll: 1d6, read by :func:`reading`."""
    return ChanceNode(purpose=f"{party} forages", dice=D6)


def reading(total: int) -> str:
    """1: ambushed (one supply lost); 2-4: nothing; 5-6: found (one supply more)."""
    return "ambushed" if total <= 1 else "found" if total >= 5 else "nothing"


_CHANGE = {"ambushed": -1, "nothing": 0, "found": 1}
_COMMANDS: TypeAdapter[Forage] = TypeAdapter(Forage)


class ToyRuleset:
    """Foraging (a test ruleset: one command, one d6)."""

    name = "toy"
    title = "Foraging (one command, one d6)"
    state_type = Camp
    event_types: tuple[type[Foraged], ...] = (Foraged,)

    def load_scenario(self, path: Path) -> JsonObject:
        return dict(load_ruleset_file(path, "toy", Scenario).model_dump(mode="json"))

    def rules_data(self, scenario: Mapping[str, JsonValue]) -> JsonObject:
        return {}

    def initial_state(self, scenario: Mapping[str, Any], rules_data: Mapping[str, Any]) -> Camp:
        return Camp(parties=tuple(scenario["parties"]), supplies=scenario["supplies"])

    def command_types(self) -> Sequence[type[Command]]:
        return (Forage,)

    def chance_nodes(self, state: Camp) -> Sequence[DeclaredNode]:
        return [DeclaredNode(f"{party} forages", foray(party), reading) for party in state.parties]

    def parse_command(self, data: Mapping[str, Any]) -> Command:
        return parse_with(_COMMANDS, data, "toy")

    def decide(self, state: Camp, command: Command, roller: Roller) -> Foraged:
        assert isinstance(command, Forage)
        if command.party not in state.parties:
            raise IllegalNowError(f"no party {command.party!r} in camp", where="party",
                                  fix=f"Send one of: {', '.join(state.parties)}.")
        rolled = roll(foray(command.party), roller, reading=reading)
        return Foraged(party=command.party, roll=rolled,
                       supplies=max(0, state.supplies + _CHANGE[rolled.outcome]))

    def read_event(self, event_type: str, payload: Mapping[str, Any]) -> Foraged:
        return Foraged.model_validate({**payload, "type": event_type})

    def apply(self, state: Camp, event: Foraged) -> Camp:
        return state.model_copy(update={"supplies": event.supplies, "forays": state.forays + 1})

    def pending(self, state: Camp) -> list[Decision]:
        return []

    def policies(self) -> Sequence[PolicyInfo[Camp]]:
        return [PolicyInfo("first", "send the first party", lambda s, d, v: Forage(
            expected_version=v, party=s.parties[0]))]

    def state_json(self, state: Camp) -> JsonObject:
        return state.model_dump(mode="json")

    def describe(self, event: Foraged) -> str:
        return f"{event.party} forages: {event.supplies} supplies\n  {event.roll.explain()}"

    def rolls(self, event: Foraged) -> list[Roll]:
        return [event.roll]

    def example_scenarios(self) -> Sequence[Path]:
        return [Path(__file__).parent / "scenarios" / "ford.toml"]

    def conformance_commands(self, state: Camp, version: int) -> Command | None:
        return Forage(expected_version=version, party=state.parties[0]) \
            if state.forays < 3 else None


RULESET = ToyRuleset()
