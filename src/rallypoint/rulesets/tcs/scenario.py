"""TCS scenario files: sides, formations, companies, counters, turn track and exceptions.

A scenario gives the order of battle *and* its condition when the campaign starts (steps lost,
which pile each counter is in, where it stands), so a worked example can begin exactly where the
seed's text begins. See ``docs/scenarios.md`` for every field.
"""

from __future__ import annotations

from datetime import datetime, time
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from rallypoint.core.errors import DataFileError
from rallypoint.core.models import FrozenModel
from rallypoint.core.problems import Problem
from rallypoint.core.scenario_check import COLLECTING
from rallypoint.core.tomlfile import load_ruleset_file
from rallypoint.dice import Modifier
from rallypoint.rulesets.tcs.data import Column, Nationalities, default_data
from rallypoint.rulesets.tcs.hexes import Hex

CounterType = Column
"""A counter's type is the recovery column it rolls on (seed: Inf/Hwy/TO/Tank Coy)."""


class Pile(StrEnum):
    """Where a counter is."""

    MAP = "map"
    DEAD = "dead"
    VERY_DEAD = "very_dead"
    FO = "fo"
    """The Soviet FO pile (seed: 'put it aside in a pile of its own')."""


class CompanyKind(StrEnum):
    """Who rolls on the recovery table: companies, equivalents and independent platoons."""

    COMPANY = "company"
    BATTALION_TROOPS = "battalion_troops"
    INDEPENDENT_PLATOON = "independent_platoon"


class CounterSpec(FrozenModel):
    """A counter (or ``count`` identical counters) and its condition at the start."""

    id: str
    name: str = ""
    type: CounterType
    kind: str = "infantry"
    steps: int = Field(ge=1, le=20, description="full-strength steps")
    morale: int | None = Field(default=None, ge=0, le=9, description="raw morale; none = no morale")
    target: str = Field(default="P", pattern="^[PV]$", description="P (area) or V (point) target")
    count: int = Field(default=1, ge=1, le=50)
    lost: int = Field(default=0, ge=0, description="steps lost at the start")
    pile: Pile = Pile.MAP
    hex: str | None = None

    @field_validator("hex")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        # One spelling per hex ("8.5" is "8.05"), so hexes compare equal as text everywhere.
        return None if value is None else Hex.normal(value)

    @model_validator(mode="after")
    def _lost(self) -> CounterSpec:
        if self.lost >= self.steps:
            raise ValueError(
                f"lost={self.lost} would leave no steps; put the counter in a pile instead"
            )
        if self.pile is not Pile.MAP and self.lost:
            raise ValueError("only counters on the map have step losses")
        return self

    def expanded_ids(self) -> list[str]:
        """The counter ids this entry makes (``id`` or ``id-1`` … ``id-N``)."""
        if self.count == 1:
            return [self.id]
        return [f"{self.id}-{n}" for n in range(1, self.count + 1)]


class CompanySpec(FrozenModel):
    """A company, company-equivalent (battalion troops) or independent platoon."""

    id: str
    name: str = ""
    kind: CompanyKind = CompanyKind.COMPANY
    column: Column | None = None
    modifiers: tuple[Modifier, ...] = ()
    counters: tuple[CounterSpec, ...]


class FormationSpec(FrozenModel):
    """A battalion or larger formation."""

    id: str
    name: str = ""
    side: str
    echelon: str = "battalion"
    parent: str | None = None
    nationality: str | None = None
    command_prep: int | None = Field(default=None, ge=0, le=9)
    morale: int | None = Field(
        default=None, ge=0, description="battalion morale points; 0 = normal"
    )
    modifiers: tuple[Modifier, ...] = ()
    companies: tuple[CompanySpec, ...] = ()


class SideSpec(FrozenModel):
    """A side of the scenario."""

    id: str
    name: str = ""
    nationality: str
    fo_pile: bool | None = Field(
        default=None, description="this side's FOs use the Soviet FO rule; unset: on for a "
                                  "Soviet side (parameter soviet_fo_pile), off for any other")
    sheet_prefix: str = Field(
        default="", max_length=20,
        description="every Recovery Op Sheet of this side is named with this prefix (by mail "
                    "with hidden sheets, neither side sees the other's names, so only distinct "
                    "prefixes keep two sheets from sharing one)")


