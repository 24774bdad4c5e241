"""The TCS R&R data file (``data.toml``) loaded into frozen, validated models.

Every table keeps its ``source``; every parameter keeps the clause it reads, its choices and why
the default was chosen. Scenario files may override parameters; the resolved data is stored in the
campaign's ``created`` event so a later edit of the data file never changes an existing campaign.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import Field, model_validator

from rallypoint.core.errors import DataFileError
from rallypoint.core.models import FrozenModel
from rallypoint.core.tomlfile import validate_data


class Column(StrEnum):
    """Recovery table columns (seed: Inf Coy, Hwy Coy, TO Coy, Tank Coy)."""

    INF = "inf"
    HWY = "hwy"
    TO = "to"
    TANK = "tank"


class RecoveryRow(FrozenModel):
    """One row of the recovery table: a range of modified rolls and the steps per column."""

    low: int
    high: int | None = None
    label: str
    steps: tuple[int, ...]


class RecoveryTable(FrozenModel):
    """The seed's recovery table."""

    source: str
    columns: tuple[Column, ...]
    rows: tuple[RecoveryRow, ...]

    @model_validator(mode="after")
    def _check(self) -> RecoveryTable:
        for row in self.rows:
            if len(row.steps) != len(self.columns):
                raise ValueError(f"row {row.label!r} has {len(row.steps)} cells, "
                                 f"expected {len(self.columns)}")
        lows = [r.low for r in self.rows]
        if lows != sorted(lows):
            raise ValueError("rows must be in rising order of 'low'")
        return self

    def row_for(self, modified_roll: int) -> RecoveryRow:
        """The row a modified roll falls in (below the first row reads the first)."""
        chosen = self.rows[0]
        for row in self.rows:
            if modified_roll >= row.low:
                chosen = row
        return chosen

    def steps(self, column: Column, modified_roll: int) -> int:
        """Steps recovered for ``modified_roll`` on ``column``."""
        return self.row_for(modified_roll).steps[self.columns.index(column)]


class MoraleData(FrozenModel):
    """Assumed morale and nationality modifiers."""

    source: str
    assumed: dict[str, int]
    nationality_modifier: dict[str, int]
    everyone_else: int

    def nationality(self, nationality: str) -> int:
        """Modifier for no-morale units of ``nationality`` (seed: German/American +1 …)."""
        return self.nationality_modifier.get(nationality.lower(), self.everyone_else)


class Nationality(FrozenModel):
    """A nationality a scenario may name: which of the seed's lines it reads, and its aliases."""

    counts_as: str
    aliases: tuple[str, ...] = ()


class Nationalities(FrozenModel):
    """The documented list of nationalities with their aliases (``data.toml [nationalities]``)."""

    source: str
    known: dict[str, Nationality]

    def resolve(self, text: str) -> str | None:
        """The listed nationality ``text`` names (its own name or an alias, any case), or None."""
        word = " ".join(text.strip().lower().replace("_", " ").split())
        for name, entry in self.known.items():
            if word == name.replace("_", " ") or word in entry.aliases:
                return name
        return None

    def listing(self) -> str:
        """``"american (us, usa, …), british (…), …"`` for an error's fix."""
        return ", ".join(f"{name} ({', '.join(e.aliases)})" if e.aliases else name
                         for name, e in sorted(self.known.items()))


class WeightedTurns(FrozenModel):
    """Weighted turns accrued per turn by a pending sheet (lowest applicable line applies)."""

    source: str
    unassigned: int
    other_sheet_or_night: int
    fired: int
    vehicle_multiplier: int


