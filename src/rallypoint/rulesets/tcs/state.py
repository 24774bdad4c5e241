"""TCS campaign state: frozen values rebuilt by folding events.

``Oob`` (the order of battle) is static and shared by every state of a campaign; everything that
changes lives in small frozen values replaced, never mutated, by :func:`rules.apply`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import cached_property

from rallypoint.dice import Roll
from rallypoint.rulesets.tcs.data import Column, RulesData
from rallypoint.rulesets.tcs.scenario import (
    CompanySpec,
    CounterSpec,
    CounterType,
    FormationSpec,
    Pile,
    Scenario,
)


@dataclass(frozen=True)
class Oob:
    """The order of battle, indexed. Built once per campaign from its scenario."""

    scenario: Scenario

    @cached_property
    def formations(self) -> dict[str, FormationSpec]:
        """Formation id → spec."""
        return {f.id: f for f in self.scenario.formations}

    @cached_property
    def companies(self) -> dict[str, CompanySpec]:
        """Company id → spec."""
        return {c.id: c for f in self.scenario.formations for c in f.companies}

    @cached_property
    def formation_of(self) -> dict[str, str]:
        """Company id → the formation it belongs to."""
        return {c.id: f.id for f in self.scenario.formations for c in f.companies}

    @cached_property
    def counter_specs(self) -> dict[str, CounterSpec]:
        """Counter id → its spec entry."""
        return {
            ident: spec
            for c in self.companies.values()
            for spec in c.counters
            for ident in spec.expanded_ids()
        }

    @cached_property
    def company_of(self) -> dict[str, str]:
        """Counter id → company id."""
        return {
            ident: c.id
            for c in self.companies.values()
            for spec in c.counters
            for ident in spec.expanded_ids()
        }

    @cached_property
    def counters_of(self) -> dict[str, tuple[str, ...]]:
        """Company id → its counter ids, in scenario order."""
        return {
            c.id: tuple(i for spec in c.counters for i in spec.expanded_ids())
            for c in self.companies.values()
        }

    def ancestors(self, formation_id: str) -> list[FormationSpec]:
        """The formation and its parents, nearest first."""
        chain: list[FormationSpec] = []
        cursor: str | None = formation_id
        while cursor is not None:
            spec = self.formations[cursor]
            chain.append(spec)
            cursor = spec.parent
        return chain

    def battalion_of(self, company_id: str) -> str | None:
        """The nearest formation above a company that keeps battalion morale."""
        for spec in self.ancestors(self.formation_of[company_id]):
            if spec.morale is not None:
                return spec.id
        return None

    def companies_under(self, ident: str) -> tuple[str, ...]:
        """Every company in a formation (and its sub-formations), or the company itself."""
        if ident in self.companies:
            return (ident,)
        found = []
        for company_id, formation_id in self.formation_of.items():
            if any(a.id == ident for a in self.ancestors(formation_id)):
                found.append(company_id)
        return tuple(found)

    def nationality_of(self, company_id: str) -> str:
        """Nationality: the nearest formation override, else the side's."""
        for spec in self.ancestors(self.formation_of[company_id]):
            if spec.nationality:
                return spec.nationality
        side = self.side_of(company_id)
        return next(s.nationality for s in self.scenario.sides if s.id == side)

    def side_of(self, company_id: str) -> str:
        """The side a company fights for."""
        return self.formations[self.formation_of[company_id]].side

    def command_prep(self, company_id: str) -> int | None:
        """The nearest command prep rating above a company."""
        for spec in self.ancestors(self.formation_of[company_id]):
            if spec.command_prep is not None:
                return spec.command_prep
        return None

    def column_types(self, company_id: str) -> set[CounterType]:
        """The counter types present in a company."""
        return {c.type for c in self.companies[company_id].counters}

    def fixed_column(self, company_id: str) -> Column | None:
        """The company's recovery column, or None when the player must choose (Hwy + TO)."""
        company = self.companies[company_id]
        if company.column is not None:
            return company.column
        types = self.column_types(company_id)
        if len(types) == 1:
            return Column(next(iter(types)).value)
        return None

    def name(self, ident: str) -> str:
        """Display name of a formation, company or counter (falls back to the id)."""
        if ident in self.formations:
            return self.formations[ident].name or ident
        if ident in self.companies:
            return self.companies[ident].name or ident
        spec = self.counter_specs.get(ident)
        if spec is not None and spec.name and spec.count == 1:
            return spec.name
        return ident


