"""The platoon data file (``data.toml``) loaded into frozen, validated models.

Every vague amount of the seed is a :class:`Param` (value, the clause it reads, why the default);
section 8's green and veteran columns are :class:`Column` pairs. Scenario files may override any
parameter as ``[parameters] "fatigue.fight" = 25``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

from pydantic import model_validator

from rallypoint.core.errors import DataFileError
from rallypoint.core.models import FrozenModel
from rallypoint.core.tomlfile import validate_data

REQUIRED: dict[str, tuple[str, ...]] = {
    "fatigue": ("fight", "tank_hit", "knocked_out", "rest_recovery", "night_recovery",
                "shaken_stress"),
    "steadiness": ("per_battle", "max_reduction"),
    "wounds": ("light_skill", "light_days_base", "light_days_die"),
    "cohesion": ("per_day", "cap", "stranger_loss", "start", "per_year"),
    "morale": ("start", "tank_lost", "man_killed", "objective", "enemy_withdrawn", "rest_day",
               "per_year", "cap", "threshold_per_10"),
    "replacements": ("man_days_base", "man_days_die", "tank_days_base", "tank_days_die",
                     "transfer_on"),
    "year": ("skill_per_year", "skill_cap", "trust_per_evening"),
    "fit": ("min_crew", "min_tanks"),
    "standin": ("tank_hit", "tank_knocked_out", "tank_written_off", "objective",
                "enemy_withdrawn"),
}
ADDED_READINGS = (("fatigue", "rest_rounds_up"), ("year", "once_after_calendar"),
                  ("year", "renew_calendar"), ("year", "naples_commanders"),
                  ("morale", "bound_each_step"), ("year", "commanders_by_trade"),
                  ("year", "repaired_tank_keeps_name"))
"""Switches added after campaigns existed: off (0) when a campaign's stored data lacks them,
whatever their shipped value (see :meth:`PlatoonData.reading`); docs/rules/platoon.md
"Readings" lists each."""
SWITCHED_READINGS = (("replacements", "withdrawn_action_counts"), ("morale", "knocked_out_is_lost"),
                     ("fatigue", "night_per_man"), ("cohesion", "battle_evening"),
                     ("wounds", "later_fit_day"), ("replacements", "request_seat_trade"))
"""Readings the rules always took, made switches later: on (1) when a campaign's stored data
lacks them, the reading it was played with (``reading(..., before=True)``)."""
ATTRIBUTES = ("age", "skill", "nerve", "initiative", "steadiness")


class Param(FrozenModel):
    """A named amount: its value, the clause it reads, and why the default."""

    value: int
    clause: str
    note: str


class MeanSpread(FrozenModel):
    """One column of section 8: a mean and a spread (the draw reaches exactly ±spread)."""

    mean: int
    spread: int


class Column(FrozenModel):
    """An attribute's green and veteran columns."""

    green: MeanSpread
    veteran: MeanSpread

    def at(self, progress: Fraction) -> tuple[Fraction, Fraction]:
        """Mean and spread interpolated *together* at campaign progress ``p`` (0 green, 1 vet)."""
        mean = self.green.mean + progress * (self.veteran.mean - self.green.mean)
        spread = self.green.spread + progress * (self.veteran.spread - self.green.spread)
        return Fraction(mean), Fraction(spread)


class Names(FrozenModel):
    """Surnames for men and names for tanks, taken in order."""

    source: str
    surnames: tuple[str, ...]
    tanks: tuple[str, ...]


class PlatoonData(FrozenModel):
    """Everything in ``data.toml``."""

    sections: dict[str, dict[str, Param]]
    section8: dict[str, Column]
    names: Names

    @model_validator(mode="after")
    def _check(self) -> PlatoonData:
        for section, keys in REQUIRED.items():
            missing = [k for k in keys if k not in self.sections.get(section, {})]
            if missing:
                raise ValueError(f"[{section}] lacks {', '.join(missing)}")
        missing = [a for a in ATTRIBUTES if a not in self.section8]
        if missing:
            raise ValueError(f"[section8] lacks {', '.join(missing)}")
        return self

    def n(self, section: str, key: str) -> int:
        """The value of parameter ``section.key``."""
        return self.sections[section][key].value

    def reading(self, section: str, key: str, before: bool = False) -> bool:
        """A reading switched by parameter ``section.key``.

        A campaign stores the data it was created with; when that data predates the parameter,
        the campaign keeps the reading it was played with, ``before``: off for a reading added
        later (:data:`ADDED_READINGS`), on for one the rules always took
        (:data:`SWITCHED_READINGS`), so its log replays unchanged.
        """
        found = self.sections.get(section, {}).get(key)
        return bool(found.value) if found is not None else before


@cache
def _raw() -> dict[str, Any]:
    text = resources.files("rallypoint.rulesets.platoon").joinpath("data.toml").read_text("utf-8")
    return tomllib.loads(text)


def _shape(raw: Mapping[str, Any]) -> dict[str, Any]:
    sections = {
        name: {k: v for k, v in body.items() if k != "source"}
        for name, body in raw.items() if name in REQUIRED
    }
    section8 = {k: v for k, v in raw["section8"].items() if k != "source"}
    return {"sections": sections, "section8": section8, "names": raw["names"]}


def resolve_data(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The shipped data with ``"section.key" = value`` overrides, validated and JSON-ready."""
    shaped = _shape(_raw())
    for dotted, value in overrides.items():
        section, _, key = dotted.partition(".")
        if section not in shaped["sections"] or key not in shaped["sections"][section]:
            known = ", ".join(f"{s}.{k}" for s, body in shaped["sections"].items() for k in body)
            raise DataFileError(f"unknown parameter {dotted!r}", where=f"[parameters] {dotted}",
                                fix=f"Use one of: {known}.")
        if not isinstance(value, int) or isinstance(value, bool):
            raise DataFileError(f"parameter {dotted!r} must be a whole number, not {value!r}",
                                where=f"[parameters] {dotted}", fix="Write a whole number.")
        entry = dict(shaped["sections"][section][key])
        entry["value"] = value
        shaped["sections"][section] = {**shaped["sections"][section], key: entry}
    return load_data(shaped).model_dump(mode="json")


def load_data(raw: Mapping[str, Any]) -> PlatoonData:
    """Validate shaped data into :class:`PlatoonData`."""
    return validate_data(PlatoonData, raw, "platoon")


@cache
def default_data() -> PlatoonData:
    """The shipped data with no overrides (cached: it is frozen, and validating it is not free)."""
    return load_data(resolve_data({}))
