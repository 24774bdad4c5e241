"""Event records and the hash chain that makes the log tamper-evident.

Every event of a campaign has a contiguous sequence number (``seq``, starting at 1 with the
``created`` event) and a hash over its content and the previous event's hash. Editing,
dropping or reordering any stored event breaks the chain from that point on, which
``rallypoint verify`` reports.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from types import MappingProxyType
from typing import (
    Annotated,
    Any,
    ClassVar,
    Final,
    Generic,
    Literal,
    TypeVar,
    get_args,
    get_origin,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
)

from rallypoint.core.errors import IntegrityError

GENESIS_HASH = "0" * 64
"""The ``prev_hash`` of a campaign's first event."""

CREATED = "created"
"""Core event type: a campaign begins. Payload: ruleset, name, scenario, rules_data, seed."""

UNDONE = "undone"
"""Core event type: an earlier event stops counting. Payload: ``target`` (seq), ``summary``."""


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, UTF-8 kept, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def event_hash(
    campaign_id: str, seq: int, type_: str, payload: dict[str, Any], recorded_at: str,
    prev_hash: str,
) -> str:
    """SHA-256 (hex) of the canonical JSON of an event's content plus the previous hash."""
    body = canonical_json(
        {
            "campaign_id": campaign_id,
            "seq": seq,
            "type": type_,
            "payload": payload,
            "recorded_at": recorded_at,
            "prev_hash": prev_hash,
        }
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


_ENCODE: Final = json.JSONEncoder(ensure_ascii=False).encode


def text_hash(campaign_id: str, seq: int, type_: str, payload_text: str, recorded_at: str,
              prev_hash: str) -> str:
    """:func:`event_hash` of an event whose payload is given as its canonical JSON text.

    The hashed body is the same string :func:`event_hash` builds (the keys in sorted order, the
    payload's canonical text inside it), so the two agree whenever ``payload_text`` is
    :func:`canonical_json` of the payload: a stored row is checked from its text without
    parsing it (:mod:`rallypoint.store.integrity`), and an import hashes the text it then
    stores, serialising each payload once.
    """
    body = (f'{{"campaign_id":{_ENCODE(campaign_id)},"payload":{payload_text},'
            f'"prev_hash":{_ENCODE(prev_hash)},"recorded_at":{_ENCODE(recorded_at)},'
            f'"seq":{int(seq)},"type":{_ENCODE(type_)}}}')
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def now_text() -> str:
    """The current UTC time as ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


K = TypeVar("K")
V = TypeVar("V")


def _freeze(value: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(value))


FrozenMap = Annotated[Mapping[K, V], AfterValidator(_freeze), PlainSerializer(dict)]
"""A read-only mapping field of an event (a ``MappingProxyType``; JSON object when dumped)."""


MADE_BY = "made_by"
"""The payload key of the command that made an event (:class:`MadeBy`); see docs/events.md."""

COMMANDS_V = 1
"""Version of the :class:`MadeBy` envelope. A ``created`` event carrying ``commands`` names the
version every ruleset event of its campaign records its command in."""


class MadeBy(BaseModel):
    """The command that made an event, recorded with it so a receiver can decide it again.

    Joined by the session after ``decide`` (rules never read it). The event's own ``v`` names
    the ruleset schema it was decided in; a receiver re-executes the command against its own
    state with the event's proven dice and must get the same event (docs/two-player.md).

    Attributes:
        v: The envelope's version (:data:`COMMANDS_V`).
        command: The command's JSON, without ``expected_version`` (the event's seq fixes it).
        seat: The seat whose database decided it (two-seat play), else ``None``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    v: int = COMMANDS_V
    command: FrozenMap[str, Any]
    seat: str | None = None


