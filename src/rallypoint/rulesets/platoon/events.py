"""Platoon events: the command, its dice, and what changed (who, how, what arrived).

Schema versions:

- v1 (campaigns before 2026-12-01): ``command``, ``rolls`` and ``summary`` only, no ``v``. The
  outcome was never stored: replay re-ran the rules over the dice.
- v2 (2026-12-01 to 12-04): ``v = 2`` and ``outcome``, the new record of every man, crew and
  tank the event changed or brought in, the request queue, the deferred decisions and the
  counters. The fold writes the outcome down and runs no rule code, so a later rule fix never
  rewrites history.
- v3 (now): a man's record carries ``light_wounds`` (so a second light wound shows in the log)
  and a tank's ``own_crew`` (the crew it returns to from ordnance). A v2 payload is upcast with
  ``light_wounds = 0`` and ``own_crew = None``: what the event recorded, nothing re-derived.

A v1 payload is upcast to v2 with ``outcome = None``: its outcome is what the rules of that time
made of its dice, and the fold gets it from the pinned copy of those rules
(:mod:`rallypoint.rulesets.platoon.v1`), never from the live ones.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rallypoint.core.events import EventModel, EventReader, FrozenMap
from rallypoint.dice import Roll
from rallypoint.rulesets.platoon.model import (
    Crew,
    Man,
    PlatoonState,
    Request,
    Seat,
    Status,
    Tank,
    TankStatus,
    Wound,
)

SCHEMA = 3
"""The platoon event schema version written now."""


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class ManRecord(_Value):
    """A man as the event left him (every field of :class:`~.model.Man`)."""

    id: str
    name: str
    age: int
    trade: Seat
    skill: int
    traits: FrozenMap[str, int]
    fatigue: int
    steadiness: int
    wound: Wound
    fit_day: int | None
    years_with_crew: int
    trust: int
    status: Status
    crew: str | None
    seat: Seat | None
    stayed: bool
    lieutenant: bool
    transfer: bool
    light_wounds: int


class CrewRecord(_Value):
    """A crew as the event left it."""

    id: str
    seats: FrozenMap[Seat, str | None]
    tank: str | None
    cohesion: int


class TankRecord(_Value):
    """A tank as the event left it."""

    id: str
    name: str
    status: TankStatus
    crew: str | None
    return_day: int | None
    own_crew: str | None


class RequestRecord(_Value):
    """A replacement request waiting at the depot."""

    id: str
    kind: str
    trade: Seat | None
    filed_day: int
    arrival_day: int
    reason: str
    lieutenant: bool


class Outcome(_Value):
    """Everything an event changed: the platoon's counters and the changed or new records.

    Attributes:
        men: Men whose record changed, and men who arrived, in the platoon's order.
        crews: Crews whose record changed.
        tanks: Tanks whose record changed, and tanks that arrived.
        requests: The whole request queue after the event.
        deferred: The decision keys the lieutenant has chosen to wait on.
        year_start: The first day of the current year.
        action_days: The action calendar, when the event laid out a new one (else ``None``).
    """

    day: int
    year: int
    morale: int
    fought: int
    serial: int
    names_used: int
    filed: int
    year_start: int = 1
    action_days: tuple[int, ...] | None = None
    men: tuple[ManRecord, ...] = ()
    crews: tuple[CrewRecord, ...] = ()
    tanks: tuple[TankRecord, ...] = ()
    requests: tuple[RequestRecord, ...] = ()
    deferred: tuple[str, ...] = ()


class _PlatoonEvent(EventModel):
    v: int = SCHEMA
    command: FrozenMap[str, Any]
    rolls: tuple[Roll, ...] = ()
    summary: tuple[str, ...] = ()
    outcome: Outcome | None = None


class Report(_PlatoonEvent):
    """A battle's report taken back; the day ends."""

    type: Literal["report"] = "report"


class StandIn(_PlatoonEvent):
    """A STAND-IN battle fought and its report taken back."""

    type: Literal["standin"] = "standin"


class Rest(_PlatoonEvent):
    """A day out of action (or withdrawn to refit)."""

    type: Literal["rest"] = "rest"


