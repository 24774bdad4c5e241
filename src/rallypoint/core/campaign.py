"""A campaign: its event log folded into state, and commands turned into new events.

State is never stored: it is rebuilt by folding the effective events with the ruleset's pure
``apply``. Undo is an appended ``undone`` event naming the event it cancels; history is never
rewritten. A command carries the version it was made against and a stale one is refused.
"""

from __future__ import annotations

import gc
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rallypoint.core.erased import ErasedRuleset, rules_of
from rallypoint.core.errors import IllegalNowError, IntegrityError, StaleVersionError
from rallypoint.core.events import (
    COMMANDS_V,
    CORE_EVENTS,
    CREATED,
    GENESIS_HASH,
    REDACTED_KEY,
    UNDONE,
    WITHHELD_KEY,
    Created,
    EventModel,
    EventRecord,
    NewEvent,
    Undone,
    Withheld,
    is_redacted_payload,
)
from rallypoint.core.frozenlog import FrozenLog, grown
from rallypoint.core.json_types import JsonObject
from rallypoint.core.registry import get_ruleset
from rallypoint.core.ruleset import Command, E, Ruleset, S
from rallypoint.dice import Roll, Roller
from rallypoint.errors import Hint


def created_event(
    ruleset: Ruleset[S, E], scenario_path: Path, name: str, seed: str | None = None
) -> NewEvent:
    """The ``created`` event for a new campaign from a scenario file.

    The scenario and the ruleset's data (with scenario overrides) are stored in the event itself,
    so later edits to a data file never change how an existing campaign replays.
    """
    return created_from_scenario(ruleset, ruleset.load_scenario(scenario_path), name, seed)


def created_from_scenario(
    ruleset: Ruleset[S, E], scenario: JsonObject, name: str, seed: str | None = None
) -> NewEvent:
    """The ``created`` event from an already validated, JSON-ready scenario."""
    rules_data = ruleset.rules_data(scenario)
    # Build the initial state now so a scenario that validates but cannot start is refused
    # before anything is written.
    ruleset.initial_state(scenario, rules_data)
    created = NewEvent.of(Created(ruleset=ruleset.name, name=name, scenario=scenario,
                                  rules_data=rules_data,
                                  seed=seed if seed is not None else secrets.token_hex(16),
                                  commands=COMMANDS_V))
    if seed is None:
        return created  # a random seed (dropped anyway when the dice are committed)
    from rallypoint.core.blinds import with_blind

    # A seed typed in (a word anyone might guess) is withheld from the seats of a campaign of
    # two or more sides: blinded like any other secret (issue 18).
    return with_blind((), created, secrets.token_hex(16))


