"""Squares scenario files: the grid and its terrain, sides, brigades, units and leaders.

A scenario gives the board *and* the condition of every unit when the campaign starts (stamina
points left, disordered), so a battle can be entered mid-fight. See ``docs/scenarios.md`` for
every field.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from rallypoint.core.errors import MalformedInputError
from rallypoint.core.models import FrozenModel
from rallypoint.core.scenario_check import COLLECTING
from rallypoint.core.tomlfile import load_ruleset_file
from rallypoint.rulesets.squares.grid import MAX_COLUMNS, MAX_ROWS, Square


class Role(StrEnum):
    """Which leaders the seed names."""

    BRIGADIER = "brigadier"
    ARMY_COMMANDER = "army_commander"


def _square(value: str) -> str:
    try:
        return str(Square.parse(value))
    except MalformedInputError as exc:
        raise ValueError(exc.what + " (write the column letter then the row, e.g. C4)") from None


class ScenarioInfo(FrozenModel):
    """Title and provenance."""

    title: str
    source: str = ""
    notes: str = ""


class GridSpec(FrozenModel):
    """The size of the board in squares."""

    columns: int = Field(ge=1, le=MAX_COLUMNS)
    rows: int = Field(ge=1, le=MAX_ROWS)


class TerrainSpec(FrozenModel):
    """Terrain of one kind on some squares; a fortification may belong to one side."""

    kind: str
    squares: tuple[str, ...] = Field(min_length=1)
    side: str | None = Field(
        default=None, description="whose fortification it is; none: friendly to whoever holds it")

    @field_validator("squares")
    @classmethod
    def _squares(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_square(v) for v in value)


class TerrainKindSpec(FrozenModel):
    """A terrain kind added or redefined by the scenario."""

    blocks_sight: bool = False
    fortification: bool = False


class SideSpec(FrozenModel):
    """A side of the battle."""

    id: str
    name: str = ""


class BrigadeSpec(FrozenModel):
    """A brigade: its units share a brigadier."""

    id: str
    name: str = ""
    side: str


class UnitSpec(FrozenModel):
    """A unit and its condition when the campaign starts."""

    id: str
    name: str = ""
    brigade: str
    stamina: int = Field(ge=1, le=20, description="starting stamina (SP)")
    sp: int | None = Field(default=None, ge=1, description="SP left at the start; none: stamina")
    square: str
    disordered: bool = False

    @field_validator("square")
    @classmethod
    def _where(cls, value: str) -> str:
        return _square(value)

    @model_validator(mode="after")
    def _sp(self) -> UnitSpec:
        if self.sp is not None and self.sp > self.stamina:
            raise ValueError(f"unit {self.id!r} starts with sp={self.sp}, above its stamina "
                             f"{self.stamina}")
        return self

    @property
    def start_sp(self) -> int:
        """SP when the campaign starts."""
        return self.stamina if self.sp is None else self.sp


class LeaderSpec(FrozenModel):
    """A brigadier (of one brigade) or a side's army commander."""

    id: str
    name: str = ""
    role: Role
    brigade: str | None = Field(default=None, description="the brigade a brigadier commands")
    side: str | None = Field(default=None, description="an army commander's side")
    square: str

    @field_validator("square")
    @classmethod
    def _where(cls, value: str) -> str:
        return _square(value)

    @model_validator(mode="after")
    def _role(self) -> LeaderSpec:
        if self.role is Role.BRIGADIER and (self.brigade is None or self.side is not None):
            raise ValueError(f"brigadier {self.id!r} needs brigade = ... (and no side: it is "
                             "the brigade's)")
        if self.role is Role.ARMY_COMMANDER and (self.side is None or self.brigade is not None):
            raise ValueError(f"army commander {self.id!r} needs side = ... (and no brigade)")
        return self