class EventModel(BaseModel):
    """Base of every typed event: frozen, no unknown fields, a ``type`` tag and a schema version.

    Each ruleset's events are a discriminated union (on ``type``) of subclasses that fix ``type``
    with a ``Literal``. The stored payload is the model without ``type`` (the store keeps the type
    beside it), and always carries ``v``, the ruleset's event schema version, so an old payload
    can be recognised and upcast on read (see :class:`EventReader`).

    Attributes:
        type: The event type.
        v: The schema version the payload was written in (after upcasting: the current one).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True,
                              defer_build=True)

    type: str
    v: int
    dice_proof: FrozenMap[str, Any] | None = None
    """The proof of the event's dice in a ``dice-v1`` campaign, joined by the front end after
    ``decide`` (:func:`rallypoint.dice.play.with_proof`); rules never read it."""
    blind: str | None = None
    """Random hex joined by the front end to an event that hides a secret from a seat, so that its
    hash cannot be brute-forced (:mod:`rallypoint.core.visibility`); rules never read it."""

    made_by: MadeBy | None = None
    """The command that made the event (:class:`MadeBy`), joined by the session after ``decide``;
    absent from events recorded before commands were; rules never read it."""

    _omit_when_none: ClassVar[tuple[str, ...]] = ("dice_proof", "blind", "made_by")

    def payload(self) -> dict[str, Any]:
        """The JSON payload to store: every field but ``type`` (by its stored name); envelope
        keys that are absent stay absent."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude={"type"}, by_alias=True)
        for key in self._omit_when_none:
            if data.get(key, 0) is None:
                del data[key]
        made = data.get(MADE_BY)
        if made is not None and made.get("seat") is None:
            del made["seat"]
        return data


Upcaster = Callable[[str, dict[str, Any]], dict[str, Any]]
"""Turns one event payload of schema version *n* into version *n + 1*: (type, payload) → payload.

It sees only the stored payload (never state or rules), so upcasting is as cheap and as fixed as
the old format itself; it must set ``v`` to *n + 1*."""

E = TypeVar("E", bound=EventModel)


