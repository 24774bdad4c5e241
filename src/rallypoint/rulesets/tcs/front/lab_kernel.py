"""Vectorised numpy kernels for TCS rolls: many companies, sheets or FOs at once.

The tables come from :class:`~rallypoint.rulesets.tcs.data.RulesData` (the same data file the
rules read), turned into lookup arrays: the recovery table's row lows for ``np.searchsorted``,
its steps as a rows × columns array, and the Prepared Defense line's cells per turn. The dice
are the rules' own ``DiceSpec``s (``D6``, ``D66``, ``TWO_D6``) drawn as arrays by
:func:`rallypoint.lab.rollers.natural_values`. ``tests/test_lab_tcs.py`` checks each kernel
against the exact odds and the recovery kernel against the scalar recovery node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from rallypoint.core.errors import MalformedInputError
from rallypoint.dice import D6, D66, TWO_D6
from rallypoint.lab.kit import Chunk, die_faces, generator, natural_values
from rallypoint.rulesets.tcs.data import Column, RulesData, default_data

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RecoveryArrays:
    """The recovery table as arrays.

    Attributes:
        lows: Lowest modified roll of each row, rising (for ``searchsorted``).
        steps: Steps recovered, rows × columns.
        columns: Column names in the table's order.
    """

    lows: IntArray
    steps: IntArray
    columns: tuple[Column, ...]

    @classmethod
    def from_rules(cls, rules: RulesData) -> RecoveryArrays:
        """Build from the data file's recovery table."""
        table = rules.recovery_table
        return cls(np.array([r.low for r in table.rows], dtype=np.int64),
                   np.array([r.steps for r in table.rows], dtype=np.int64), table.columns)

    def column_index(self, column: Column | str) -> int:
        """Index of a column; refuses an unknown one."""
        try:
            return self.columns.index(Column(column))
        except ValueError:
            raise MalformedInputError(
                f"no recovery column {column!r}",
                fix=f"Use one of: {', '.join(c.value for c in self.columns)}.") from None

    def steps_for(self, totals: IntArray, column: Column | str) -> IntArray:
        """Steps for modified totals: the row is the last whose low ≤ total (below the first row
        reads the first row, as the table does)."""
        rows = np.searchsorted(self.lows, totals, side="right") - 1
        np.clip(rows, 0, len(self.lows) - 1, out=rows)
        result: IntArray = self.steps[rows, self.column_index(column)]
        return result

    def face_lookup(self, modifier: int, column: Column | str) -> IntArray:
        """Steps for each face 1..6 of the die at one modifier (index 0 unused, so
        ``lookup[face]`` reads directly)."""
        faces = np.arange(0, 7, dtype=np.int64)
        return self.steps_for(faces + modifier, column)


def recovery_steps(gen: np.random.Generator, arrays: RecoveryArrays, column: Column | str,
                   modifier: int | IntArray, count: int) -> IntArray:
    """Steps recovered by ``count`` company recovery rolls (one die + modifier each).

    Args:
        gen: The chunk's generator.
        arrays: The recovery table.
        column: The table column all these companies roll on.
        modifier: One modifier for all, or an array of ``count`` per-company modifiers.
        count: How many rolls.
    """
    if isinstance(modifier, int | np.integer):
        # One modifier: a seven-entry lookup by face beats a search per roll.
        faces = die_faces(gen, D6.sides, count)
        result: IntArray = arrays.face_lookup(int(modifier), column)[faces]
        return result
    dice = natural_values(gen, D6, count)
    return arrays.steps_for(dice + np.asarray(modifier, dtype=np.int64), column)


def implementation_cells(rules: RulesData, row: int, per_turn: int, turns: int,
                         start: int = 0) -> IntArray:
    """The d66 roll needed at each of the next ``turns`` turns (0: cannot implement that turn).

    The sheet has ``start`` weighted turns now and accrues ``per_turn`` each turn before its
    check, on the Prepared Defense line (``rallypoint odds tcs-implementation --per-turn``).
    """
    table = rules.implementation
    cells = [table.needed_at(row, start + per_turn * t) or 0 for t in range(1, turns + 1)]
    return np.array(cells, dtype=np.int64)


