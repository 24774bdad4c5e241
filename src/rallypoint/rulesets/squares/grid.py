"""Squares of the grid (``C4``: column C, row 4), adjacency, and line of sight.

Columns are letters from ``A`` (at most 26), rows numbers from 1, as on a chessboard. Adjacency is
the ``adjacency`` parameter: ``"eight"`` (the eight surrounding squares) or ``"four"`` (the squares
sharing a side). Line of sight is a straight line from the centre of one square to the centre of
the other; see :func:`squares_between`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

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


def squares_between(a: Square, b: Square) -> list[tuple[Square, ...]]:
    """The squares a sight line from ``a`` to ``b`` crosses, ends excluded.

    One step per column (or row) along the longer axis, as Bresenham's line does; at each step the
    line's exact position on the other axis picks the square. Where the line runs exactly between
    two squares the step holds both (the line grazes their shared edge), so the result is the same
    drawn from either end.

    Returns:
        One tuple per step, of one square or (on a grazing step) two.
    """
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


def sight_blocker(a: Square, b: Square, blocks: Callable[[Square], bool]) -> Square | None:
    """The first square that blocks sight from ``a`` to ``b``, or ``None`` when the line is clear.

    A grazing step blocks only when both squares it touches block: sight slips past a corner.
    """
    for step in squares_between(a, b):
        if all(blocks(s) for s in step):
            return step[0]
    return None