class EventReader(Generic[E]):
    """Reads stored ``(type, payload)`` pairs into one union of typed events, upcasting old ones.

    A payload without ``v`` is version 1 (everything written before schema versions existed).
    Each version below ``current`` goes through its upcaster in turn; the result is validated
    once into the union.

    Args:
        union: The discriminated union (``Annotated[A | B, Field(discriminator="type")]``).
        current: The schema version events are written in now.
        upcasters: ``{n: upcaster from n to n + 1}`` for every ``n`` below ``current``.
        ruleset: Named in errors.
    """

    def __init__(self, union: Any, current: int, upcasters: Mapping[int, Upcaster],
                 ruleset: str) -> None:
        missing = [n for n in range(1, current) if n not in upcasters]
        if missing:
            raise ValueError(f"{ruleset}: no upcaster from event schema version(s) {missing}")
        self.union = union
        self.current = current
        self.upcasters = dict(upcasters)
        self.ruleset = ruleset
        self._models: dict[str, type[E]] | None = None

    @property
    def models(self) -> Mapping[str, type[E]]:
        """Each event model of the union by its ``type`` tag.

        A payload is validated by its own model, not by the union: with ``defer_build`` a
        command builds the validators of only the event types its campaign holds, not all.
        """
        if self._models is None:
            inner = get_args(self.union)[0] if get_origin(self.union) is Annotated else self.union
            members = get_args(inner) or (inner,)
            self._models = {m.model_fields["type"].default: m for m in members}
        return self._models

    def upcast(self, event_type: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The payload brought to the current schema version (a new dict; input unchanged)."""
        data = dict(payload)
        version = data.get("v", 1)
        if type(version) is not int or not 1 <= version <= self.current:
            raise IntegrityError(
                f"{self.ruleset} event {event_type!r} has schema version {version!r}; this "
                f"rallypoint reads versions 1 to {self.current}",
                fix="Upgrade rallypoint to open this campaign.")
        while version < self.current:
            data = self.upcasters[version](event_type, data)
            version += 1
        return data

    def read(self, event_type: str, payload: Mapping[str, Any]) -> E:
        """The typed event for a stored payload of any schema version.

        Raises:
            IntegrityError: The payload is not an event of this ruleset (edited or foreign).
        """
        data = self.upcast(event_type, payload)
        data["type"] = event_type
        model = self.models.get(event_type)
        if model is None:
            # The words pydantic's discriminated union used for an unknown tag.
            tags = ", ".join(repr(t) for t in self.models)
            raise IntegrityError(
                f"stored {self.ruleset} event {event_type!r} does not read: Input tag "
                f"{event_type!r} found using 'type' does not match any of the expected tags: "
                f"{tags}", where="", fix="Import the campaign again from an export file.")
        try:
            # The core validator directly: the model_validate wrapper costs a fifth of a read.
            event: E = model.__pydantic_validator__.validate_python(data)
            return event
        except ValidationError as exc:
            first = exc.errors()[0]
            raise IntegrityError(
                f"stored {self.ruleset} event {event_type!r} does not read: {first['msg']}",
                # Located as the union located it: under the event's tag.
                where=".".join(str(p) for p in (event_type, *first["loc"])),
                fix="Import the campaign again from an export file.") from None


class NewEvent(BaseModel):
    """An event decided by a command but not yet stored (no seq, no hash).

    Attributes:
        type: The event type (the typed event's ``type`` tag).
        payload: Its JSON payload, as it will be stored and hashed.
        event: The typed event it was made from, kept so that recording it in memory does not
            parse the payload back (not stored; ``None`` for an event built from JSON).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, defer_build=True)

    type: str
    payload: dict[str, Any]
    event: Any = Field(default=None, exclude=True, repr=False)

    @classmethod
    def of(cls, event: EventModel) -> NewEvent:
        """The storable form of a typed event (its payload dumped to JSON once)."""
        return cls(type=event.type, payload=event.payload(), event=event)

    def made_by(self, command: Mapping[str, Any], seat: str | None) -> NewEvent:
        """This event with the command that made it joined (:class:`MadeBy`): ``command`` is
        its JSON (``expected_version`` is dropped), ``seat`` the deciding seat, if any."""
        body = {k: v for k, v in command.items() if k != "expected_version"}
        made = MadeBy(command=body, seat=seat)
        envelope = made.model_dump(mode="json", exclude_none=True)
        typed = (None if self.event is None
                 else self.event.model_copy(update={MADE_BY: made}))
        return NewEvent(type=self.type, payload={**self.payload, MADE_BY: envelope},
                        event=typed)


CORE_SCHEMA = 2
"""Schema version of the core events (1: before payloads carried ``v``)."""


class Created(EventModel):
    """A campaign begins: everything it replays from is stored here, never read from files again.

    Attributes:
        ruleset: The ruleset's registered name.
        name: The name given at creation.
        scenario: The validated, JSON-ready scenario.
        rules_data: The ruleset's data with the scenario's overrides applied.
        seed: The campaign's plain dice seed (campaigns before ``dice-v1``), else ``None``.
        dice: The ``dice-v1`` scheme and its commitment (see :mod:`rallypoint.dice.v1`).
        seats: A two-player campaign's seats: seat → its signed seat card (public key, dice
            chain anchor, physical-dice consent; see :mod:`rallypoint.store.signing`).
    """

    type: Literal["created"] = "created"
    v: int = CORE_SCHEMA
    ruleset: str
    name: str
    scenario: FrozenMap[str, Any]
    rules_data: FrozenMap[str, Any]
    seed: str | None = None
    dice: FrozenMap[str, Any] | None = None
    seats: FrozenMap[str, Any] | None = None
    commands: int | None = None
    """The :class:`MadeBy` version every ruleset event of the campaign records its command in
    (``None``: a campaign from before commands were recorded)."""

    _omit_when_none: ClassVar[tuple[str, ...]] = ("dice_proof", "blind", "made_by", "seed",
                                                  "dice", "seats", "commands")


class Undone(EventModel):
    """An earlier event stops counting (undo appends; history is never rewritten).

    Attributes:
        target: The seq of the event it cancels.
        summary: What that event did, as its ruleset described it.
    """

    type: Literal["undone"] = "undone"
    v: int = CORE_SCHEMA
    target: int
    summary: str


CoreEvent = Annotated[Created | Undone, Field(discriminator="type")]


def _core_v1(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    # Version 1 is version 2 without the ``v`` key.
    return {**payload, "v": 2}


CORE_EVENTS: EventReader[Created | Undone] = EventReader(CoreEvent, CORE_SCHEMA, {1: _core_v1},
                                                         "core")
"""Reads ``created`` and ``undone`` payloads of any core schema version."""


REDACTED_KEY = "$redacted"
"""The payload key that marked an event redacted for its reader before issue 18 (a list of the
withheld paths; still read in partial logs stored then): its hash is a commitment, not checkable
here."""
WITHHELD_KEY = "$withheld"
"""The payload key that marks an event redacted for its reader (see
:mod:`rallypoint.core.visibility`): ``{"$withheld": {owner: null, ...}}``, one opaque part per
owner whose secrets the event's type can hold. (Before issue 18 it was only the nested marker
``{"$withheld": owner}`` in place of each withheld value.)"""


def is_redacted_payload(payload: Mapping[str, Any]) -> bool:
    """Whether a stored payload was redacted for its reader, in either format (the current one:
    a top-level ``$withheld`` mapping; the old one: a ``$redacted`` list of paths)."""
    return REDACTED_KEY in payload or isinstance(payload.get(WITHHELD_KEY), Mapping)


class Withheld(EventModel):
    """A ruleset event redacted for this database's seat: only its public parts are in hand.

    Built by :func:`rallypoint.core.campaign.read_event` for a stored payload that carries
    ``"$redacted"`` (a partial log: one seat's database in play by e-mail holds the other seat's
    events so). The fold hands it to the ruleset's ``apply_redacted``; it is never written.

    Attributes:
        type: The event's own type.
        shown: The redacted payload as stored (withheld values are ``{"$withheld": owner}``).
    """

    v: int = 0
    shown: FrozenMap[str, Any]


class EventRecord(BaseModel):
    """A stored event.

    Attributes:
        campaign_id: The campaign it belongs to.
        seq: 1-based, contiguous within the campaign.
        type: ``created``, ``undone`` or a ruleset's event type.
        payload: JSON object, including every roll the event used.
        recorded_at: When it was appended (ISO 8601 UTC).
        prev_hash: Hash of the previous event (``GENESIS_HASH`` for seq 1).
        hash: :func:`event_hash` of this event.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    campaign_id: str
    seq: int
    type: str
    payload: dict[str, Any]
    recorded_at: str
    prev_hash: str
    hash: str

    @classmethod
    def seal(
        cls, campaign_id: str, seq: int, event: NewEvent, prev_hash: str,
        recorded_at: str | None = None,
    ) -> EventRecord:
        """Give a new event its seq, time and hash."""
        when = recorded_at or now_text()
        return cls(
            campaign_id=campaign_id,
            seq=seq,
            type=event.type,
            payload=event.payload,
            recorded_at=when,
            prev_hash=prev_hash,
            hash=event_hash(campaign_id, seq, event.type, event.payload, when, prev_hash),
        )

    def expected_hash(self) -> str:
        """What the hash should be for the stored content."""
        return event_hash(self.campaign_id, self.seq, self.type, self.payload, self.recorded_at,
                          self.prev_hash)


class ChainProblem(BaseModel):
    """The first place a log fails verification."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    seq: int
    reason: str


def verify_chain(records: Sequence[EventRecord]) -> ChainProblem | None:
    """Check sequence numbers and hashes; return the first problem or ``None``."""
    prev = GENESIS_HASH
    for index, record in enumerate(records, start=1):
        problem = link_problem(record, index, prev)
        if problem is not None:
            return problem
        prev = record.hash
    return None


def link_problem(record: EventRecord, index: int, prev: str,
                 payload_text: str | None = None) -> ChainProblem | None:
    """What is wrong with one link of a chain: ``record`` as its ``index``-th event (from 1),
    after an event hashed ``prev`` (:data:`GENESIS_HASH` for the first); ``None``: nothing.

    ``payload_text``: :func:`canonical_json` of its payload when the caller made it already
    (an import stores that text, so it is serialised once); hashed the same way.
    """
    if record.seq != index:
        return ChainProblem(seq=record.seq, reason=f"sequence gap: expected {index}")
    if record.prev_hash != prev:
        return ChainProblem(seq=record.seq, reason="prev_hash does not match the event before")
    expected = record.expected_hash() if payload_text is None else text_hash(
        record.campaign_id, record.seq, record.type, payload_text, record.recorded_at,
        record.prev_hash)
    if record.hash != expected:
        return ChainProblem(seq=record.seq, reason="content does not match its hash (edited?)")
    return None