@contextmanager
def bulk_reading() -> Iterator[None]:
    """Pause the cyclic garbage collector while a whole log is read and folded.

    Reading allocates a few frozen values per event and keeps them all; with the collector on,
    its passes over the growing heap cost more than the reading itself (about 20 µs an event on
    a 20 000-event log). The values hold no reference cycles, so nothing is left for it to find.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_event(ruleset: ErasedRuleset, record: EventRecord) -> EventModel:
    # ``record`` may be any stored event with ``type`` and ``payload`` (an EventRecord or an
    # audit's view of one).
    """The typed event of a stored record (core or ruleset), upcast to the current version.

    A ruleset event redacted for this database's seat (a partial log, see
    :class:`rallypoint.core.events.Withheld`) reads as :class:`Withheld`; a redacted core event
    reads with its withheld values left out (an ``undone``'s target is always public).
    """
    if record.type in (CREATED, UNDONE):
        return read_core(record)
    if is_redacted_payload(record.payload):
        return Withheld.model_construct(type=record.type, shown=record.payload)
    return ruleset.read_event(record.type, record.payload)


def read_core(record: EventRecord) -> Created | Undone:
    """A ``created`` or ``undone`` record as its core event, with any withheld value left out."""
    payload = record.payload
    if is_redacted_payload(payload):
        payload = _public_core(record.type, payload)
    return CORE_EVENTS.read(record.type, payload)


def _public_core(event_type: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A redacted core payload without its withheld values (``created``: a legacy plain seed;
    ``undone``: its summary), so that it reads as its core event."""
    from rallypoint.core.visibility import BLIND

    # Either format: the current one leaves withheld values out; the old one put a nested
    # ``{"$withheld": owner}`` marker in their place.
    public = {k: v for k, v in payload.items()
              if k not in (REDACTED_KEY, WITHHELD_KEY, BLIND)
              and not (isinstance(v, Mapping) and WITHHELD_KEY in v)}
    if event_type == UNDONE and "summary" not in public:
        public["summary"] = "an event whose details are withheld"
    return public


def apply_event(ruleset: ErasedRuleset, state: object, event: EventModel) -> object:
    """Fold one typed event; a :class:`Withheld` one through the ruleset's ``apply_redacted``.

    Raises:
        IntegrityError: A redacted event in a campaign whose ruleset cannot fold one.
    """
    if isinstance(event, Withheld):
        partial = getattr(rules_of(ruleset), "apply_redacted", None)
        if partial is None:
            raise IntegrityError(
                f"the {ruleset.name} ruleset cannot play on from a log with withheld events "
                f"(a redacted {event.type!r})", where=f"{event.type}",
                fix="Ask for a file exported without --for (it carries every event whole)",
                instead=Hint.BY_MAIL)
        return partial(state, event.type, event.shown)
    return ruleset.apply(state, event)


def describe_event(ruleset: ErasedRuleset, event: EventModel) -> str:
    """What a typed event did, for the log (core and withheld events included)."""
    if isinstance(event, Created):
        return f"campaign {event.name!r} created ({event.ruleset})"
    if isinstance(event, Undone):
        return f"undo #{event.target}: {event.summary.splitlines()[0]}"
    if isinstance(event, Withheld):
        from rallypoint.core.visibility import declaration_of

        return declaration_of(ruleset.name).public_summary(event.type, event.shown)
    return ruleset.describe(event)


def event_rolls(ruleset: ErasedRuleset, event: EventModel) -> Sequence[Roll]:
    """Every roll stored in a typed event (none for core and withheld events)."""
    return () if isinstance(event, Created | Undone | Withheld) else ruleset.rolls(event)


def stored_rolls(ruleset: ErasedRuleset) -> Callable[[Any], Sequence[Roll]]:
    """A reader of the rolls stored in any record of a ``ruleset`` campaign (read afresh from
    its payload, e.g. for an audit of a log that may have been edited)."""
    def rolls(record: Any) -> Sequence[Roll]:
        return event_rolls(ruleset, read_event(ruleset, record))
    return rolls


@dataclass(frozen=True)
class Campaign:
    """An immutable view of a campaign at one version.

    Attributes:
        campaign_id: Store id.
        ruleset: The ruleset it plays.
        events: Every stored event, in order; or, for a campaign resumed from a state snapshot,
            the ``created`` event and the events from the snapshot's version on (see
            :attr:`complete`).
        state: The folded state of the effective events.
        undone: Seqs of events cancelled by ``undone`` events.
        typed: The typed event of each event in :attr:`events` (same order; read and upcast
            once).

    :attr:`events` and :attr:`typed` are read-only sequences
    (:class:`~rallypoint.core.frozenlog.FrozenLog`), so that :meth:`with_event` costs O(1)
    rather than a copy of the log.
    """

    campaign_id: str
    ruleset: ErasedRuleset
    events: Sequence[EventRecord]
    state: object
    undone: frozenset[int]
    typed: Sequence[EventModel]

    @property
    def created(self) -> Created:
        """The ``created`` event."""
        first = self.typed[0]
        assert isinstance(first, Created)
        return first

    @property
    def version(self) -> int:
        """The number of stored events (the latest seq); commands must be made against this."""
        return self.events[-1].seq

    @property
    def complete(self) -> bool:
        """Whether :attr:`events` holds the whole log (undo and the log need it)."""
        return len(self.events) == self.events[-1].seq

    def _require_complete(self) -> None:
        if not self.complete:
            raise IntegrityError("this campaign was resumed from a snapshot without its whole log",
                                 fix="Load it whole (Session.load(ref, whole=True)).")

    @property
    def seed(self) -> str:
        """The campaign's plain dice seed (from its ``created`` event).

        Raises:
            IllegalNowError: A ``dice-v1`` campaign, which has no plain seed.
        """
        if self.created.seed is None:
            raise IllegalNowError(
                f"{self.name!r} rolls its dice by dice-v1 and has no plain seed",
                fix="Roll through the session, which holds the campaign's dice.")
        return self.created.seed

    @property
    def name(self) -> str:
        """The name given at creation."""
        return self.created.name

    def event(self, seq: int) -> EventModel:
        """The typed event stored at ``seq`` (1-based) among those in hand."""
        # The events in hand are ``created`` plus a contiguous run ending at the version.
        index = seq - 1 if seq == 1 or self.complete else len(self.events) - 1 - (
            self.version - seq)
        if not 0 <= index < len(self.events) or self.events[index].seq != seq:
            self._require_complete()
        return self.typed[index]

    def describe(self, seq: int) -> str:
        """What the event at ``seq`` did, for the log (core events included)."""
        return describe_event(self.ruleset, self.event(seq))

    def rolls(self, seq: int) -> Sequence[Roll]:
        """Every roll stored in the event at ``seq`` (none for core events)."""
        return event_rolls(self.ruleset, self.event(seq))

    @classmethod
    def from_events(cls, events: Sequence[EventRecord]) -> Campaign:
        """Rebuild a campaign by reading (and upcasting) each stored event once and folding."""
        if not events or events[0].type != CREATED:
            raise IntegrityError(
                "the log does not start with a 'created' event",
                fix="Import the campaign again from an export file.",
            )
        first = read_core(events[0])  # a redacted one (a withheld legacy seed) reads too
        assert isinstance(first, Created)
        ruleset = get_ruleset(first.ruleset)
        with bulk_reading():
            typed = [read_event(ruleset, e) for e in events]
            undone = frozenset(t.target for t in typed if isinstance(t, Undone))
            state = fold(ruleset, typed, undone)
        return cls(events[0].campaign_id, ruleset, FrozenLog(events), state, undone,
                   FrozenLog(typed))

    def effective(self) -> list[EventRecord]:
        """Ruleset events that still count (not undone), in order."""
        self._require_complete()
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
        return NewEvent.of(self.ruleset.decide(self.state, command, roller))

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
        from rallypoint.core.blinds import with_blind

        # Blinded like any event that hides something: an undone hidden event withholds its
        # summary, which a guess could otherwise be hashed against (issue 18).
        return with_blind(self.events, NewEvent.of(Undone(
            target=target.seq, summary=self.describe(target.seq))), secrets.token_hex(16))

    def record(self, event: NewEvent) -> Campaign:
        """Seal ``event`` as the next event (in memory) and return the campaign after it."""
        sealed = EventRecord.seal(self.campaign_id, self.version + 1, event, self.events[-1].hash)
        return self.with_event(sealed, event.event)

    def execute(self, command: Command, roller: Roller) -> Campaign:
        """Decide ``command`` and record its event in memory (the store is the caller's job)."""
        return self.record(self.decide(command, roller))

    def undo(self) -> Campaign:
        """Record an ``undone`` event for the latest effective event (in memory)."""
        return self.record(self.undo_event(self.version))

    def with_event(self, record: EventRecord, event: EventModel | None = None) -> Campaign:
        """The campaign after ``record`` is appended (apply is pure, so this is cheap).

        Args:
            record: The stored (or sealed) event.
            event: Its typed event when the caller has it (saves reading the payload back).
        """
        typed_event = event if event is not None else read_event(self.ruleset, record)
        events = grown(self.events, record)
        typed = grown(self.typed, typed_event)
        if isinstance(typed_event, Undone):
            self._require_complete()
            undone = self.undone | {typed_event.target}
            return Campaign(self.campaign_id, self.ruleset, events,
                            fold(self.ruleset, typed, undone), undone, typed)
        state = apply_event(self.ruleset, self.state, typed_event)
        return Campaign(self.campaign_id, self.ruleset, events, state, self.undone, typed)


def state_of(campaign: Campaign, kind: type[S]) -> S:
    """The campaign's state as its ruleset's own type, checked, not trusted: a ruleset's front
    part knows its state type; the session holds campaigns of every ruleset.

    Raises:
        TypeError: The state is not a ``kind`` (a front part was handed another ruleset's
            campaign: a bug, not a player's mistake).
    """
    state = campaign.state
    if not isinstance(state, kind):
        raise TypeError(f"campaign {campaign.name!r} plays {campaign.ruleset.name}: its state "
                        f"is a {type(state).__name__}, not a {kind.__name__}")
    return state


def start(created: NewEvent, campaign_id: str = "memory") -> Campaign:
    """A campaign held only in memory, from its ``created`` event (tests, demo, simulation)."""
    return Campaign.from_events([EventRecord.seal(campaign_id, 1, created, GENESIS_HASH)])


def fold(ruleset: ErasedRuleset, typed: Sequence[EventModel], undone: frozenset[int]) -> object:
    """Fold the effective typed events of a log (``typed[0]`` is ``created``) into state."""
    first = typed[0]
    assert isinstance(first, Created)
    state = ruleset.initial_state(first.scenario, first.rules_data)
    for seq, event in enumerate(typed[1:], start=2):
        if isinstance(event, Undone) or seq in undone:
            continue
        state = apply_event(ruleset, state, event)
    return state
