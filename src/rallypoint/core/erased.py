"""A ruleset whose state type only it knows, checked at its edge: what the registry hands out.

Each ruleset is typed by its own state and events (``Ruleset[TcsState, TcsEvent]``), but the
registry finds one by a name read from a database at run time, so the code that asks for it
cannot know which. Rather than hand it out as ``Ruleset[Any]`` (which lets any value through as a
state, unchecked, and lets mypy check nothing), the registry wraps it in :class:`Checked`: a
``Ruleset[object, EventModel]`` that takes any state and event and tests each, before the rules
see it, against the types the ruleset declares (``state_type``, ``event_types``). A state of one
ruleset handed to another's rules is then a one-line :class:`TypeError` at the call, not an
``AttributeError`` deep in a rule.

This is the existential "some ruleset of some state type" made honest: mypy checks every call
against ``object`` (so a caller must narrow a state before reading it, see
:func:`rallypoint.core.campaign.state_of`), and the run time checks what mypy cannot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic

from rallypoint.core.events import EventModel
from rallypoint.core.json_types import JsonObject, JsonValue
from rallypoint.core.ruleset import (
    ChanceNodesCheck,
    Command,
    CommandTypesCheck,
    Decision,
    DeclaredNode,
    E,
    PolicyInfo,
    Ruleset,
    S,
)
from rallypoint.dice import Roll, Roller

ErasedRuleset = Ruleset[object, EventModel]
"""Some ruleset, its state and event types known only to itself and checked at every call (what
:func:`rallypoint.core.registry.get_ruleset` gives and a :class:`Campaign` holds)."""


class Checked(Generic[S, E]):
    """A ruleset that takes any state and event, and checks each against its declared types.

    Every member of :class:`~rallypoint.core.ruleset.Ruleset` is here; each that takes a state
    or an event raises :class:`TypeError` naming the ruleset and both types when it is not the
    ruleset's own. What comes back is the ruleset's own value, unchanged. The optional parts a
    ruleset may add (``owed``, ``due``, ``start_notes``...) are looked up on :attr:`rules`.

    Attributes:
        rules: The ruleset itself (for its optional parts, found by name).
    """

    def __init__(self, rules: Ruleset[S, E]) -> None:
        self._rules = rules
        # Read once: a fold checks every event, and an attribute of the rules costs a lookup.
        self._state_type: type[S] = rules.state_type
        self._event_types: tuple[type[E], ...] = rules.event_types
        self.name = rules.name
        self.title = rules.title

    def __repr__(self) -> str:
        return f"Checked({self._rules!r})"

    @property
    def rules(self) -> object:
        """The ruleset itself, for its optional parts (looked up by name, each with its own
        run-time check where it is used)."""
        return self._rules

    @property
    def state_type(self) -> type[object]:
        """The type of the ruleset's state."""
        return self._state_type

    @property
    def event_types(self) -> tuple[type[EventModel], ...]:
        """The types of the ruleset's events."""
        return self._event_types

    def _state(self, state: object) -> S:
        if not isinstance(state, self._state_type):
            raise TypeError(f"the {self.name} rules were handed a {type(state).__name__} as "
                            f"their state, not a {self._state_type.__name__}")
        return state

    def _event(self, event: EventModel) -> E:
        if not isinstance(event, self._event_types):
            raise TypeError(f"the {self.name} rules were handed a {type(event).__name__} "
                            "event, not one of theirs")
        return event

    def load_scenario(self, path: Path) -> JsonObject:
        """See :meth:`Ruleset.load_scenario`."""
        return self._rules.load_scenario(path)

    def rules_data(self, scenario: Mapping[str, JsonValue]) -> JsonObject:
        """See :meth:`Ruleset.rules_data`."""
        return self._rules.rules_data(scenario)

    def initial_state(self, scenario: Mapping[str, JsonValue],
                      rules_data: Mapping[str, JsonValue]) -> object:
        """See :meth:`Ruleset.initial_state`."""
        return self._rules.initial_state(scenario, rules_data)

    def parse_command(self, data: Mapping[str, JsonValue]) -> Command:
        """See :meth:`Ruleset.parse_command`."""
        return self._rules.parse_command(data)

    def decide(self, state: object, command: Command, roller: Roller) -> EventModel:
        """See :meth:`Ruleset.decide` (``state`` checked)."""
        return self._rules.decide(self._state(state), command, roller)

    def read_event(self, event_type: str, payload: Mapping[str, JsonValue]) -> EventModel:
        """See :meth:`Ruleset.read_event`."""
        return self._rules.read_event(event_type, payload)

    def apply(self, state: object, event: EventModel) -> object:
        """See :meth:`Ruleset.apply` (``state`` and ``event`` checked)."""
        return self._rules.apply(self._state(state), self._event(event))

    def pending(self, state: object) -> list[Decision]:
        """See :meth:`Ruleset.pending` (``state`` checked)."""
        return self._rules.pending(self._state(state))

    def policies(self) -> Sequence[PolicyInfo[object]]:
        """See :meth:`Ruleset.policies`: each policy checks the state it is handed."""
        return tuple(PolicyInfo(p.name, p.summary, _CheckedPolicy(self, p))
                     for p in self._rules.policies())

    def state_json(self, state: object) -> JsonObject:
        """See :meth:`Ruleset.state_json` (``state`` checked)."""
        return self._rules.state_json(self._state(state))

    def describe(self, event: EventModel) -> str:
        """See :meth:`Ruleset.describe` (``event`` checked)."""
        return self._rules.describe(self._event(event))

    def rolls(self, event: EventModel) -> Sequence[Roll]:
        """See :meth:`Ruleset.rolls` (``event`` checked)."""
        return self._rules.rolls(self._event(event))

    def example_scenarios(self) -> Sequence[Path]:
        """See :meth:`Ruleset.example_scenarios`."""
        return self._rules.example_scenarios()

    def conformance_commands(self, state: object, version: int) -> Command | None:
        """See :meth:`Ruleset.conformance_commands` (``state`` checked)."""
        return self._rules.conformance_commands(self._state(state), version)


