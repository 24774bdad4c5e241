"""The squares data file (``data.toml``) loaded into frozen, validated models.

Every threshold and modifier keeps its ``source`` (the seed clause it reads); every parameter keeps
its clause, its choices and why the default was chosen. A scenario may override parameters and add
terrain kinds; the resolved data is stored in the campaign's ``created`` event, so a later edit of
the data file never changes how an existing campaign replays.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import (
    StrictBool,
    StrictInt,
    model_validator,
)

from rallypoint.core.errors import DataFileError
from rallypoint.core.models import FrozenModel
from rallypoint.core.tomlfile import validate_data
from rallypoint.rulesets.squares.grid import SightLine


class RallyKind(StrEnum):
    """What a rally test tries to win back."""

    DISORDER = "disorder"
    """Remove the disorder status (the seed's 'Recovery only' modifiers apply)."""
    SP = "sp"
    """Regain stamina points (the seed's 'Rally SP only' modifiers apply)."""


class Thresholds(FrozenModel):
    """The numbers of the seed's rally test, shaken state and recovery conditions."""

    source: str
    pass_at: int
    break_at: int
    shaken_sp: int
    recovery_needs_more_than: int
    rally_after_sp_lost: int

    @model_validator(mode="after")
    def _check(self) -> Thresholds:
        if self.break_at >= self.pass_at:
            raise ValueError(f"break_at {self.break_at} must be below pass_at {self.pass_at}")
        return self


class ModifierRule(FrozenModel):
    """One modifier of the rally test: its name, amount per instance, cap, and which rallies."""

    name: str
    value: int
    applies: Literal["disorder", "sp", "both"]
    source: str
    cap: int | None = None

    def applies_to(self, kind: RallyKind) -> bool:
        """Whether this modifier counts for a rally of ``kind``."""
        return self.applies == "both" or self.applies == kind.value


MODIFIER_KEYS = (
    "disorder_recovery", "sp_lost", "both_leaders", "fortification", "no_enemy_visible",
    "shaken_friends", "no_friends", "steady_friends",
)
"""The seed's eight modifiers, in the order the seed lists them (and the odds show them)."""


class TerrainKind(FrozenModel):
    """What a kind of terrain does to the rules."""

    blocks_sight: bool = False
    fortification: bool = False


class TerrainTable(FrozenModel):
    """Terrain kinds by name."""

    source: str
    kinds: dict[str, TerrainKind]

    @model_validator(mode="after")
    def _check(self) -> TerrainTable:
        if "open" not in self.kinds:
            raise ValueError("terrain kinds must include 'open' (every unnamed square)")
        return self


class Parameter(FrozenModel):
    """A named reading of a vague or silent clause."""

    value: StrictBool | StrictInt | str
    clause: str
    choices: tuple[StrictBool | StrictInt | str, ...]
    note: str

    @model_validator(mode="after")
    def _check(self) -> Parameter:
        if not is_choice(self.value, self.choices):
            raise ValueError(f"value {self.value!r} is not one of {list(self.choices)}")
        return self


def is_choice(value: object, choices: tuple[object, ...] | list[object]) -> bool:
    """``value in choices`` without Python's ``True == 1`` (a bool never passes for an int)."""
    return any(type(value) is type(c) and value == c for c in choices)


class Parameters(FrozenModel):
    """Typed access to the resolved parameter values."""

    sp_rally_gain: StrictInt | Literal["all"]
    adjacency: Literal["eight", "four"]
    rally_eligibility: Literal["per_kind", "either"]
    once_per_turn: StrictBool
    units_block_sight: StrictBool
    # A campaign stores the data it was created with; one created before these parameters existed
    # played by the old reading, so a missing value means that reading, not the new default.
    line_of_sight: SightLine = SightLine.BRESENHAM
    enemy_leaders_block_rally: StrictBool = False
    # Readings the rules always took, made switches later: missing means that same reading.
    same_square_is_adjacent: StrictBool = True
    unowned_fortification_friendly: StrictBool = True
    shaken_friends_are_friends: StrictBool = True
    sp_rally_clears_disorder: StrictBool = False


class RulesData(FrozenModel):
    """Everything in ``data.toml`` (with a scenario's overrides once resolved)."""

    thresholds: Thresholds
    modifiers: dict[str, ModifierRule]
    terrain: TerrainTable
    parameters: dict[str, Parameter]

    @model_validator(mode="after")
    def _check(self) -> RulesData:
        if set(self.modifiers) != set(MODIFIER_KEYS):
            missing = sorted(set(MODIFIER_KEYS) - set(self.modifiers))
            extra = sorted(set(self.modifiers) - set(MODIFIER_KEYS))
            raise ValueError(f"modifiers must be exactly the seed's eight (missing {missing}, "
                             f"unknown {extra})")
        Parameters.model_validate({k: p.value for k, p in self.parameters.items()})
        return self

    @property
    def params(self) -> Parameters:
        """The parameter values, typed."""
        return Parameters.model_validate({k: p.value for k, p in self.parameters.items()})

    def modifier(self, key: str) -> ModifierRule:
        """The modifier rule named ``key`` (one of :data:`MODIFIER_KEYS`)."""
        return self.modifiers[key]


@cache
def _default_text() -> str:
    return resources.files("rallypoint.rulesets.squares").joinpath("data.toml").read_text("utf-8")


def default_data_raw() -> dict[str, Any]:
    """The shipped ``data.toml`` as parsed TOML (a fresh copy each call)."""
    return tomllib.loads(_default_text())


def resolve_data(overrides: Mapping[str, Any],
                 terrain_kinds: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The shipped data with a scenario's overrides applied, validated, JSON-ready.

    Args:
        overrides: Parameter name → value (the scenario's ``[parameters]`` table).
        terrain_kinds: Extra or redefined terrain kinds (the scenario's ``[terrain_kinds]``).

    Raises:
        DataFileError: An unknown parameter, or a value outside its choices.
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
        if not is_choice(value, choices):
            raise DataFileError(
                f"parameter {name!r} cannot be {value!r}", where=f"[parameters].{name}",
                fix=f"Use one of: {', '.join(repr(c) for c in choices)}.",
            )
        params[name] = {**params[name], "value": value}
    terrain = dict(raw["terrain"])
    added = {k: dict(v) for k, v in (terrain_kinds or {}).items()}
    terrain["kinds"] = {**terrain["kinds"], **added}
    merged = {**raw, "parameters": params, "terrain": terrain}
    return load_data(merged).model_dump(mode="json")


def load_data(raw: Mapping[str, Any]) -> RulesData:
    """Validate raw data into :class:`RulesData`."""
    return validate_data(RulesData, raw, "squares")


@cache
def default_data() -> RulesData:
    """The shipped data with no overrides (cached: it is frozen, and validating it is not free)."""
    return load_data(resolve_data({}))