class TurnTrack(FrozenModel):
    """The turn track: start, turn length by day and night."""

    start: datetime
    turn_minutes: int = Field(default=20, ge=1)
    night_turn_minutes: int = Field(default=60, ge=1)
    night_begins: time = time(18, 0)
    night_ends: time = time(6, 0)

    def is_night(self, when: datetime) -> bool:
        """Whether a turn starting at ``when`` is a night turn."""
        t = when.time()
        if self.night_begins > self.night_ends:
            return t >= self.night_begins or t < self.night_ends
        return self.night_begins <= t < self.night_ends


class DeadPileException(FrozenModel):
    """A scenario exception to the pile rules (seed: 'every fifth sunk DD tank')."""

    cause: str
    description: str
    every: int = Field(
        ge=1, description="every Nth elimination with this cause goes to the Dead Pile"
    )


class ScenarioInfo(FrozenModel):
    """Title and provenance."""

    title: str
    game: str = ""
    source: str = ""
    notes: str = ""
    fo_recovery_number: int | None = Field(default=None, ge=2, le=13)


class SuppliedRows(FrozenModel):
    """Implementation Table rows a scenario supplies (``[implementation]``), with their source.

    Facts: 'Rows 9 and up were not recovered: treat them as "cannot implement" unless the
    user's data file supplies them.' A row given here also replaces a shipped row (another
    edition's numbers).
    """

    source: str = Field(min_length=1, description="where the numbers come from")
    rows: dict[int, tuple[int, ...]] = Field(min_length=1)

    @field_validator("rows")
    @classmethod
    def _cells(cls, rows: dict[int, tuple[int, ...]]) -> dict[int, tuple[int, ...]]:
        width = len(default_data().implementation.lines[default_data().implementation.line])
        for key, cells in rows.items():
            if not 1 <= key <= 30:
                raise ValueError(f"row {key}: rows are Command Prep + Op Sheet size, 1 to 30")
            if len(cells) != width:
                raise ValueError(f"row {key} has {len(cells)} cells, expected {width} "
                                 "(one per column)")
            bad = [c for c in cells if c and not (1 <= c // 10 <= 6 and 1 <= c % 10 <= 6)]
            if bad:
                raise ValueError(f"row {key}: {bad[0]} is not a d66 roll (11..66) or 0 for '–'")
        return rows


class Scenario(FrozenModel):
    """A whole TCS scenario file."""

    ruleset: str = "tcs"
    scenario: ScenarioInfo
    turn_track: TurnTrack
    parameters: dict[str, Any] = Field(default_factory=dict)
    implementation: SuppliedRows | None = None
    sides: tuple[SideSpec, ...]
    dead_pile_exceptions: tuple[DeadPileException, ...] = ()
    formations: tuple[FormationSpec, ...]

    @model_validator(mode="after")
    def _references(self, info: ValidationInfo) -> Scenario:
        if info.context and info.context.get(COLLECTING):
            return self  # the checker asks scenario_problems for all of them
        problems = scenario_problems(self)
        if problems:
            raise ValueError(problems[0] + (f" ({len(problems) - 1} more)" if len(problems) > 1
                                            else ""))
        return self

    def formation(self, formation_id: str) -> FormationSpec:
        """The formation with this id."""
        return next(f for f in self.formations if f.id == formation_id)


def scenario_problems(s: Scenario) -> list[str]:
    """Every cross-reference problem in a scenario (collected, not stopped at the first)."""
    problems: list[str] = []
    sides = {side.id for side in s.sides}
    seen: set[str] = set()
    formation_ids = {f.id for f in s.formations}
    for f in s.formations:
        if f.side not in sides:
            problems.append(f"formation {f.id!r} names unknown side {f.side!r}")
        if f.parent is not None and f.parent not in formation_ids:
            problems.append(f"formation {f.id!r} names unknown parent {f.parent!r}")
        for ident in [f.id, *(c.id for c in f.companies)]:
            if ident in seen:
                problems.append(f"id {ident!r} is used twice")
            seen.add(ident)
        for company in f.companies:
            types = {c.type for c in company.counters}
            if company.column is None and len(types) > 1 and types != {CounterType.HWY,
                                                                       CounterType.TO}:
                problems.append(
                    f"company {company.id!r} mixes {', '.join(sorted(t.value for t in types))}: "
                    "set column = one of "
                    "inf, hwy, to, tank"
                )
            for counter in company.counters:
                for ident in counter.expanded_ids():
                    if ident in seen:
                        problems.append(f"id {ident!r} is used twice")
                    seen.add(ident)
    for f in s.formations:
        chain, cursor = {f.id}, f.parent
        while cursor is not None:
            if cursor in chain:
                problems.append(f"formation {f.id!r} is its own ancestor")
                break
            chain.add(cursor)
            cursor = next((g.parent for g in s.formations if g.id == cursor), None)
    return problems


def load_scenario(path: Path) -> Scenario:
    """Read a TCS scenario TOML file.

    Raises:
        DataFileError: Missing file, syntax error (with line), or invalid content (with the line
            and field).
    """
    scenario: Scenario = load_ruleset_file(path, "tcs", Scenario)
    return with_fo_piles(with_listed_nationalities(scenario, str(path)))


def with_fo_piles(scenario: Scenario) -> Scenario:
    """The scenario with each side's ``fo_pile`` decided: as written, else on for a Soviet side
    when the parameter ``soviet_fo_pile`` is (seed: 'Soviet FOs are an exception … as soon as an
    FO dies, put it aside in a pile of its own').

    Decided when a scenario is read for a new campaign, and stored so: a campaign keeps the
    piles it was created with (one created before the default stored ``false``).
    """
    on = scenario.parameters.get("soviet_fo_pile",
                                 default_data().parameters["soviet_fo_pile"].value)
    soviet = default_data().nationalities
    sides = tuple(
        side if side.fo_pile is not None else side.model_copy(update={
            "fo_pile": on is True and soviet is not None
            and soviet.resolve(side.nationality) == "soviet"})
        for side in scenario.sides)
    return scenario.model_copy(update={"sides": sides})


def with_listed_nationalities(scenario: Scenario, where: str) -> Scenario:
    """The scenario with every nationality written as its listed name (``"US"`` → ``american``).

    Checked when a scenario is read for a new campaign, not when a stored one is replayed: an old
    campaign keeps the words it was created with.

    Raises:
        DataFileError: A word that is not in the nationality list (every one is named, with the
            list to choose from).
    """
    known = _nationalities()
    unknown = [f"{field} = {text!r}" for field, text in _nationality_words(scenario)
               if known.resolve(text) is None]
    if unknown:
        raise DataFileError(
            f"unknown nationality: {'; '.join(unknown)}", where=where,
            fix=f"Use one of: {known.listing()} (any case).")

    def listed(text: str) -> str:
        return known.resolve(text) or text

    sides = tuple(side.model_copy(update={"nationality": listed(side.nationality)})
                  for side in scenario.sides)
    formations = tuple(
        f if f.nationality is None else f.model_copy(update={"nationality": listed(f.nationality)})
        for f in scenario.formations)
    return scenario.model_copy(update={"sides": sides, "formations": formations})


def nationality_problems(scenario: Scenario) -> list[Problem]:
    """Each nationality word not in the list, one problem each (``rallypoint scenario check``)."""
    known = _nationalities()
    return [Problem(f"unknown nationality: {field} = {text!r}",
                    f"Use one of: {known.listing()} (any case).", field=field)
            for field, text in _nationality_words(scenario) if known.resolve(text) is None]


def _nationality_words(scenario: Scenario) -> list[tuple[str, str]]:
    """Every nationality the scenario writes, with its field."""
    words = [(f"sides[{n}].nationality", side.nationality) for n, side in enumerate(scenario.sides)]
    words += [(f"formations[{n}].nationality", f.nationality)
              for n, f in enumerate(scenario.formations) if f.nationality is not None]
    return words


def _nationalities() -> Nationalities:
    known = default_data().nationalities
    assert known is not None  # the shipped data always has the list
    return known


def scenario_json(scenario: Scenario, where: str = "") -> dict[str, Any]:
    """The JSON-ready form a campaign stores: nationalities listed, FO piles decided.

    Raises:
        DataFileError: An unknown nationality.
    """
    data = with_fo_piles(with_listed_nationalities(scenario, where)).model_dump(mode="json")
    if data.get("implementation") is None:
        # Stored as before supplied rows existed: a scenario without them reads (and
        # compares) exactly as it did, e.g. for the web lab's match with a shipped file.
        del data["implementation"]
    return data
