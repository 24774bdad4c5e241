"""A campaign: its event log folded into state, and commands turned into new events.

State is never stored: it is rebuilt by folding the effective events with the ruleset's pure
``apply``. Undo is an appended ``undone`` event naming the event it cancels; history is never
rewritten. A command carries the version it was made against and a stale one is refused.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rallypoint.core.errors import IllegalNowError, IntegrityError, StaleVersionError
from rallypoint.core.events import CREATED, GENESIS_HASH, UNDONE, EventRecord, NewEvent
from rallypoint.core.ruleset import Command, Ruleset, get_ruleset
from rallypoint.dice import Roller


def created_event(
    ruleset: Ruleset[Any], scenario_path: Path, name: str, seed: str | None = None
) -> NewEvent:
    """The ``created`` event for a new campaign from a scenario file.

    The scenario and the ruleset's data (with scenario overrides) are stored in the event itself,
    so later edits to a data file never change how an existing campaign replays.
    """
    return created_from_scenario(ruleset, ruleset.load_scenario(scenario_path), name, seed)


def created_from_scenario(
    ruleset: Ruleset[Any], scenario: dict[str, Any], name: str, seed: str | None = None
) -> NewEvent:
    """The ``created`` event from an already validated, JSON-ready scenario."""
    rules_data = ruleset.rules_data(scenario)
    # Build the initial state now so a scenario that validates but cannot start is refused
    # before anything is written.
    ruleset.initial_state(scenario, rules_data)
    return NewEvent(
        type=CREATED,
        payload={
            "ruleset": ruleset.name,
            "name": name,
            "scenario": scenario,
            "rules_data": rules_data,
            "seed": seed if seed is not None else secrets.token_hex(16),
        },
    )


@dataclass(frozen=True)
class Campaign:
    """An immutable view of a campaign at one version.

    Attributes:
        campaign_id: Store id.
        ruleset: The ruleset it plays.
        events: Every stored event, in order.
        state: The folded state of the effective events.
        undone: Seqs of events cancelled by ``undone`` events.
    """

    campaign_id: str
    ruleset: Ruleset[Any]
    events: tuple[EventRecord, ...]
    state: Any
    undone: frozenset[int]

    @property
    def version(self) -> int:
        """The number of stored events; commands must be made against this."""
        return len(self.events)

    @property
    def seed(self) -> str:
        """The campaign's dice seed (from its ``created`` event)."""
        return str(self.events[0].payload["seed"])

    @property
    def name(self) -> str:
        """The name given at creation."""
        return str(self.events[0].payload["name"])

    @classmethod
    def from_events(cls, events: Sequence[EventRecord]) -> Campaign:
        """Rebuild a campaign by folding its log."""
        if not events or events[0].type != CREATED:
            raise IntegrityError(
                "the log does not start with a 'created' event",
                fix="Import the campaign again from an export file.",
            )
        first = events[0].payload
        ruleset = get_ruleset(str(first["ruleset"]))
        undone = frozenset(
            int(e.payload["target"]) for e in events if e.type == UNDONE
        )
        state = fold(ruleset, events, undone)
        return cls(events[0].campaign_id, ruleset, tuple(events), state, undone)

    def effective(self) -> list[EventRecord]:
        """Ruleset events that still count (not undone), in order."""
        return [
            e for e in self.events[1:] if e.type != UNDONE and e.seq not in self.undone
        ]

    def check_version(self, command: Command) -> None:
        """Refuse a command made against another version."""
        if command.expected_version != self.version:
            raise StaleVersionError(
                f"the command was made against version {command.expected_version}, "
                f"but {self.name!r} is at version {self.version}",
                fix="Reload the campaign and make the command again.",
            )

    def decide(self, command: Command, roller: Roller) -> NewEvent:
        """Validate ``command`` and return its event; the campaign itself is unchanged."""
        self.check_version(command)
        return self.ruleset.decide(self.state, command, roller)

    def undo_event(self, expected_version: int) -> NewEvent:
        """The ``undone`` event that cancels the latest effective event."""
        self.check_version(Command(expected_version=expected_version))
        effective = self.effective()
        if not effective:
            raise IllegalNowError(
                f"nothing to undo in {self.name!r}",
                fix="Undo only after a command has been recorded.",
            )
        target = effective[-1]
        return NewEvent(
            type=UNDONE,
            payload={
                "target": target.seq,
                "summary": self.ruleset.describe(target.type, target.payload),
            },
        )

    def record(self, event: NewEvent) -> Campaign:
        """Seal ``event`` as the next event (in memory) and return the campaign after it."""
        sealed = EventRecord.seal(self.campaign_id, self.version + 1, event, self.events[-1].hash)
        return self.with_event(sealed)

    def execute(self, command: Command, roller: Roller) -> Campaign:
        """Decide ``command`` and record its event in memory (the store is the caller's job)."""
        return self.record(self.decide(command, roller))

    def undo(self) -> Campaign:
        """Record an ``undone`` event for the latest effective event (in memory)."""
        return self.record(self.undo_event(self.version))

    def with_event(self, record: EventRecord) -> Campaign:
        """The campaign after ``record`` is appended (apply is pure, so this is cheap)."""
        events = (*self.events, record)
        if record.type == UNDONE:
            undone = self.undone | {int(record.payload["target"])}
            return Campaign(self.campaign_id, self.ruleset, events, fold(
                self.ruleset, events, undone), undone)
        state = self.ruleset.apply(self.state, record.type, record.payload)
        return Campaign(self.campaign_id, self.ruleset, events, state, self.undone)


def start(created: NewEvent, campaign_id: str = "memory") -> Campaign:
    """A campaign held only in memory, from its ``created`` event (tests, demo, simulation)."""
    return Campaign.from_events([EventRecord.seal(campaign_id, 1, created, GENESIS_HASH)])


def fold(ruleset: Ruleset[Any], events: Sequence[EventRecord], undone: frozenset[int]) -> Any:
    """Fold the effective events of a log into state."""
    first: Mapping[str, Any] = events[0].payload
    state = ruleset.initial_state(first["scenario"], first["rules_data"])
    for event in events[1:]:
        if event.type == UNDONE or event.seq in undone:
            continue
        state = ruleset.apply(state, event.type, event.payload)
    return state