class Scenario(FrozenModel):
    """A whole squares scenario file."""

    ruleset: str = "squares"
    scenario: ScenarioInfo
    grid: GridSpec
    parameters: dict[str, Any] = Field(default_factory=dict)
    terrain_kinds: dict[str, TerrainKindSpec] = Field(default_factory=dict)
    terrain: tuple[TerrainSpec, ...] = ()
    sides: tuple[SideSpec, ...] = Field(min_length=2)
    brigades: tuple[BrigadeSpec, ...] = Field(min_length=1)
    units: tuple[UnitSpec, ...] = Field(min_length=1)
    leaders: tuple[LeaderSpec, ...] = ()

    @model_validator(mode="after")
    def _references(self, info: ValidationInfo) -> Scenario:
        if info.context and info.context.get(COLLECTING):
            return self  # the checker asks scenario_problems for all of them
        problems = scenario_problems(self)
        if problems:
            raise ValueError(problems[0] + (f" ({len(problems) - 1} more)" if len(problems) > 1
                                            else ""))
        return self


def scenario_problems(s: Scenario, known_kinds: frozenset[str] | None = None) -> list[str]:
    """Every cross-reference problem in a scenario (collected, not stopped at the first)."""
    problems: list[str] = []
    sides = {side.id for side in s.sides}
    brigades = {b.id: b for b in s.brigades}
    kinds = (known_kinds or _shipped_kinds()) | set(s.terrain_kinds)
    # Units and leaders share one namespace (`move` and `activate` take either); sides and
    # brigades are only named inside the file, so each needs to be unique only among its own.
    for group in ([side.id for side in s.sides], [b.id for b in s.brigades],
                  [*(u.id for u in s.units), *(ld.id for ld in s.leaders)]):
        seen: set[str] = set()
        for ident in group:
            if ident in seen:
                problems.append(f"id {ident!r} is used twice")
            seen.add(ident)
    for b in s.brigades:
        if b.side not in sides:
            problems.append(f"brigade {b.id!r} names unknown side {b.side!r}")
    for u in s.units:
        if u.brigade not in brigades:
            problems.append(f"unit {u.id!r} names unknown brigade {u.brigade!r}")
    commanded: dict[str, str] = {}
    for ld in s.leaders:
        if ld.brigade is not None and ld.brigade not in brigades:
            problems.append(f"leader {ld.id!r} names unknown brigade {ld.brigade!r}")
        if ld.side is not None and ld.side not in sides:
            problems.append(f"leader {ld.id!r} names unknown side {ld.side!r}")
        post = ld.brigade or f"side:{ld.side}"
        if post in commanded:
            problems.append(f"leader {ld.id!r} and {commanded[post]!r} both command "
                            f"{post.removeprefix('side:')!r}")
        commanded[post] = ld.id
    placed: dict[str, str] = {}
    for t in s.terrain:
        if t.kind not in kinds:
            known = ", ".join(sorted(kinds))
            problems.append(f"terrain kind {t.kind!r} is unknown (known: {known})")
        if t.side is not None and t.side not in sides:
            problems.append(f"terrain {t.kind!r} names unknown side {t.side!r}")
        for sq in t.squares:
            if sq in placed:
                problems.append(f"square {sq} is both {placed[sq]!r} and {t.kind!r}")
            placed[sq] = t.kind
    where = [(f"unit {u.id!r}", u.square) for u in s.units]
    where += [(f"leader {ld.id!r}", ld.square) for ld in s.leaders]
    where += [(f"terrain {t.kind!r}", sq) for t in s.terrain for sq in t.squares]
    for who, text in where:
        square = Square.parse(text)
        if square.col > s.grid.columns or square.row > s.grid.rows:
            problems.append(f"{who} is at {text}, off the {s.grid.columns}x{s.grid.rows} grid")
    return problems


def _shipped_kinds() -> frozenset[str]:
    from rallypoint.rulesets.squares.data import default_data_raw

    return frozenset(default_data_raw()["terrain"]["kinds"])


def parse_scenario(data: dict[str, Any]) -> Scenario:
    """Validate scenario data already read (tests and tools build scenarios in memory)."""
    return Scenario.model_validate(data)


def load_scenario(path: Path) -> Scenario:
    """Read a squares scenario TOML file.

    Raises:
        DataFileError: Missing file, syntax error (with line), or invalid content (with the line
            and field).
    """
    scenario: Scenario = load_ruleset_file(path, "squares", Scenario)
    return scenario