def turns_to_implementation(gen: np.random.Generator, cells: IntArray, count: int) -> FloatArray:
    """For ``count`` sheets, the turn (1-based) of the first successful check; NaN when none
    succeeds within ``len(cells)`` turns."""
    rolls = natural_values(gen, D66, (count, len(cells)))
    hits = (rolls >= cells) & (cells > 0)
    first = np.argmax(hits, axis=1).astype(np.float64) + 1.0
    result: FloatArray = np.where(hits.any(axis=1), first, np.nan)
    return result


def fo_chance_ok(number: int) -> None:
    """Refuse an FO Recovery Number that 2d6 can never reach (the FO would never return)."""
    if number > 12:
        raise MalformedInputError(f"FO Recovery Number {number}: 2d6 never reaches it",
                                  fix="Give a number from 2 to 12 (AFH 12, GD'41 11, BW 9).")


def hours_to_fo_return(gen: np.random.Generator, number: int, count: int,
                       block: int = 24) -> FloatArray:
    """Whole hours until each of ``count`` dead FOs returns (2d6 ≥ ``number`` each hour).

    Rolls ``block`` hours at a time for the FOs still dead until every one is back, so nothing is
    cut off (the number must be reachable: see :func:`fo_chance_ok`).
    """
    fo_chance_ok(number)
    hours = np.zeros(count, dtype=np.float64)
    waiting = np.arange(count)
    elapsed = 0
    while len(waiting):
        rolls = natural_values(gen, TWO_D6, (len(waiting), block))
        hits = rolls >= number
        back = hits.any(axis=1)
        hours[waiting[back]] = elapsed + np.argmax(hits[back], axis=1) + 1
        waiting = waiting[~back]
        elapsed += block
    return hours


@dataclass(frozen=True)
class RecoverySpec:
    """Parameters of a vectorised recovery run (picklable, one per run)."""

    modifier: int
    columns: tuple[str, ...]
    row: int | None = None
    per_turn: int = 3
    turns: int = 24


def recovery_chunk(chunk: Chunk) -> dict[str, FloatArray]:
    """Worker: ``chunk.runs`` recovery rolls per column, and turns to implementation when a row
    is given. Draw order is fixed (columns in order, then implementation)."""
    spec: RecoverySpec = chunk.spec
    gen = generator(chunk.seed)
    rules = default_data()
    arrays = RecoveryArrays.from_rules(rules)
    out: dict[str, FloatArray] = {}
    for column in spec.columns:
        steps = recovery_steps(gen, arrays, column, spec.modifier, chunk.runs)
        out[f"steps_{column}"] = steps.astype(np.float64)
    if spec.row is not None:
        cells = implementation_cells(rules, spec.row, spec.per_turn, spec.turns)
        out["turns_to_implementation"] = turns_to_implementation(gen, cells, chunk.runs)
    return out


@dataclass(frozen=True)
class FoSpec:
    """Parameters of a vectorised FO run."""

    number: int


def fo_chunk(chunk: Chunk) -> dict[str, FloatArray]:
    """Worker: hours until each of ``chunk.runs`` dead FOs returns."""
    spec: FoSpec = chunk.spec
    return {"hours_to_return": hours_to_fo_return(generator(chunk.seed), spec.number, chunk.runs)}


def exact_fo(number: int) -> dict[str, Any]:
    """Exact per-hour chance and mean hours (geometric) beside the sample."""
    from fractions import Fraction

    from rallypoint.rulesets.tcs.front import odds

    p = Fraction(odds.tcs_fo(number, horizon=1)["per_hour"])
    return {"per_hour": str(p), "mean_hours": float(1 / p) if p else None}