@dataclass(frozen=True)
class CounterState:
    """A counter's condition: current steps (0 when eliminated), pile, hex."""

    id: str
    steps: int
    pile: Pile
    hex: str | None = None


class SheetStatus(StrEnum):
    """Life of a Recovery Op Sheet."""

    PENDING = "pending"
    IMPLEMENTED = "implemented"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class SheetState:
    """A Recovery Op Sheet."""

    id: str
    members: tuple[str, ...]
    companies: tuple[str, ...]
    centers: dict[str, str]
    other_sheet: tuple[str, ...]
    size: int
    row: int
    vehicle: bool
    written_turn: int
    weighted_turns: int = 0
    status: SheetStatus = SheetStatus.PENDING
    last_check_turn: int | None = None
    left: tuple[str, ...] = ()
    accrued_turn: int = 0
    """The last turn it accrued through (its written turn until it first accrues). A turn
    advanced in the opponent's database accrues only the sheets that database knows, so a
    sheet can fall behind the turn: :func:`rallypoint.rulesets.tcs.turns.owed` brings it up."""
    last_added: int = 0
    """What its latest accrual (for ``accrued_turn``) added: a 'fired' mark that comes after
    that accrual corrects it (:func:`rallypoint.rulesets.tcs.turns.decide_fired`)."""


@dataclass(frozen=True)
class Recovery:
    """One company's recovery roll after its sheet implemented, waiting for distribution."""

    sheet: str
    company: str
    column: Column
    steps: int
    roll: Roll | None
    resolved: bool = False


@dataclass(frozen=True)
class TcsState:
    """Everything that changes in a TCS campaign."""

    oob: Oob
    rules: RulesData
    turn: int
    clock: datetime
    night: bool
    counters: dict[str, CounterState]
    morale: dict[str, int]
    sheets: dict[str, SheetState] = field(default_factory=dict)
    recoveries: tuple[Recovery, ...] = ()
    exception_counts: dict[str, int] = field(default_factory=dict)
    fo_rolled_turn: int | None = None
    attacked: dict[str, int] = field(default_factory=dict)
    """Company → the turn it was last attacked while recovering (treated as No Orders)."""
    fired: frozenset[tuple[str, int]] = frozenset()
    """``(sheet, turn)``: the sheet's units fired or were fired upon during that turn
    (``tcs fired``), so its accrual for the next turn is at the fired rate."""
    settled_turn: int = 1
    """The turn through which this database's own hidden bookkeeping is settled: a turn it
    advanced, or its owed ``accrued`` event for the turns the other database advanced (play by
    e-mail). Behind the turn, an ``accrued`` is owed even with no pending sheet, so that its
    appearance says nothing about whether a sheet accrues (issue 18). A whole log is always
    settled: every turn there is whole."""
    night_runs: tuple[tuple[int, bool], ...] = ()
    """``(first turn, night)`` of each run of turns with one night flag, oldest first (the
    flags the turns were played with, for owed accruals); empty: every turn had ``night``."""

    def night_of(self, turn: int) -> bool:
        """Whether ``turn`` (at most the current one) was a night turn, as it was played.

        Kept as runs rather than one flag per turn so a long campaign's fold stays linear: the
        flag changes twice a game day.
        """
        for first, night in reversed(self.night_runs):
            if first <= turn:
                return night
        return self.night

    def attacked_now(self) -> tuple[str, ...]:
        """Companies attacked this turn: treated as No Orders, their sheets fired upon."""
        return tuple(c for c, t in self.attacked.items() if t == self.turn)

    def counter(self, ident: str) -> CounterState:
        """A counter's state (the caller has checked the id)."""
        return self.counters[ident]

    def full(self, counter_id: str) -> int:
        """Full-strength steps of a counter."""
        return self.oob.counter_specs[counter_id].steps

    def in_pile(self, company_id: str, pile: Pile) -> list[str]:
        """Counter ids of a company in ``pile``, in scenario order."""
        return [i for i in self.oob.counters_of[company_id] if self.counters[i].pile is pile]

    def pending_recoveries(self) -> list[Recovery]:
        """Recoveries still waiting for a distribution."""
        return [r for r in self.recoveries if not r.resolved]

    def sheet_of(self, company_id: str) -> SheetState | None:
        """The pending sheet a company is recovering on, if any."""
        for sheet in self.sheets.values():
            if sheet.status is SheetStatus.PENDING and company_id in sheet.companies:
                return sheet
        return None
