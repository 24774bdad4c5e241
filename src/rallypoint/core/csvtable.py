"""A scenario's big table as a spreadsheet: counters (TCS), units (squares), a roster (platoon).

A ruleset describes its table as a :class:`ScenarioTable`: its columns, how rows go into a
scenario (``merge``) and how a scenario's entries come out as rows (``rows``). This module reads
and writes the CSV a spreadsheet exports, judging every cell against its column and reporting
each bad one with its row and column (python-chess's ``Status``: all of them).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from rallypoint.core.erased import rules_of
from rallypoint.core.problems import Problem


class Cell(StrEnum):
    """What a column's cells hold."""

    TEXT = "text"
    NUMBER = "number"
    """A whole number."""
    YES_NO = "yes/no"
    """``true``/``false`` (also ``yes``/``no``, ``1``/``0``; any case)."""
    PAIRS = "pairs"
    """``name=number`` pairs separated by ``;`` (``nerve=40; eyes=55``)."""


@dataclass(frozen=True)
class Column:
    """One column of a table.

    Attributes:
        name: Its header (the scenario field it fills, where there is one).
        cell: What its cells hold.
        required: Whether every row must fill it.
        meaning: One line for docs/scenarios.md and error messages.
    """

    name: str
    cell: Cell = Cell.TEXT
    required: bool = False
    meaning: str = ""


Row = tuple[int, dict[str, Any]]
"""A row's line in the CSV file (the header is line 1) and its filled cells, typed."""


@dataclass(frozen=True)
class ScenarioTable:
    """A ruleset's table.

    Attributes:
        what: What a row is (``"counter"``), for messages.
        columns: Every column, in the order a written table has them.
        merge: ``merge(base, rows) -> (scenario, problems)``: the base scenario's data with the
            rows put in (its own entries of the table replaced), and each row that cannot be
            placed (a formation the base lacks) as a problem whose ``line`` is the row's.
        rows: ``rows(scenario) -> rows``: a scenario's entries as rows (cells by column name).
    """

    what: str
    columns: tuple[Column, ...]
    merge: Callable[[dict[str, Any], list[Row]], tuple[dict[str, Any], list[Problem]]]
    rows: Callable[[Mapping[str, Any]], list[dict[str, Any]]]

    def column(self, name: str) -> Column | None:
        """The column with this header, if any."""
        return next((c for c in self.columns if c.name == name), None)


def read_rows(table: ScenarioTable, text: str, file: str = "") -> tuple[list[Row], list[Problem]]:
    """The typed rows of a CSV table, and every problem of its header and cells.

    Blank rows are skipped; an empty cell is a field left out (the scenario's default).
    """
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff")))  # a spreadsheet's BOM
    header = [h.strip().casefold() for h in next(reader, [])]
    problems = _header_problems(table, header, file)
    if problems:
        return [], problems
    rows: list[Row] = []
    for line, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        row, bad = _row(table, header, cells, line, file)
        rows.append((line, row))
        problems += bad
    if not rows and not problems:
        problems.append(Problem(f"the table has no {table.what}s", "Add a row under the header.",
                                file=file, line=1))
    return rows, problems


def _header_problems(table: ScenarioTable, header: list[str], file: str) -> list[Problem]:
    """Unknown, repeated and missing required columns (each its own problem)."""
    known = ", ".join(c.name for c in table.columns)
    problems = [Problem(f"unknown column {name!r}", f"Use these columns: {known}.", file=file,
                        line=1, field=f"column {n}")
                for n, name in enumerate(header, start=1) if table.column(name) is None]
    problems += [Problem(f"column {name!r} is given twice", "Keep one of them.", file=file,
                         line=1) for name in sorted({h for h in header if header.count(h) > 1})]
    problems += [Problem(f"column {c.name!r} is missing", f"Add it: {c.meaning}.", file=file,
                         line=1) for c in table.columns if c.required and c.name not in header]
    return problems


