"""The squares units table (``rallypoint scenario import-csv squares UNITS.csv``): one row per
unit; sides, brigades, leaders and terrain come from the rest of the scenario file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.csvtable import Cell, Column, Row, ScenarioTable
from rallypoint.core.problems import Problem

COLUMNS = (
    Column("id", required=True, meaning="the unit's id (units and leaders share ids)"),
    Column("name", meaning="its name"),
    Column("brigade", required=True, meaning="its brigade's id (and so its side and brigadier)"),
    Column("stamina", Cell.NUMBER, required=True, meaning="its starting stamina in SP"),
    Column("sp", Cell.NUMBER, meaning="SP left when the campaign starts; empty: its stamina"),
    Column("square", required=True, meaning="where it stands, column letter then row, e.g. C4"),
    Column("disordered", Cell.YES_NO, meaning="true if it starts disordered"),
)


def merge(base: dict[str, Any], rows: list[Row]) -> tuple[dict[str, Any], list[Problem]]:
    """The base scenario with its units replaced by the table's, in the table's order."""
    return {**base, "units": [row for _, row in rows]}, []


def rows(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A scenario's units as rows."""
    return [dict(unit) for unit in scenario.get("units") or ()]


TABLE = ScenarioTable("unit", COLUMNS, merge, rows)
"""The units table of a squares scenario."""
