"""TCS events: what each command decided, as frozen values (outcomes and rolls inside).

Every event carries the conditions it leaves counters in (``counters``), so the fold only writes
them down: it never re-checks a rule or re-reads a table. Schema versions:

- v1 (campaigns before 2026-12-01): the same fields, no ``v`` key.
- v2: ``v = 2``. The v1 → v2 upcast only adds the version.
- v3 (now): ``v = 3``; new events ``reassigned`` and ``attacked``; ``attest_distance`` on
  ``sheet_written``, ``moved`` and ``distributed`` (the seam count the player attested);
  ``fo_skipped`` on ``turn_advanced``. Every new field has a default meaning "not given", so the
  v2 → v3 upcast only sets the version.

  Later in v3: the new event ``accrued`` (owed accruals, play by e-mail). A new event type needs
  no new version: no old payload changes meaning, and every old log reads and folds as before
  (it holds none); a rallypoint without it refuses the event by its type instead of misreading it.

  Later in v3 (issue 19): ``never_implements`` on ``sheet_written`` (default False, as every
  event written before the warning reads).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rallypoint.core.events import EventModel, EventReader, FrozenMap
from rallypoint.dice import Roll
from rallypoint.rulesets.tcs.data import Column
from rallypoint.rulesets.tcs.scenario import Pile

SCHEMA = 3
"""The TCS event schema version written now."""


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class CounterAfter(_Value):
    """A counter's condition after the event: steps, pile and hex (``None`` off the map)."""

    steps: int
    pile: Pile
    hex: str | None


Counters = FrozenMap[str, CounterAfter]


class _Changes(EventModel):
    v: int = SCHEMA
    counters: Counters = Field(default_factory=dict)


class LeaveOutcome(_Value):
    """A company leaves its recovery center: half its Dead Pile goes Very Dead (seed).

    ``companies``: every company that became unassigned with it (the formation at that center);
    empty in events written before formations left together (then only ``company``).
    """

    company: str
    sheet: str
    cause: str
    very_dead: tuple[str, ...]
    sheet_cancelled: bool
    counters: Counters
    companies: tuple[str, ...] = ()


class Loss(_Changes):
    """Steps lost; at zero the counter went to the pile ``note`` explains."""

    type: Literal["loss"] = "loss"
    counter: str
    steps: int
    cause: str
    note: str
    exception_count: int | None


class LeftCenter(_Changes):
    """A recovering company forced or moved off its center (``LeaveOutcome`` as an event)."""

    type: Literal["left_center"] = "left_center"
    company: str
    sheet: str
    cause: str
    very_dead: tuple[str, ...]
    sheet_cancelled: bool
    companies: tuple[str, ...] = ()


class Moved(_Changes):
    """A counter moved; ``left_center`` when the move took its company off its center."""

    type: Literal["moved"] = "moved"
    counter: str
    hex: str
    left_center: LeaveOutcome | None
    attest_distance: int | None = None


class SheetWritten(_Changes):
    """A Recovery Op Sheet written up, with every company's center and its table row."""

    type: Literal["sheet_written"] = "sheet_written"
    sheet: str
    members: tuple[str, ...]
    companies: tuple[str, ...]
    centers: FrozenMap[str, str]
    other_sheet: tuple[str, ...]
    size: int
    command_prep: int
    row: int
    vehicle: bool
    turn: int
    attest_distance: int | None = None
    never_implements: bool = False
    """Its row has no cell that implements in the campaign's table (rows 9 and up, unless the
    scenario supplies them): written anyway, with a warning in the log. False in events
    written before the warning."""


class Reassigned(_Changes):
    """Recovering companies went onto (``other_sheet``) or came off another Op Sheet."""

    type: Literal["reassigned"] = "reassigned"
    sheet: str
    companies: tuple[str, ...]
    other_sheet: bool
    turn: int
    reason: str = ""


class Attacked(_Changes):
    """Recovering companies attacked on ``turn``: treated as No Orders, and fired upon."""

    type: Literal["attacked"] = "attacked"
    companies: tuple[str, ...]
    sheets: tuple[str, ...]
    turn: int
    note: str = ""


class Accrual(_Value):
    """Weighted turns one pending sheet gained this turn, and why."""

    sheet: str
    added: int
    reason: str
    total: int


class OwedAccrual(Accrual):
    """An accrual owed for one past ``turn``: what ``decide_turn`` would have given the sheet."""

    turn: int


