"""What a ruleset is, as the core sees it: its Protocol, its commands and decisions, and the
optional parts it may add (the registry that finds one by name is :mod:`rallypoint.core.registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypeVar as DefaultedTypeVar

from rallypoint.core.differences import Difference
from rallypoint.core.errors import MalformedInputError
from rallypoint.core.events import EventModel
from rallypoint.core.json_types import JsonObject, JsonValue
from rallypoint.dice import ChanceNode, Roll, Roller
from rallypoint.errors import Hint

S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)
"""A state only read (the optional parts that take a state and return no state)."""
E = DefaultedTypeVar("E", bound=EventModel, default=EventModel)
"""A ruleset's own event type (its union of typed events). ``Ruleset[S]`` alone means any of
its events is an :class:`EventModel`, which is all the generic code (which only passes on what
``decide``/``read_event`` gave) needs; a function handed a concrete ruleset names both."""


class Command(BaseModel):
    """Base of every command: what a player asks for, made against a state version.

    Attributes:
        expected_version: The campaign version (number of stored events) the command was made
            against. A command whose version is not current is refused as stale.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

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

    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    kind: str
    subject: str
    prompt: str
    options: JsonObject = {}


C = TypeVar("C", bound=Command)
"""A ruleset's command type (its discriminated union of :class:`Command` models)."""