class ImplementationTable(FrozenModel):
    """The Implementation Table: mission-line thresholds and the rows of d66 cells."""

    source: str
    line: str
    lines: dict[str, tuple[int, ...]]
    rows: dict[int, tuple[int, ...]]

    @model_validator(mode="after")
    def _check(self) -> ImplementationTable:
        if self.line not in self.lines:
            raise ValueError(f"line {self.line!r} is not among {', '.join(sorted(self.lines))}")
        width = len(self.lines[self.line])
        for key, cells in self.rows.items():
            if len(cells) != width:
                raise ValueError(f"row {key} has {len(cells)} cells, expected {width}")
            for cell in cells:
                if cell and not (1 <= cell // 10 <= 6 and 1 <= cell % 10 <= 6):
                    raise ValueError(f"row {key}: cell {cell} is not a d66 value (11..66) or 0")
        return self

    def column(self, weighted_turns: int) -> int | None:
        """1-based column reached by ``weighted_turns`` on the R&R line, or None below the first."""
        reached = None
        for index, threshold in enumerate(self.lines[self.line], start=1):
            if weighted_turns >= threshold:
                reached = index
        return reached

    def needed_at(self, row: int, weighted_turns: int) -> int | None:
        """The d66 roll needed with ``weighted_turns`` on ``row``; None: no check yet, or '–'."""
        column = self.column(weighted_turns)
        return self.needed(row, column) if column is not None else None

    def implements_later(self, row: int, column: int) -> int | None:
        """The first column from ``column`` on whose cell on ``row`` can implement, or None:
        then no number of weighted turns helps (a row the table lacks: rows 9 and up)."""
        cells = self.rows.get(row, ())
        return next((n for n in range(column, len(cells) + 1) if cells[n - 1]), None)

    def needed(self, row: int, column: int) -> int | None:
        """The d66 roll needed, or None when the cell is '–' or the row is unknown."""
        cells = self.rows.get(row)
        if cells is None:
            return None
        cell = cells[column - 1]
        return cell or None


class Parameter(FrozenModel):
    """A named reading of a vague or ambiguous clause."""

    value: str | bool
    clause: str
    choices: tuple[str | bool, ...]
    note: str
    means: dict[str, str] = Field(default_factory=dict)
    """What each choice reads the clause as, by choice (``"true"``/``"false"`` for a switch);
    empty in the data stored by campaigns created before it was written down."""

    @model_validator(mode="after")
    def _check(self) -> Parameter:
        if self.value not in self.choices:
            raise ValueError(f"value {self.value!r} is not one of "
                             f"{', '.join(str(c) for c in self.choices)}")
        return self


class Parameters(FrozenModel):
    """Typed access to the resolved parameter values."""

    pairing_scope: Literal["company", "formation"]
    odd_pile_limit: Literal["floor", "ceil"]
    morale_rounding: Literal["half_up", "down", "up"]
    morale_average_over: Literal["all", "living"]
    half_dead_pile_rounding: Literal["down", "up"]
    complete_battalion: Literal["all_companies", "any_company"]
    skip_moot_rolls: bool
    vehicle_sheets_triple: bool
    allow_redistribution: bool
    hex_offset: Literal["even_down", "odd_down"]
    # Each default below is how a campaign stored before the parameter existed played: its
    # ``created`` event lacks the key, and it must fold and play on as it was played.
    leave_center_scope: Literal["formation", "company"] = "company"
    shared_center: Literal["own_formation", "everyone"] = "everyone"
    no_morale_mix: Literal["per_counter", "per_company"] = "per_company"
    soviet_fo_pile: bool = False
    sheet_command_prep: Literal["worst", "best"] = "worst"


class RulesData(FrozenModel):
    """Everything in ``data.toml``."""

    recovery_table: RecoveryTable
    morale: MoraleData
    weighted_turns: WeightedTurns
    implementation: ImplementationTable
    fo_recovery_numbers: dict[str, int] = Field(default_factory=dict)
    parameters: dict[str, Parameter]
    nationalities: Nationalities | None = None
    """None in the data stored by a campaign created before the list existed: such a campaign
    keeps reading any unlisted word as 'everyone else', as it was played."""

    @model_validator(mode="after")
    def _check(self) -> RulesData:
        Parameters.model_validate({k: p.value for k, p in self.parameters.items()})
        if self.nationalities is not None:
            lines = {*self.morale.nationality_modifier, "everyone_else"}
            for name, entry in self.nationalities.known.items():
                if entry.counts_as not in lines:
                    raise ValueError(f"nationality {name!r} counts as {entry.counts_as!r}, "
                                     f"not one of {', '.join(sorted(lines))}")
        return self

    def nationality_modifier(self, nationality: str) -> int:
        """The seed's modifier for no-morale units of ``nationality`` (German/American +1,
        British/Commonwealth +2, everyone else +3), through the nationality list's aliases."""
        if self.nationalities is None:
            return self.morale.nationality(nationality)
        name = self.nationalities.resolve(nationality)
        line = self.nationalities.known[name].counts_as if name else "everyone_else"
        return self.morale.nationality_modifier.get(line, self.morale.everyone_else)

    @property
    def params(self) -> Parameters:
        """The parameter values, typed."""
        return Parameters.model_validate({k: p.value for k, p in self.parameters.items()})


def _strip_sources(raw: dict[str, Any]) -> dict[str, Any]:
    fo = dict(raw.get("fo_recovery_numbers", {}))
    fo.pop("source", None)
    return {**raw, "fo_recovery_numbers": fo}


@cache
def default_data_raw() -> dict[str, Any]:
    """The shipped ``data.toml`` as parsed TOML."""
    text = resources.files("rallypoint.rulesets.tcs").joinpath("data.toml").read_text("utf-8")
    return _strip_sources(tomllib.loads(text))


def resolve_data(overrides: Mapping[str, Any],
                 rows: Mapping[int, Sequence[int]] | None = None,
                 rows_source: str = "") -> dict[str, Any]:
    """The shipped data with scenario parameter overrides applied, validated, JSON-ready.

    Args:
        overrides: Parameter name → value (from the scenario's ``[parameters]`` table).
        rows: Implementation Table rows the scenario supplies (facts: rows 9 and up 'cannot
            implement unless the user's data file supplies them'); a shipped row given here
            is replaced.
        rows_source: Where the supplied rows come from, kept with the table's source.

    Raises:
        DataFileError: An unknown parameter or a value outside its choices.
    """
    raw = default_data_raw()
    params = dict(raw["parameters"])
    for name, value in overrides.items():
        if name not in params:
            raise DataFileError(
                f"unknown parameter {name!r}", where=f"[parameters].{name}",
                fix=f"Use one of: {', '.join(sorted(params))}.",
            )
        choices = params[name]["choices"]
        if value not in choices:
            raise DataFileError(
                f"parameter {name!r} cannot be {value!r}", where=f"[parameters].{name}",
                fix=f"Use one of: {', '.join(str(c) for c in choices)}.",
            )
        params[name] = {**params[name], "value": value}
    merged = {**raw, "parameters": params}
    if rows:
        table = raw["implementation"]
        supplied = ", ".join(str(n) for n in sorted(rows))
        merged["implementation"] = {
            **table, "rows": {**table["rows"], **{str(n): list(r) for n, r in rows.items()}},
            "source": f"{table['source']}; row(s) {supplied} from the scenario: {rows_source}"}
    return load_data(merged).model_dump(mode="json")


def load_data(raw: Mapping[str, Any]) -> RulesData:
    """Validate raw data into :class:`RulesData`."""
    return validate_data(RulesData, raw, "tcs")


@cache
def default_data() -> RulesData:
    """The shipped data with no overrides (cached: it is frozen, and validating it is not free)."""
    return load_data(resolve_data({}))