class Place(_PlatoonEvent):
    """An unassigned man placed in an empty seat."""

    type: Literal["place"] = "place"


class Commander(_PlatoonEvent):
    """A commander's seat filled (14.8)."""

    type: Literal["commander"] = "commander"


class Wait(_PlatoonEvent):
    """The lieutenant waits for a commander from the depot."""

    type: Literal["wait"] = "wait"


class AssignTank(_PlatoonEvent):
    """A park tank given to a crew."""

    type: Literal["tank"] = "tank"


class YearEnd(_PlatoonEvent):
    """14.9 the year, every step in order."""

    type: Literal["year_end"] = "year_end"


PlatoonEvent = Report | StandIn | Rest | Place | Commander | Wait | AssignTank | YearEnd
"""Every platoon event."""

EVENT_TYPES: dict[str, type[PlatoonEvent]] = {
    "report": Report, "standin": StandIn, "rest": Rest, "place": Place, "commander": Commander,
    "wait": Wait, "tank": AssignTank, "year_end": YearEnd}


def _v1(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    # v1 stored no outcome; ``None`` says so (the fold replays it through the pinned v1 rules).
    return {**payload, "v": 2, "outcome": None}


def _v2(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    # v2 records knew no light-wound count and no tank's own crew: 0 and None, as recorded.
    old = payload.get("outcome")
    if not isinstance(old, dict):
        return {**payload, "v": 3}
    men = [{"light_wounds": 0, **m} for m in old.get("men", ())]
    tanks = [{"own_crew": None, **t} for t in old.get("tanks", ())]
    return {**payload, "v": 3, "outcome": {**old, "men": men, "tanks": tanks}}


READER: EventReader[PlatoonEvent] = EventReader(
    Annotated[PlatoonEvent, Field(discriminator="type")], SCHEMA, {1: _v1, 2: _v2}, "platoon")
"""Reads stored platoon payloads of any schema version."""


def _record(value: Any) -> dict[str, Any]:
    return {f.name: getattr(value, f.name) for f in fields(value)}


def outcome(before: PlatoonState, after: PlatoonState) -> Outcome:
    """What changed from ``before`` to ``after``, as stored in a v2 event."""
    return Outcome(
        day=after.day, year=after.year, morale=after.morale, fought=after.fought,
        serial=after.serial, names_used=after.names_used, filed=after.filed,
        year_start=after.year_start,
        action_days=after.action_days if after.action_days != before.action_days else None,
        men=tuple(ManRecord.model_validate(_record(m)) for i, m in after.men.items()
                  if before.men.get(i) != m),
        crews=tuple(CrewRecord.model_validate(_record(c)) for i, c in after.crews.items()
                    if before.crews.get(i) != c),
        tanks=tuple(TankRecord.model_validate(_record(t)) for i, t in after.tanks.items()
                    if before.tanks.get(i) != t),
        requests=tuple(RequestRecord.model_validate(_record(r)) for r in after.requests),
        deferred=tuple(sorted(after.deferred)))


def write_down(state: PlatoonState, o: Outcome) -> PlatoonState:
    """The state after an event's outcome: its records written in, nothing re-derived."""
    # ``vars`` reads a record's fields directly (iterating a pydantic model is much slower).
    men = dict(state.men)
    for m in o.men:
        men[m.id] = Man(**{**vars(m), "traits": dict(m.traits)})
    crews = dict(state.crews)
    for c in o.crews:
        crews[c.id] = Crew(id=c.id, seats=dict(c.seats), tank=c.tank, cohesion=c.cohesion)
    tanks = dict(state.tanks)
    for t in o.tanks:
        tanks[t.id] = Tank(**vars(t))
    return replace(
        state, day=o.day, year=o.year, morale=o.morale, fought=o.fought, men=men, crews=crews,
        tanks=tanks, requests=tuple(Request(**vars(r)) for r in o.requests), serial=o.serial,
        names_used=o.names_used, filed=o.filed, deferred=frozenset(o.deferred),
        year_start=o.year_start,
        action_days=state.action_days if o.action_days is None else o.action_days)
