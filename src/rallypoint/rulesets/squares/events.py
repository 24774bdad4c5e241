"""Squares events: what each command decided, as frozen values (outcomes and the roll inside).

Every event carries the new condition of each unit and leader it touched (``units``,
``leaders``), so the fold only writes them down and never re-checks a rule. Schema versions:

- v1 (campaigns before 2026-12-01): the same fields, no ``v`` key; ``fired_upon``,
  ``turn_advanced`` and ``sight_set`` had no ``units``/``leaders`` (they change none).
- v2 (now): ``v = 2``; every event has ``units`` and ``leaders``. The upcast adds the version
  (the missing maps default to empty).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rallypoint.core.events import EventModel, EventReader, FrozenMap
from rallypoint.dice import Roll
from rallypoint.rulesets.squares.data import RallyKind
from rallypoint.rulesets.squares.rally import RallyResult
from rallypoint.rulesets.squares.state import Status

SCHEMA = 2
"""The squares event schema version written now."""


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class UnitAfter(_Value):
    """A unit's condition after the event."""

    sp: int
    square: str
    disordered: bool
    status: Status


class LeaderAfter(_Value):
    """A leader's square and the unit it is attached to after the event."""

    square: str
    attached: str | None


class _Changes(EventModel):
    v: int = SCHEMA
    units: FrozenMap[str, UnitAfter] = Field(default_factory=dict)
    leaders: FrozenMap[str, LeaderAfter] = Field(default_factory=dict)


class Moved(_Changes):
    """A unit (with its attached leaders) or a leader moved."""

    type: Literal["moved"] = "moved"
    who: str
    from_: str = Field(validation_alias="from", serialization_alias="from")
    to: str
    carried: tuple[str, ...]


class FiredUpon(_Changes):
    """A unit marked as targeted this turn (no automatic recovery this turn)."""

    type: Literal["fired_upon"] = "fired_upon"
    unit: str
    fire: Literal["ranged", "bombardment"]
    turn: int


class SpLost(_Changes):
    """SP lost in the core game."""

    type: Literal["sp_lost"] = "sp_lost"
    unit: str
    sp: int
    before: int
    after: int
    shaken: bool
    destroyed: bool


class Disordered(_Changes):
    """The core game disordered a unit."""

    type: Literal["disordered"] = "disordered"
    unit: str


class RecoveryConditions(_Value):
    """The seed's three conditions for automatic recovery, each with what decided it."""

    no_enemy_adjacent: bool
    adjacent_enemies: tuple[str, ...]
    not_under_fire: bool
    under_fire: tuple[str, ...]
    enough_sp: bool
    sp: int
    needs_more_than: int


class Activated(_Changes):
    """A unit or leader activated; a disordered unit's recovery conditions, as checked."""

    type: Literal["activated"] = "activated"
    who: str
    role: Literal["leader", "unit"]
    turn: int
    detached: tuple[str, ...]
    recovery: RecoveryConditions | None
    recovered: bool


class Sight(_Value):
    """Whether an enemy was visible to the rallying unit: computed, and the player's ruling."""

    computed: bool
    ruling: bool | None
    seen: tuple[str, ...]


class Rallied(_Changes):
    """A leader's rally test: where it went, the roll and the result."""

    type: Literal["rallied"] = "rallied"
    leader: str
    unit: str
    rally: RallyKind
    turn: int
    from_: str = Field(validation_alias="from", serialization_alias="from")
    square: str
    detached_from: str | None
    enemy_visible: Sight
    roll: Roll
    result: RallyResult
    sp_before: int
    sp_after: int


class TurnAdvanced(_Changes):
    """The next turn (fire marks and activations clear)."""

    type: Literal["turn_advanced"] = "turn_advanced"
    turn: int
    cleared_fire: tuple[str, ...]


class SightSet(_Changes):
    """The player's ruling on line of sight between two squares (``auto`` removes it)."""

    type: Literal["sight_set"] = "sight_set"
    key: str
    a: str
    b: str
    ruling: Literal["clear", "blocked", "auto"]
    before: bool | None
    computed: bool
    why: str


SquaresEvent = Moved | FiredUpon | SpLost | Disordered | Activated | Rallied | TurnAdvanced \
    | SightSet
"""Every squares event."""


def _v1(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "v": 2}


READER: EventReader[SquaresEvent] = EventReader(
    Annotated[SquaresEvent, Field(discriminator="type")], SCHEMA, {1: _v1}, "squares")
"""Reads stored squares payloads of any schema version."""