def _row(table: ScenarioTable, header: list[str], cells: list[str], line: int,
         file: str) -> tuple[dict[str, Any], list[Problem]]:
    """One row's typed cells and the problems of its cells."""
    row: dict[str, Any] = {}
    problems = []
    given = {name for name, raw in zip(header, cells, strict=False) if raw.strip()}
    if len(cells) > len(header):
        problems.append(Problem(f"{len(cells)} cells, but the header has {len(header)} columns",
                                "Remove the extra cells, or name their column.", file=file,
                                line=line))
    for name, raw in zip(header, cells, strict=False):
        column = table.column(name)
        text = raw.strip()
        if column is None or not text:
            continue
        try:
            row[name] = _typed(column.cell, text)
        except ValueError as exc:
            problems.append(Problem(str(exc), f"Write {_looks(column.cell)} ({column.meaning}).",
                                    file=file, line=line, field=f"column {name}"))
    for column in table.columns:
        if column.required and column.name in header and column.name not in given:
            problems.append(Problem(f"{column.name} is empty", f"Fill it: {column.meaning}.",
                                    file=file, line=line, field=f"column {column.name}"))
    return row, problems


def _typed(cell: Cell, text: str) -> Any:
    """A cell's value.

    Raises:
        ValueError: The text is not of the column's kind (saying what it is).
    """
    if cell is Cell.NUMBER:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None
    if cell is Cell.YES_NO:
        word = text.casefold()
        if word in ("true", "yes", "1"):
            return True
        if word in ("false", "no", "0"):
            return False
        raise ValueError(f"{text!r} is not yes or no")
    if cell is Cell.PAIRS:
        pairs: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in text.split(";"))):
            name, _, number = part.partition("=")
            try:
                pairs[name.strip()] = int(number)
            except ValueError:
                raise ValueError(f"{part!r} is not name=number") from None
        return pairs
    return text


def _looks(cell: Cell) -> str:
    return {Cell.TEXT: "text", Cell.NUMBER: "a whole number like 4",
            Cell.YES_NO: "true or false", Cell.PAIRS: "name=number pairs like nerve=40; eyes=55",
            }[cell]


def write_rows(table: ScenarioTable, rows: Sequence[Mapping[str, Any]]) -> str:
    """Rows as CSV text, every column in the table's order (empty where a row leaves it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.name for c in table.columns])
    for row in rows:
        writer.writerow([_text(row.get(c.name)) for c in table.columns])
    return out.getvalue()


def _text(value: Any) -> str:
    """A cell's text (the inverse of :func:`_typed`)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def table_of(ruleset: Any) -> ScenarioTable | None:
    """A ruleset's table (its optional ``scenario_table``), if it has one."""
    table = getattr(rules_of(ruleset), "scenario_table", None)
    return table if isinstance(table, ScenarioTable) else None


def on_rows(problems: Sequence[Problem], data: Mapping[str, Any], rows: Sequence[Row],
            table_file: str) -> list[Problem]:
    """The problems of a scenario made from a table, each moved to the row it came from where
    that can be told: the row whose ``id`` is the id the problem quotes, or the id of the entry
    its field lies in (``units[1].stamina`` is the row of ``units[1]``'s id), at the column of
    that field. A problem of the rest of the scenario keeps its place in the made file."""
    line_of_id = {str(row["id"]): line for line, row in rows if "id" in row}
    moved = []
    for problem in problems:
        ident, column = _entry(data, problem.field)
        quoted = [q for q in re.findall(r"'([^']+)'", problem.what) if q in line_of_id]
        if ident is None and quoted:
            ident = quoted[0]
        if ident is not None and ident in line_of_id:
            problem = replace(problem, file=table_file, line=line_of_id[ident],
                              field=f"column {column}" if column else "")
        moved.append(problem)
    return moved


def _entry(data: Mapping[str, Any], field: str) -> tuple[str | None, str | None]:
    """The id of the innermost list entry ``field`` lies in, and the key below it."""
    parts = [int(i) if i else name for name, i in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", field)]
    ident: str | None = None
    column: str | None = None
    value: Any = data
    for n, part in enumerate(parts):
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None, None
        if isinstance(part, int) and isinstance(value, Mapping) and "id" in value:
            ident = str(value["id"])
            column = str(parts[n + 1]) if n + 1 < len(parts) else None
    return ident, column
