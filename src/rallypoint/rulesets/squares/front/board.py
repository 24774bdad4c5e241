"""The squares grid laid out to fit the terminal: each square's contents as short lines, and
column widths chosen so the whole board fits the console's width (80 columns when piped).

A square holds terrain, units (``F:55e 4/6 D``) and leaders (``*A:kempt+``). Every entry is a
few words that must not be cut (an id is typed back in commands); an entry that does not fit its
column on one line puts each word on its own line, and a column narrower than a word is the last
resort: the word is then cut with ``…`` and the key under the board gives it whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

    from rallypoint.rulesets.squares.state import SquaresState

SIDE_STYLES = ("bold blue", "bold red", "bold green", "bold magenta", "bold cyan")
"""Colour for each side in scenario order; the side's mark (``A:``) tells them apart without."""
NARROWEST = 4
"""The narrowest column the fitting squeezes to (a cut word keeps 3 characters and ``…``)."""


@dataclass(frozen=True)
class Entry:
    """One thing in a square: its words (kept whole where the width allows) and its style."""

    words: tuple[str, ...]
    style: str

    @property
    def one_line(self) -> str:
        return " ".join(self.words)


@dataclass
class Layout:
    """The board's cells (row-major, top row first) and the words cut short to fit."""

    rows: list[tuple[str, list[list[Entry]]]]
    letters: list[str]
    cut: dict[str, str] = field(default_factory=dict)
    """Cut word → the whole word, for the key under the board."""


def board_layout(state: SquaresState) -> Layout:
    """Every square's entries: terrain, then units in play, then leaders, each with its side's
    mark so sides are told apart without colour (piped, ``NO_COLOR``, a colour-blind player)."""
    from rallypoint.rulesets.squares.grid import Square, column_letter

    board, grid = state.board, state.board.scenario.grid
    styles = {s.id: SIDE_STYLES[n % len(SIDE_STYLES)] for n, s in enumerate(board.scenario.sides)}
    marks = board.side_marks
    rows: list[tuple[str, list[list[Entry]]]] = []
    for row in range(grid.rows, 0, -1):
        cells: list[list[Entry]] = []
        for col in range(1, grid.columns + 1):
            sq = str(Square(col, row))
            cell: list[Entry] = []
            terrain = board.terrain.get(Square(col, row))
            if terrain is not None:
                cell.append(Entry(tuple(terrain.kind.split("_")), "dim italic"))
            for u in state.units.values():
                if u.square == sq and u.in_play:
                    flags = ("D" if u.disordered else "") + ("S" if state.shaken(u.id) else "") \
                        + ("!" if u.id in state.under_fire else "")
                    side = board.side_of(u.id)
                    strength = f"{u.sp}/{state.stamina(u.id)}" + (f" {flags}" if flags else "")
                    cell.append(Entry((f"{marks[side]}:{u.id}", strength), styles[side]))
            for ld in state.leaders.values():
                if ld.square == sq:
                    side = board.side_of(ld.id)
                    label = f"*{marks[side]}:{ld.id}{'+' if ld.attached else ''}"
                    cell.append(Entry((label,), "italic " + styles[side]))
            cells.append(cell)
        rows.append((str(row), cells))
    return Layout(rows, [column_letter(c) for c in range(1, grid.columns + 1)])


def column_widths(layout: Layout, width: int) -> tuple[list[int], int]:
    """Each column's width and the cell padding, for a board at most ``width`` wide.

    Roomy first (every entry on one line, a space either side); else no padding, the narrowest
    columns that keep every word whole, widened to one-line entries where the room allows,
    fewest extra characters first; else the widest columns squeezed until the board fits.
    """
    columns = len(layout.letters)
    label = max(len(r) for r, _ in layout.rows)
    room = width - (columns + 2) - label    # a border left of every column and one at the end
    entries = [[e for _, cells in layout.rows for e in cells[c]] for c in range(columns)]
    roomy = [max([len(layout.letters[c]), *(len(e.one_line) for e in entries[c])])
             for c in range(columns)]
    if sum(roomy) + 2 * (columns + 1) <= room:
        return roomy, 1
    widths = [max([len(layout.letters[c]), *(len(w) for e in entries[c] for w in e.words)])
              for c in range(columns)]
    while sum(widths) > room and max(widths) > NARROWEST:
        widths[widths.index(max(widths))] -= 1
    for c in sorted(range(columns), key=lambda c: roomy[c] - widths[c]):
        if widths[c] < roomy[c] <= widths[c] + room - sum(widths):
            widths[c] = roomy[c]
    return widths, 0


def cell_lines(entries: Sequence[Entry], width: int, cut: dict[str, str]) -> list[tuple[str, str]]:
    """The lines of one square at ``width``: an entry on one line if it fits, else a word a
    line; a word wider than the column is cut with ``…`` and noted in ``cut``."""
    lines: list[tuple[str, str]] = []
    for e in entries:
        if len(e.one_line) <= width:
            lines.append((e.one_line, e.style))
            continue
        for w in e.words:
            if len(w) > width:
                short = w[:width - 1] + "…"
                cut[short] = w
                w = short
            lines.append((w, e.style))
    return lines


def board_table(layout: Layout, width: int) -> Table:
    """The board as a Rich table no wider than ``width``; ``layout.cut`` collects cut words."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    widths, pad = column_widths(layout, width)
    label = max(len(r) for r, _ in layout.rows)
    table = Table(box=box.SQUARE, show_lines=True, padding=(0, pad))
    table.add_column("", width=label, no_wrap=True)
    for letter, w in zip(layout.letters, widths, strict=True):
        table.add_column(letter, width=w, no_wrap=True)
    for name, cells in layout.rows:
        texts = []
        for cell, w in zip(cells, widths, strict=True):
            text = Text()
            for n, (line, style) in enumerate(cell_lines(cell, w, layout.cut)):
                text.append(("\n" if n else "") + line, style=style)
            texts.append(text)
        table.add_row(name, *texts)
    return table
