"""What a ruleset is, as the core sees it, and the registry that finds one by name.

The core never imports a ruleset module by name: each installed ruleset declares a
:class:`RulesetPlugin` under the ``rallypoint.rulesets`` entry-point group, and everything else
looks rulesets up here. There is no ``if ruleset == ...`` anywhere.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypeIs
from typing_extensions import TypeVar as DefaultedTypeVar

from rallypoint.core.differences import Difference
from rallypoint.core.errors import MalformedInputError, UnknownIdError
from rallypoint.core.events import EventModel
from rallypoint.core.json_types import JsonObject, JsonValue
from rallypoint.dice import ChanceNode, Roll, Roller
from rallypoint.errors import Hint

S = TypeVar("S")
T = TypeVar("T")
"""What a plugin's part is: the type its run-time check proves (:meth:`RulesetPlugin.load`)."""
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


def command_types(ruleset: Ruleset[S]) -> Sequence[type[Command]]:
    """A ruleset's command models (:class:`CommandTypes`), or none when it does not say."""
    if isinstance(ruleset, _CommandTypesCheck):
        return ruleset.command_types()
    return ()


def command_kind(model: type[Command]) -> str:
    """The ``kind`` tag of a command model (its ``kind`` field's default)."""
    field = model.model_fields.get("kind")
    return str(field.default) if field is not None else model.__name__.lower()


@runtime_checkable
class _CommandTypesCheck(Protocol):
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
class _ChanceNodesCheck(Protocol):
    def chance_nodes(self, state: Any) -> Sequence[DeclaredNode]: ...


def chance_nodes(ruleset: Ruleset[S], state: S) -> Sequence[DeclaredNode]:
    """The rolls a ruleset declares open in ``state`` (:class:`ChanceNodes`), or none."""
    if isinstance(ruleset, _ChanceNodesCheck):
        return ruleset.chance_nodes(state)
    return ()


ENTRY_POINT_GROUP = "rallypoint.rulesets"
"""The entry-point group a ruleset registers under (``[project.entry-points."rallypoint.rulesets"]``
in ``pyproject.toml``): ``name = "package.module:PLUGIN"``, a :class:`RulesetPlugin`."""


@dataclass(frozen=True)
class RulesetPlugin:
    """How one ruleset plugs in: its name and where each of its parts lives.

    Every part is a ``"module:attribute"`` reference, imported only when a front end needs that
    part, so listing the rulesets costs nothing and a command loads only its campaign's ruleset.

    Attributes:
        name: The ruleset key stored in every campaign (``created`` event) of it.
        rules: The :class:`Ruleset` object.
        cli: A typer app with the ruleset's verbs (``rallypoint <name> ...``).
        render: ``render(campaign) -> None``: how ``rallypoint show`` prints a campaign of it.
        odds_cli: A typer app whose commands join ``rallypoint odds``.
        simulate_cli: A typer app whose commands join ``rallypoint simulate``.
        lab: The module of its lab simulation (whole-campaign Monte Carlo).
        secrets: Its :class:`rallypoint.core.visibility.Declaration`: what is secret to whom,
            and which side each command belongs to (none: nothing secret, any seat acts).
        readings: Its ``readings(rules_data)`` function: the clauses its seed leaves open, the
            reading taken of each and its switch (:mod:`rallypoint.core.readings`).
        web: Its campaign page, a :class:`rallypoint.web.rulesets.RulesetView`.
        templates: The package whose ``templates/`` folder holds its web page templates,
            addressed by the web as ``"<name>/<file>"`` (e.g. ``"rallypoint.rulesets.tcs.front"``
            makes ``tcs/campaign.html`` its ``front/templates/campaign.html``).
        builder: What it adds to the web's scenario builder, a
            :class:`rallypoint.web.builder_part.BuilderPart` (field suggestions, a part of the
            page of its own).
        words: Its :data:`~rallypoint.core.parts.CommandWords`: what to type for each kind of
            due command.
        demo: Its :class:`~rallypoint.core.parts.DemoPart`: its scene in ``rallypoint demo``.
        odds: Its :class:`~rallypoint.core.parts.OddsPart`: exact odds tables for the lab page.
        fixes: Its command line's words for its typed fixes (:class:`rallypoint.errors.Fix`):
            a mapping of fix key → sentence (``{name}`` filled from the fix's values).

    Every front part is optional: without ``render`` ``show`` prints the state as an outline;
    without ``cli`` ``rallypoint play KIND FIELD=VALUE`` sends its commands; without ``web`` the
    page shows its state and a form per command (:class:`CommandTypes`); without ``odds`` the
    lab page shows the exact odds of its declared chance nodes (:class:`ChanceNodes`); without
    ``words`` a due item says ``rallypoint play KIND``; without ``demo`` the demo skips it.
    See docs/own-ruleset.md.
    """

    name: str
    rules: str
    cli: str | None = None
    render: str | None = None
    odds_cli: str | None = None
    simulate_cli: str | None = None
    lab: str | None = None
    secrets: str | None = None
    readings: str | None = None
    web: str | None = None
    templates: str | None = None
    builder: str | None = None
    words: str | None = None
    demo: str | None = None
    odds: str | None = None
    fixes: str | None = None

    def load(self, part: str, check: Callable[[object], TypeIs[T]]) -> T:
        """Import one part (``"demo"``) and return it as what ``check``, the run-time test
        beside the part's type (:func:`rallypoint.core.parts.is_demo_part`), finds it is: a
        plugin is another package's code, so what it names is tested, not trusted.

        Raises:
            UnknownIdError: The ruleset has no such part, or what it names fails ``check``.
        """
        reference = getattr(self, part, None)
        if not isinstance(reference, str):
            raise UnknownIdError(f"the {self.name} ruleset has no {part!r} part",
                                 fix="Use a part its plugin declares.")
        module, _, attribute = reference.partition(":")
        found: object = getattr(importlib.import_module(module), attribute)
        if not check(found):
            raise UnknownIdError(
                f"the {self.name} ruleset's {part!r} part {reference!r} is a "
                f"{type(found).__name__}, not what a {part!r} part must be",
                fix=f"Point {part} at the object RulesetPlugin's docstring names for it "
                    "(docs/own-ruleset.md).")
        return found

    def ruleset(self) -> Ruleset[Any]:
        """The ruleset itself (imports its rule modules)."""
        return self.load("rules", _is_ruleset)