class Accrued(_Changes):
    """Owed accruals: turns advanced where this sheet's owner was not (another database)
    accrued only the sheets known there; this brings the owner's pending sheets to ``turn``.

    ``accruals``: one per sheet per missed turn, in order (by sheet, then turn), each computed
    with that turn's night flag and attack status, as fired upon only when attacked.
    """

    type: Literal["accrued"] = "accrued"
    turn: int
    accruals: tuple[OwedAccrual, ...]


class Fired(_Changes):
    """Pending sheets whose units fired or were fired upon during ``turn`` (``tcs fired``).

    ``corrections``: for a sheet whose accrual for the turn after ``turn`` was already made
    without it (by e-mail: the other database advanced the turn and this one settled what it
    owed), that accrual again at the fired rate; empty when the accrual is still to come.
    Later in v3: a new event type, no new version (see the module docstring).
    """

    type: Literal["fired"] = "fired"
    sheets: tuple[str, ...]
    turn: int
    corrections: tuple[OwedAccrual, ...] = ()


class TurnAdvanced(_Changes):
    """The next turn: its number, clock, night, and each pending sheet's accrual."""

    type: Literal["turn_advanced"] = "turn_advanced"
    turn: int
    clock: datetime
    night: bool
    accruals: tuple[Accrual, ...]
    fo_skipped: tuple[str, ...] = ()


class MoraleSet(_Changes):
    """A battalion morale change made by the core game."""

    type: Literal["morale_set"] = "morale_set"
    formation: str
    before: int
    value: int
    reason: str


class MoraleRoll(_Value):
    """A battalion morale recovery roll and what it took off."""

    formation: str
    roll: Roll
    points: int
    before: int
    after: int


class RecoveryRoll(_Value):
    """One company's recovery roll (``None`` when moot: nothing to recover, no roll)."""

    company: str
    column: Column
    steps: int
    roll: Roll | None
    moot: bool
    pooling: bool = False

    @property
    def waits(self) -> bool:
        """Whether a distribution decision follows (steps to spend, or steps to pool)."""
        return not self.moot and (self.steps > 0 or self.pooling)


class ImplementationChecked(_Changes):
    """An implementation roll; on success every company's recovery roll and any morale rolls."""

    type: Literal["implementation_checked"] = "implementation_checked"
    sheet: str
    turn: int
    weighted_turns: int
    row: int
    column: int
    needed: int
    roll: Roll
    implemented: bool
    recoveries: tuple[RecoveryRoll, ...] = ()
    unassigned: tuple[str, ...] = ()
    stays_assigned: tuple[str, ...] = ()
    morale: tuple[MoraleRoll, ...] = ()


class Transfer(_Value):
    """Steps moved between two counters of one company in one hex."""

    source: str
    target: str
    steps: int


class Distributed(_Changes):
    """A company's recovered steps spent, and the battalion morale rolls after the last one."""

    type: Literal["distributed"] = "distributed"
    sheet: str
    company: str
    steps: int
    heal: FrozenMap[str, int]
    resurrect: FrozenMap[str, int]
    very_dead: tuple[str, ...]
    redistribute: tuple[Transfer, ...]
    unspent: int
    morale: tuple[MoraleRoll, ...] = ()
    attest_distance: int | None = None


class FoRoll(_Value):
    """One dead Soviet FO's roll and whether it came back."""

    counter: str
    roll: Roll
    returned: bool


class FoRolled(_Changes):
    """The whole-hour FO recovery rolls."""

    type: Literal["fo_rolled"] = "fo_rolled"
    turn: int
    number: int
    rolls: tuple[FoRoll, ...]


TcsEvent = Loss | LeftCenter | Moved | SheetWritten | TurnAdvanced | MoraleSet \
    | ImplementationChecked | Distributed | FoRolled | Reassigned | Attacked | Accrued | Fired
"""Every TCS event."""


def _v1(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    # v1 had every field v2 has; it only lacked the version.
    return {**payload, "v": 2}


def _v2(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    # v3 only added events and fields whose defaults mean "not given".
    return {**payload, "v": 3}


READER: EventReader[TcsEvent] = EventReader(
    Annotated[TcsEvent, Field(discriminator="type")], SCHEMA, {1: _v1, 2: _v2}, "tcs")
"""Reads stored TCS payloads of any schema version."""


def rolls_of(event: TcsEvent) -> list[Roll]:
    """Every roll an event stores, in the order they were rolled."""
    if isinstance(event, ImplementationChecked):
        return [event.roll, *(r.roll for r in event.recoveries if r.roll),
                *(m.roll for m in event.morale)]
    if isinstance(event, Distributed):
        return [m.roll for m in event.morale]
    if isinstance(event, FoRolled):
        return [r.roll for r in event.rolls]
    return []