@dataclass(frozen=True)
class _CheckedPolicy(Generic[S, E]):
    # A class, not a closure, so that a policy still pickles for a lab worker.
    checked: Checked[S, E]
    policy: PolicyInfo[S]

    def __call__(self, state: object, decision: Decision, version: int) -> Command:
        return self.policy.decide(self.checked._state(state), decision, version)


_ERASED: dict[int, tuple[object, ErasedRuleset]] = {}
"""One wrapper per ruleset object (kept beside it, so its id is never reused), so that the same
ruleset found twice is the same object."""


def erase(rules: Ruleset[S, E]) -> ErasedRuleset:
    """``rules`` as :data:`ErasedRuleset`, checked at every call; one wrapper per ruleset (and a
    wrapper is its own erasure)."""
    if isinstance(rules, Checked):
        return rules
    found = _ERASED.get(id(rules))
    if found is None:
        found = _ERASED[id(rules)] = (rules, Checked(rules))
    return found[1]


def rules_of(ruleset: object) -> object:
    """The ruleset object behind an erased one (itself if it is not wrapped): where the optional
    parts a ruleset may add are looked up by name."""
    return ruleset.rules if isinstance(ruleset, Checked) else ruleset


def command_types(ruleset: Ruleset[S, E]) -> Sequence[type[Command]]:
    """A ruleset's command models (:class:`~rallypoint.core.ruleset.CommandTypes`), or none when
    it does not say."""
    rules = rules_of(ruleset)
    if isinstance(rules, CommandTypesCheck):
        return rules.command_types()
    return ()


def chance_nodes(ruleset: Ruleset[S, E], state: S) -> Sequence[DeclaredNode]:
    """The rolls a ruleset declares open in ``state``
    (:class:`~rallypoint.core.ruleset.ChanceNodes`), or none.

    Raises:
        TypeError: ``state`` is not the ruleset's (one ruleset's state handed to another).
    """
    rules = rules_of(ruleset)
    if not isinstance(rules, ChanceNodesCheck):
        return ()
    if not isinstance(state, ruleset.state_type):
        raise TypeError(f"the {ruleset.name} rules were handed a {type(state).__name__} as "
                        f"their state, not a {ruleset.state_type.__name__}")
    return rules.chance_nodes(state)
