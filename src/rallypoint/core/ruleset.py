"""What a ruleset is, as the core sees it, and the registry that finds one by name.

The core never imports a ruleset module by name: rulesets register themselves (see
``rallypoint.rulesets``), and everything else looks them up here. There is no
``if ruleset == ...`` anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from rallypoint.core.errors import MalformedInputError, UnknownIdError
from rallypoint.core.events import NewEvent
from rallypoint.dice import Roll, Roller

S = TypeVar("S")


class Command(BaseModel):
    """Base of every command: what a player asks for, made against a state version.

    Attributes:
        expected_version: The campaign version (number of stored events) the command was made
            against. A command whose version is not current is refused as stale.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    expected_version: int


class Decision(BaseModel):
    """A choice the rules leave to the player, pending until a command answers it.

    Attributes:
        key: Stable id (``"distribute:1/ErP112"``).
        kind: What sort of decision (``"distribute"``, ``"column"``).
        subject: What it is about (a company id).
        prompt: One line for a human.
        options: Ruleset-specific JSON describing the legal choices.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    kind: str
    subject: str
    prompt: str
    options: dict[str, Any] = {}


def parse_with(adapter: TypeAdapter[Any], data: Mapping[str, Any], ruleset: str) -> Command:
    """Validate JSON into one of a ruleset's commands (a discriminated union on ``kind``).

    Raises:
        MalformedInputError: The JSON is not a command of this ruleset, naming the field.
    """
    try:
        command: Command = adapter.validate_python(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise MalformedInputError(
            f"bad {ruleset} command: {first['msg']}",
            where=".".join(str(p) for p in first["loc"]),
            fix=f"See `rallypoint {ruleset} --help` for each command's fields.") from None
    return command


Policy = Callable[[Any, Decision, int], Command]
"""A named default policy: (state, decision, version) → the command that answers it."""


@dataclass(frozen=True)
class PolicyInfo:
    """A policy and the sentence that says what it does."""

    name: str
    summary: str
    decide: Policy


class Ruleset(Protocol, Generic[S]):
    """The interface every ruleset provides to the core.

    A ruleset is its models, commands, a pure ``apply``, pending decisions, default policies and a
    TOML data file. ``decide`` validates a command against a state and returns the one event it
    produces (with any rolls inside); ``apply`` folds an event into a new state and never mutates
    its input.
    """

    name: str
    title: str

    def load_scenario(self, path: Path) -> dict[str, Any]:
        """Read and validate a scenario file; return its JSON-ready form (stored in ``created``)."""
        ...

    def rules_data(self, scenario: Mapping[str, Any]) -> dict[str, Any]:
        """The ruleset's data (tables and parameters) with the scenario's overrides applied."""
        ...

    def initial_state(self, scenario: Mapping[str, Any], rules_data: Mapping[str, Any]) -> S:
        """The state right after the campaign is created."""
        ...

    def parse_command(self, data: Mapping[str, Any]) -> Command:
        """Build a command of this ruleset from JSON (``{"kind": ..., ...}``)."""
        ...

    def decide(self, state: S, command: Command, roller: Roller) -> NewEvent:
        """Validate ``command`` against ``state`` and return its event, rolls included."""
        ...

    def apply(self, state: S, event_type: str, payload: Mapping[str, Any]) -> S:
        """Fold one of this ruleset's events into a new state (pure)."""
        ...

    def pending(self, state: S) -> list[Decision]:
        """Decisions waiting on the player, in the order they should be answered."""
        ...

    def policies(self) -> Sequence[PolicyInfo]:
        """Named default policies for automatic play; the first is the default."""
        ...

    def state_json(self, state: S) -> dict[str, Any]:
        """A JSON-ready view of the state (for ``show --json`` and equality checks)."""
        ...

    def describe(self, event_type: str, payload: Mapping[str, Any]) -> str:
        """One line saying what an event did, for the log."""
        ...

    def rolls(self, payload: Mapping[str, Any]) -> list[Roll]:
        """Every roll stored in one of this ruleset's event payloads (for ``log --json``)."""
        ...

    def example_scenarios(self) -> Sequence[Path]:
        """Scenario files shipped with the ruleset (used by the conformance test)."""
        ...

    def conformance_commands(self, state: S, version: int) -> Command | None:
        """The next command of a short scripted playthrough, or ``None`` when it is over.

        The generic conformance test drives every ruleset with this, checking replay, purity and
        refusal behaviour without knowing the ruleset.
        """
        ...


_REGISTRY: dict[str, Ruleset[Any]] = {}


def register(ruleset: Ruleset[Any]) -> Ruleset[Any]:
    """Add a ruleset to the registry under its ``name``."""
    _REGISTRY[ruleset.name] = ruleset
    return ruleset


def get_ruleset(name: str) -> Ruleset[Any]:
    """Find a registered ruleset by name."""
    _load_builtin()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise UnknownIdError(
            f"no ruleset named {name!r}", fix=f"Use one of: {known}."
        ) from None


def registered() -> dict[str, Ruleset[Any]]:
    """Every registered ruleset by name."""
    _load_builtin()
    return dict(_REGISTRY)


def _load_builtin() -> None:
    # Importing the package registers the built-in rulesets; done lazily so that importing the
    # core stays cheap and free of ruleset modules.
    import rallypoint.rulesets  # noqa: F401
