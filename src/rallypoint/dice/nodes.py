"""Chance nodes, modifiers and the stored record of a roll.

A chance node says *what* is rolled (``DiceSpec``), *why* (its purpose label) and *what is added*
(named modifiers). It gives exact odds without rolling anything; a roller (see
:mod:`rallypoint.dice.rollers`) picks the faces. The same node is used for the odds shown to a
player and for the roll made in play, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from rallypoint.dice import exact
from rallypoint.errors import MalformedInputError

T = TypeVar("T", bound=Hashable)


class Read(StrEnum):
    """How the faces of the dice become a number."""

    SUM = "sum"
    """Add the faces (``2d6`` → 2..12)."""
    TENS_UNITS = "tens_units"
    """Two dice read as tens and units (``d66`` → 11..66, 36 outcomes)."""


@dataclass(frozen=True)
class DiceSpec:
    """The dice of a roll: how many, how many sides, and how they are read."""

    count: int = 1
    sides: int = 6
    read: Read = Read.SUM

    def __post_init__(self) -> None:
        if self.count < 1 or self.sides < 2:
            raise MalformedInputError(
                f"dice spec {self.count}d{self.sides} is not a roll",
                fix="Use at least one die with at least two sides.",
            )
        if self.read is Read.TENS_UNITS and self.sides > 9:
            raise MalformedInputError(
                f"tens-and-units with d{self.sides} gives ambiguous readings",
                fix="Read tens and units only with dice of at most 9 sides.",
            )
        if self.read is Read.TENS_UNITS and self.count != 2:
            raise MalformedInputError(
                f"tens-and-units needs exactly two dice, not {self.count}",
                fix="Use DiceSpec(count=2, read=Read.TENS_UNITS).",
            )

    @property
    def label(self) -> str:
        """Conventional name: ``1d6``, ``2d6``, ``d66``."""
        if self.read is Read.TENS_UNITS:
            return f"d{self.sides}{self.sides}"
        return f"{self.count}d{self.sides}"

    def value(self, faces: Sequence[int]) -> int:
        """The natural (unmodified) value of ``faces`` under this spec."""
        if len(faces) != self.count or any(not 1 <= f <= self.sides for f in faces):
            raise MalformedInputError(
                f"faces {tuple(faces)!r} do not fit {self.label}",
                fix=f"Give {self.count} value(s) between 1 and {self.sides}.",
            )
        if self.read is Read.TENS_UNITS:
            return faces[0] * 10 + faces[1]
        return sum(faces)

    def distribution(self) -> dict[int, Fraction]:
        """Exact distribution of the natural value."""
        # A copy: the adapter caches its results and a caller must not be able to corrupt them.
        if self.read is Read.TENS_UNITS:
            return dict(exact.tens_units_distribution(self.sides))
        return dict(exact.sum_distribution(self.count, self.sides))


D6 = DiceSpec(1, 6)
TWO_D6 = DiceSpec(2, 6)
D66 = DiceSpec(2, 6, Read.TENS_UNITS)


class Modifier(BaseModel):
    """A named amount added to a roll (``"battalion morale"``, ``+2``)."""

    model_config = ConfigDict(frozen=True)

    name: str
    value: int

    def __str__(self) -> str:
        return f"{self.value:+d} {self.name}"


@dataclass(frozen=True)
class ChanceNode:
    """A roll about to be made: purpose, dice and named modifiers.

    Attributes:
        purpose: Label stored with the roll, e.g. ``"1/ErP 112th recovery roll"``.
        dice: What is rolled.
        modifiers: Named amounts added to the natural value.
    """

    purpose: str
    dice: DiceSpec
    modifiers: tuple[Modifier, ...] = field(default=())

    @property
    def modifier_total(self) -> int:
        """Sum of every modifier."""
        return sum(m.value for m in self.modifiers)

    def total(self, faces: Sequence[int]) -> int:
        """Modified value of ``faces``."""
        return self.dice.value(faces) + self.modifier_total

    def distribution(self) -> dict[int, Fraction]:
        """Exact distribution of the modified value."""
        shift = self.modifier_total
        return {v + shift: p for v, p in self.dice.distribution().items()}

    def outcomes(self, reading: Callable[[int], T]) -> dict[T, Fraction]:
        """Exact distribution of ``reading(modified value)``; zero-probability outcomes absent."""
        result: dict[T, Fraction] = {}
        for value, p in self.distribution().items():
            key = reading(value)
            result[key] = result.get(key, Fraction(0)) + p
        return result

    def probability(self, event: Callable[[int], bool]) -> Fraction:
        """Exact probability that ``event(modified value)`` holds."""
        return sum((p for v, p in self.distribution().items() if event(v)), Fraction(0))


class Roll(BaseModel):
    """What was rolled, stored in the event that used it so replay never re-rolls.

    Attributes:
        purpose: Why it was rolled.
        dice: The dice label (``1d6``, ``d66``).
        faces: The faces the roller picked, in order.
        natural: Their unmodified value.
        modifiers: Named modifiers added.
        total: ``natural`` plus the modifiers.
        outcome: What the rules read from the total (``"3 steps"``, ``"implements"``).
        odds: The exact odds of the outcome (or of the outcome set) at the time of the roll.
    """

    model_config = ConfigDict(frozen=True)

    purpose: str
    dice: str
    faces: tuple[int, ...]
    natural: int
    modifiers: tuple[Modifier, ...] = ()
    total: int
    outcome: str = ""
    odds: str = ""

    def explain(self) -> str:
        """One line: ``purpose: 5 +1 morale +2 bn = 8 → 3 steps (odds)``."""
        faces = "+".join(str(f) for f in self.faces) if len(self.faces) > 1 else str(self.natural)
        if self.dice.startswith("d") and len(self.faces) == 2:
            faces = f"{self.faces[0]},{self.faces[1]}→{self.natural}"
        mods = "".join(f" {m}" for m in self.modifiers)
        line = f"{self.purpose}: {self.dice} {faces}{mods} = {self.total}"
        if self.outcome:
            line += f" → {self.outcome}"
        if self.odds:
            line += f" [{self.odds}]"
        return line


def fraction_text(p: Fraction) -> str:
    """``Fraction(1, 3)`` → ``"1/3"``; whole numbers print without a denominator."""
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def outcome_text(dist: Mapping[T, Fraction]) -> dict[str, str]:
    """``{outcome: "p/q"}`` in the outcomes' order, the outcomes with zero chance left out: the
    one shape every ruleset's odds tables share (``rallypoint odds``, the lab page)."""
    return {str(k): fraction_text(p) for k, p in sorted(dist.items()) if p}


def percent_text(p: Fraction) -> str:
    """``Fraction(1, 3)`` → ``"33.3%"``."""
    return f"{float(p) * 100:.1f}%"
