"""The typed front parts a ruleset's plugin may name beside its rules, each with its fallback.

:class:`~rallypoint.core.registry.RulesetPlugin` names every part by ``"module:attribute"``; the
Protocols here say what the object found there must be, so a generic front end loads it and uses
it without knowing the ruleset (``rallypoint demo``, the CLI's due words, the lab page's odds).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Generic, Protocol, TypeVar, runtime_checkable

from typing_extensions import TypeIs

from rallypoint.core.erased import chance_nodes
from rallypoint.core.registry import RulesetPlugin

S_contra = TypeVar("S_contra", contravariant=True)


@dataclass(frozen=True)
class OddsTable:
    """One titled table of exact chances, as a ruleset's odds part gives it.

    Attributes:
        title: What the table is of (``"A light wound heals after (days: chance)"``).
        rows: (outcome, exact chance) in the order to show them.
    """

    title: str
    rows: tuple[tuple[str, Fraction], ...]


@runtime_checkable
class OddsPart(Protocol, Generic[S_contra]):
    """A ruleset's ``odds`` part: its exact odds tables for a state (the lab page shows them).
    Optional: without it the tables are those of its declared chance nodes
    (:class:`ChanceNodes`)."""

    def tables(self, state: S_contra) -> Sequence[OddsTable]:
        """The tables worth showing for ``state``, each computed from the rules' own nodes."""
        ...


def is_odds_part(found: object) -> TypeIs[OddsPart[object]]:
    """Whether a plugin's ``odds`` part has an :class:`OddsPart`'s ``tables`` (the state it
    reads is its ruleset's own: the caller passes it that campaign's state)."""
    return isinstance(found, OddsPart)


@dataclass(frozen=True)
class Odds(Generic[S_contra]):
    """An :class:`OddsPart` from its function: ``ODDS = Odds(tables=tables)``."""

    tables: Callable[[S_contra], Sequence[OddsTable]]


def odds_tables(found: RulesetPlugin, state: object) -> tuple[OddsTable, ...]:
    """The exact odds tables of a state: the ruleset's ``odds`` part's, or else one table per
    chance node it declares open (none: no table)."""
    if found.odds is not None:
        part = found.load("odds", is_odds_part)
        return tuple(part.tables(state))
    return tuple(OddsTable(f"{d.title} ({d.node.dice.label})", tuple(d.odds().items()))
                 for d in chance_nodes(found.ruleset(), state))


@runtime_checkable
class DemoPart(Protocol):
    """A ruleset's ``demo`` part: a scripted scene that ``rallypoint demo`` plays in its
    throwaway database (through the CLI, printing every step)."""

    @property
    def order(self) -> int:
        """Where the scene comes in the demo (lowest first; ties by ruleset name)."""
        ...

    def play(self) -> None:
        """Play and print the scene in the database the demo has open."""
        ...


def is_demo_part(found: object) -> TypeIs[DemoPart]:
    """Whether a plugin's ``demo`` part is a :class:`DemoPart`."""
    return isinstance(found, DemoPart)


@dataclass(frozen=True)
class Demo:
    """A :class:`DemoPart` from its parts: ``DEMO = Demo(order=10, play=run_scene)``."""

    order: int
    play: Callable[[], None]


CommandWords = Mapping[str, str]
"""A ruleset's ``words`` part: command kind → what a player types for a due item of that kind
(``{subject}``: the item's subject), e.g. ``{"turn": "rallypoint squares turn"}``."""


def is_word_map(found: object) -> TypeIs[Mapping[str, str]]:
    """Whether a plugin's ``words`` (or ``fixes``) part maps text to text, every item of it."""
    return isinstance(found, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in found.items())


@runtime_checkable
class LabPart(Protocol):
    """A ruleset's ``lab`` part: the small simulation its campaign's lab page draws, through
    the real rules, from the shipped scenario the campaign was created from. Optional: without
    it the page points to ``rallypoint simulate``."""

    @property
    def sentence(self) -> str:
        """What the picture shows, with ``{runs}`` and ``{entropy}`` to fill in."""
        ...

    @property
    def alt(self) -> str:
        """The picture's text for a reader who cannot see it (``{runs}`` to fill in)."""
        ...

    @property
    def title(self) -> str:
        """The figure's title (``{name}``, ``{runs}``, ``{entropy}`` to fill in)."""
        ...

    @property
    def label(self) -> str:
        """The variant the histograms are of (a policy's name, say)."""
        ...

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics drawn, one histogram each, in panel order."""
        ...

    def simulate(self, scenario: Path, runs: int, entropy: int) -> Mapping[str, Sequence[float]]:
        """``runs`` simulated runs of ``scenario`` from the seed ``entropy`` (one worker):
        metric → one value per run (NaN: not observed)."""
        ...


def is_lab_part(found: object) -> TypeIs[LabPart]:
    """Whether a plugin's ``lab`` part is a :class:`LabPart`."""
    return isinstance(found, LabPart)


@dataclass(frozen=True)
class PageSimulation:
    """A :class:`LabPart` from its parts (``LAB = PageSimulation(...)``); ``simulate`` is a
    field so the part may import the lab's numpy only when the page asks for a picture."""

    sentence: str
    alt: str
    title: str
    label: str
    metrics: tuple[str, ...]
    simulate: Callable[[Path, int, int], Mapping[str, Sequence[float]]]