def _is_ruleset(found: object) -> TypeIs[Ruleset[Any]]:
    # Only the methods' presence can be tested at run time; the state type is the ruleset's.
    return isinstance(found, Ruleset)


_REGISTERED: dict[str, RulesetPlugin | Ruleset[Any, Any]] = {}
"""Rulesets of different state and event types side by side (an existential: each is checked
where it is registered, and :func:`get_ruleset` gives it back erased to ``Ruleset[Any]``)."""


def register(ruleset: Ruleset[S, E] | RulesetPlugin) -> Ruleset[S, E] | RulesetPlugin:
    """Register a ruleset (or its plugin) at run time, ahead of any installed under the same name.

    Installed rulesets need no call: they are found through the ``rallypoint.rulesets`` entry
    points. This is for rulesets made in a test or a notebook, or a package that cannot declare
    an entry point: ``register(RulesetPlugin(name="mine", rules="mine.rules:RULESET"))``. A
    plugin registered so is found by every front end like an installed one; a bare
    :class:`Ruleset` has no front parts (every front end uses its generic fallback).
    """
    _REGISTERED[ruleset.name] = ruleset
    return ruleset


def unregister(name: str) -> None:
    """Forget a ruleset registered at run time (installed ones stay)."""
    _REGISTERED.pop(name, None)


def plugins() -> dict[str, RulesetPlugin]:
    """Every ruleset plugin: the installed ones sorted by name, then those registered at run
    time (imports no rule code of an installed one)."""
    found = {name: _plugin_from(point) for name, point in _entry_points().items()}
    found.update({name: _as_plugin(r) for name, r in _REGISTERED.items()})
    return found


def plugin(name: str) -> RulesetPlugin:
    """The plugin of one ruleset, registered at run time or installed (imports only its plugin
    module).

    Raises:
        UnknownIdError: No ruleset of that name is registered or installed.
    """
    if name in _REGISTERED:
        return _as_plugin(_REGISTERED[name])
    point = _entry_points().get(name)
    if point is None:
        raise _unknown(name)
    return _plugin_from(point)


def _as_plugin(found: RulesetPlugin | Ruleset[Any]) -> RulesetPlugin:
    # A bare ruleset registered at run time has no module to name: no parts but its rules,
    # which get_ruleset finds in the run-time registry first.
    return found if isinstance(found, RulesetPlugin) else RulesetPlugin(found.name, rules="")


def get_ruleset(name: str) -> Ruleset[Any]:
    """Find a ruleset by name, importing only that one.

    Raises:
        UnknownIdError: No ruleset of that name is registered or installed.
    """
    found = _REGISTERED.get(name)
    if found is None:
        found = plugin(name)
    return found.ruleset() if isinstance(found, RulesetPlugin) else found


def registered() -> dict[str, Ruleset[Any]]:
    """Every ruleset by name (installed ones sorted by name, then run-time ones)."""
    names = [*_entry_points(), *(n for n in _REGISTERED if n not in _entry_points())]
    return {name: get_ruleset(name) for name in names}


@functools.cache
def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    # Sorted by name: entry points have no order of their own across installers.
    points = {point.name: point for point in sorted(
        importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name)}
    if not points:
        raise UnknownIdError(
            f"no rulesets are installed (entry-point group {ENTRY_POINT_GROUP!r} is empty)",
            fix="Reinstall rallypoint (`uv sync`) so its rulesets are registered.",
            instead=Hint.SERVER)
    return points


def _plugin_from(point: importlib.metadata.EntryPoint) -> RulesetPlugin:
    loaded = point.load()
    if not isinstance(loaded, RulesetPlugin) or loaded.name != point.name:
        raise UnknownIdError(
            f"entry point {point.name!r} = {point.value!r} is not a RulesetPlugin of that name",
            fix="Point the entry point at the ruleset's PLUGIN object.")
    return loaded


def ruleset_line_fix(where: str = "top-level") -> str:
    """The fix for a scenario file that names no ruleset: the line to add, with the names of
    the rulesets installed (``where``: which line, ``"top-level"`` or ``"first"``)."""
    names = sorted(plugins())
    return f'Add a {where} line like ruleset = "{names[-1]}" (installed: {", ".join(names)}).'


def _unknown(name: str) -> UnknownIdError:
    known = ", ".join(sorted({*_entry_points(), *_REGISTERED})) or "none"
    return UnknownIdError(f"no ruleset named {name!r}", fix=f"Use one of: {known}.")