def parse_with(adapter: TypeAdapter[C], data: Mapping[str, JsonValue], ruleset: str) -> C:
    """Validate JSON into one of a ruleset's commands (a discriminated union on ``kind``).

    Raises:
        MalformedInputError: The JSON is not a command of this ruleset, naming the field.
    """
    try:
        command = adapter.validate_python(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = list(first["loc"])
        if loc and loc[0] == data.get("kind"):
            loc = loc[1:]  # the union's tag: ``where`` names the command's own field
        raise MalformedInputError(
            f"bad {ruleset} command: {first['msg']}",
            at=tuple(str(p) for p in loc),
            # True of every ruleset: one without verbs of its own is played through ``play``.
            fix="`rallypoint play` lists each command's fields.", instead=Hint.FIX_FIELD) from None
    return command


Policy = Callable[[S_contra, Decision, int], Command]
"""A named default policy: (state, decision, version) → the command that answers it."""


@dataclass(frozen=True)
class PolicyInfo(Generic[S_contra]):
    """A policy and the sentence that says what it does.

    Generic over the state its ``decide`` reads, and contravariant in it: a list of policies of
    rulesets whose state is not known here is ``PolicyInfo[Never]`` (names and summaries to
    show; ``decide`` is for those who hold the ruleset, through :meth:`Ruleset.policies`).
    """

    name: str
    summary: str
    decide: Policy[S_contra]


@runtime_checkable
class Ruleset(Protocol, Generic[S, E]):
    """The interface every ruleset provides to the core.

    A ruleset is its models, commands, typed events, a pure ``apply``, pending decisions, default
    policies and a TOML data file. ``decide`` validates a command against a state and returns the
    one typed event it produces (outcomes and rolls inside); ``read_event`` reads a stored payload
    of any schema version back into that type; ``apply`` folds a typed event into a new state,
    never mutates its input, and neither validates nor re-runs rules.
    """

    name: str
    title: str

    @property
    def state_type(self) -> type[S]:
        """The type of its state: every state its rules are handed is checked against it where
        the ruleset is found by name (:class:`rallypoint.core.erased.Checked`)."""
        ...

    @property
    def event_types(self) -> tuple[type[E], ...]:
        """The types of its events (its union's members), checked likewise."""
        ...

    def load_scenario(self, path: Path) -> JsonObject:
        """Read and validate a scenario file; return its JSON-ready form (stored in ``created``)."""
        ...

    def rules_data(self, scenario: Mapping[str, JsonValue]) -> JsonObject:
        """The ruleset's data (tables and parameters) with the scenario's overrides applied."""
        ...

    def initial_state(self, scenario: Mapping[str, JsonValue],
                      rules_data: Mapping[str, JsonValue]) -> S:
        """The state right after the campaign is created."""
        ...

    def parse_command(self, data: Mapping[str, JsonValue]) -> Command:
        """Build a command of this ruleset from JSON (``{"kind": ..., ...}``)."""
        ...

    def decide(self, state: S, command: Command, roller: Roller) -> E:
        """Validate ``command`` against ``state`` and return its typed event, rolls included."""
        ...

    def read_event(self, event_type: str, payload: Mapping[str, JsonValue]) -> E:
        """The typed event for a stored payload of any schema version (old ones upcast)."""
        ...

    def apply(self, state: S, event: E) -> S:
        """Fold one of this ruleset's typed events into a new state (pure; no rule runs)."""
        ...

    def pending(self, state: S) -> list[Decision]:
        """Decisions waiting on the player, in the order they should be answered."""
        ...

    def policies(self) -> Sequence[PolicyInfo[S]]:
        """Named default policies for automatic play; the first is the default."""
        ...

    def state_json(self, state: S) -> JsonObject:
        """A JSON-ready view of the state (for ``show --json`` and equality checks)."""
        ...

    def describe(self, event: E) -> str:
        """One line (plus roll lines) saying what one of this ruleset's typed events did."""
        ...

    def rolls(self, event: E) -> Sequence[Roll]:
        """Every roll stored in one of this ruleset's typed events, in roll order."""
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


class PartialKnowledge(Protocol, Generic[S]):
    """What a ruleset with secrets adds so that one seat's database can play on from a partial
    log: its own events whole and the other seats' redacted (play by e-mail with hidden parts,
    docs/two-player.md). Every method is optional; the core looks them up by name.
    """

    def apply_redacted(self, state: S, event_type: str,
                       payload: Mapping[str, JsonValue]) -> S:
        """Fold the public parts of an event redacted for this database's seat (``payload``
        holds ``{"$withheld": owner}`` markers). Must agree with :meth:`Ruleset.apply` on
        everything the seat may see (the public state and its own secrets)."""
        ...

    def check_public(self, state: S, event_type: str, payload: Mapping[str, JsonValue],
                     seat: str) -> Difference | None:
        """The first public part of an event redacted for this seat that the rules would not
        give: decided from this seat's ``state`` just before it and what the event shows, as
        far as public state decides it (the event's owner is ``seat``, the sender of the file).
        ``None``: every public part is what the rules give; what only the withheld parts decide
        is checked at the reveal. Called on import for every redacted event new in a file."""
        ...

    def owed(self, state: S, version: int) -> Command | None:
        """A command this database owes before its seat's next own event: what the other seat's
        events could not decide about this seat's secrets (TCS: the accrual of its pending
        sheets for turns the other seat advanced); ``None`` on a whole log. It rolls no dice."""
        ...


class StartNotes(Protocol, Generic[S_contra]):
    """What a ruleset may add so that ``rallypoint new`` says what a player would otherwise
    miss: a rule the scenario turned on by default, say. Optional; the core looks it up by
    name."""

    def start_notes(self, state: S_contra) -> Sequence[str]:
        """One line per thing the player should know as the campaign starts (none: empty)."""
        ...


class CommandTypes(Protocol):
    """What a ruleset may add so that generic front ends can offer its commands: the command
    models themselves. The generic web form builds one form per model from its JSON schema, and
    ``rallypoint play`` lists the kinds. Optional: without it ``rallypoint play KIND`` still
    works (the ruleset's ``parse_command`` judges the fields) and the web offers a JSON box.
    """

    def command_types(self) -> Sequence[type[Command]]:
        """Every command model, each with a ``kind: Literal[...]`` field."""
        ...


def command_kind(model: type[Command]) -> str:
    """The ``kind`` tag of a command model (its ``kind`` field's default)."""
    field = model.model_fields.get("kind")
    return str(field.default) if field is not None else model.__name__.lower()


@runtime_checkable
class CommandTypesCheck(Protocol):
    """:class:`CommandTypes` as a run-time check (a plain Protocol: one of any ruleset)."""

    def command_types(self) -> Sequence[type[Command]]: ...


@dataclass(frozen=True)
class DeclaredNode:
    """A roll the rules may make from a state, declared for the generic odds tables.

    Attributes:
        title: What the roll is for (``"north forages"``).
        node: The chance node the rules roll.
        reading: Turns its modified total into the rules' outcome (the ``reading`` the rules
            pass to :func:`rallypoint.dice.roll`), so the odds are the rules' own.
    """

    title: str
    node: ChanceNode
    reading: Callable[[int], str]

    def odds(self) -> dict[str, Fraction]:
        """Each outcome's exact chance, outcomes in order of their lowest total."""
        return self.node.outcomes(self.reading)


class ChanceNodes(Protocol, Generic[S_contra]):
    """What a ruleset may add so that generic front ends can show its odds: the rolls open in a
    state. Optional; the lab page of a ruleset without a view of its own lists them."""

    def chance_nodes(self, state: S_contra) -> Sequence[DeclaredNode]:
        """Every roll a command could make now, each with its reading."""
        ...


@runtime_checkable
class ChanceNodesCheck(Protocol):
    """:class:`ChanceNodes` as a run-time check, its state unknown (``object``: the caller
    checks the state against the ruleset's ``state_type`` before the call)."""

    def chance_nodes(self, state: object) -> Sequence[DeclaredNode]: ...
