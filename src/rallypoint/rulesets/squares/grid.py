"""Squares of the grid (``C4``: column C, row 4), adjacency, and line of sight.

Columns are letters from ``A`` (at most 26), rows numbers from 1, as on a chessboard. Adjacency is
the ``adjacency`` parameter: ``"eight"`` (the eight surrounding squares) or ``"four"`` (the squares
sharing a side). Line of sight is a straight line from the centre of one square to the centre of
the other, crossing exactly the squares it passes through (the ``line_of_sight`` parameter keeps
Bresenham's steps as a switch); see :func:`squares_between`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from itertools import pairwise

from rallypoint.core.errors import MalformedInputError

_SQUARE = re.compile(r"^(?P<col>[A-Za-z])(?P<row>\d{1,2})$")
MAX_COLUMNS = 26
MAX_ROWS = 99


@dataclass(frozen=True, order=True)
class Square:
    """A square of the grid; ``col`` and ``row`` count from 1."""

    col: int
    row: int

    @classmethod
    def parse(cls, text: str) -> Square:
        """Parse ``"C4"`` (the letter may be lower case)."""
        match = _SQUARE.match(text.strip())
        if not match or int(match["row"]) < 1:
            raise MalformedInputError(
                f"{text!r} is not a square",
                fix="Write the column letter then the row number, e.g. C4.",
            )
        return cls(ord(match["col"].upper()) - ord("A") + 1, int(match["row"]))

    def __str__(self) -> str:
        return f"{chr(ord('A') + self.col - 1)}{self.row}"


def column_letter(col: int) -> str:
    """The letter of column ``col`` (1 → ``A``)."""
    return chr(ord("A") + col - 1)


def adjacent(a: Square, b: Square, adjacency: str) -> bool:
    """Whether ``b`` is one of the squares around ``a`` (never ``a`` itself)."""
    dc, dr = abs(a.col - b.col), abs(a.row - b.row)
    if adjacency == "four":
        return dc + dr == 1
    return max(dc, dr) == 1


def near(a: Square, b: Square, adjacency: str) -> bool:
    """The seed's 'same or adjacent square'."""
    return a == b or adjacent(a, b, adjacency)


class SightLine(StrEnum):
    """How a sight line picks the squares it crosses (the ``line_of_sight`` parameter)."""

    SUPERCOVER = "supercover"
    """Every square whose inside the straight centre-to-centre line passes through (exact)."""
    BRESENHAM = "bresenham"
    """One square per step of the longer axis, as Bresenham's line (misses some it crosses)."""


def squares_between(a: Square, b: Square,
                    line: SightLine = SightLine.SUPERCOVER) -> list[tuple[Square, ...]]:
    """The squares a sight line from ``a`` to ``b`` crosses, ends excluded, in order from ``a``.

    Args:
        a: One end.
        b: The other end.
        line: ``SUPERCOVER`` (default): every square the straight line from centre to centre
            passes through, exactly; where it passes exactly through a corner, the two squares
            that only touch it there form one grazing step. ``BRESENHAM``: one step per column
            (or row) of the longer axis; a step where the line runs exactly between two squares
            holds both.

    Returns:
        One tuple per step, of one square or (on a grazing step) two; the same steps, reversed,
        from the other end.
    """
    if line is SightLine.BRESENHAM:
        return _bresenham(a, b)
    return _supercover(a, b)


def _supercover(a: Square, b: Square) -> list[tuple[Square, ...]]:
    # Square centres sit on whole numbers and their edges on halves: the line enters a new square
    # each time its column or row coordinate passes a half. Between two such crossings it is
    # inside one square (found at the midpoint); a crossing of both at once is a corner.
    dc, dr = b.col - a.col, b.row - a.row
    cuts = sorted(_half_crossings(a.col, dc) | _half_crossings(a.row, dr))
    found: list[tuple[Square, ...]] = []
    bounds = [Fraction(0), *cuts, Fraction(1)]
    cells = [_at(a, dc, dr, (lo + hi) / 2) for lo, hi in pairwise(bounds)]
    for n in range(len(cuts)):
        if n > 0:
            found.append((cells[n],))
        before, after = cells[n], cells[n + 1]
        if before.col != after.col and before.row != after.row:
            # Through a corner: the two squares beside it are only touched (a grazing step).
            found.append(tuple(sorted((Square(after.col, before.row),
                                       Square(before.col, after.row)))))
    return found


def _half_crossings(start: int, delta: int) -> set[Fraction]:
    """The fractions t in (0, 1) at which ``start + delta * t`` is a whole number plus a half."""
    if delta == 0:
        return set()
    low, high = sorted((start, start + delta))
    return {(Fraction(2 * k + 1, 2) - start) / delta for k in range(low, high)}


def _at(a: Square, dc: int, dr: int, t: Fraction) -> Square:
    return Square(round(a.col + dc * t), round(a.row + dr * t))


def _bresenham(a: Square, b: Square) -> list[tuple[Square, ...]]:
    dc, dr = b.col - a.col, b.row - a.row
    steps = max(abs(dc), abs(dr))
    found: list[tuple[Square, ...]] = []
    for i in range(1, steps):
        col = a.col + Fraction(dc * i, steps)
        row = a.row + Fraction(dr * i, steps)
        found.append(tuple(Square(c, r) for c in _cells(col) for r in _cells(row)))
    return found


def _cells(x: Fraction) -> tuple[int, ...]:
    # A position exactly half-way between two centres touches both squares; otherwise the nearest.
    if x.denominator == 2:
        return (int(x - Fraction(1, 2)), int(x + Fraction(1, 2)))
    return (round(x),)


def sight_blocker(a: Square, b: Square, blocks: Callable[[Square], bool],
                  line: SightLine = SightLine.SUPERCOVER) -> Square | None:
    """The first square that blocks sight from ``a`` to ``b``, or ``None`` when the line is clear.

    A grazing step blocks only when both squares it touches block: sight slips past a corner.
    """
    for step in squares_between(a, b, line):
        if all(blocks(s) for s in step):
            return step[0]
    return None
