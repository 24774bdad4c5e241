"""The platoon roster table (``rallypoint scenario import-csv platoon ROSTER.csv``): one row per
man; a crew's tank is named on the row of one of its men (``tank_id``, ``tank_name``). The
platoon, its calendar and parameters come from the rest of the scenario file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.csvtable import Cell, Column, Row, ScenarioTable
from rallypoint.core.problems import Problem

COLUMNS = (
    Column("crew", meaning="the crew he serves in; empty: unassigned (waiting to be placed)"),
    Column("seat", meaning="his seat in it: commander, gunner, loader, driver, assistant_driver"),
    Column("id", required=True, meaning="the man's id"),
    Column("name", required=True, meaning="his name"),
    Column("age", Cell.NUMBER, required=True, meaning="his age (14..70)"),
    Column("trade", required=True, meaning="the seat he is trained for (14.6: a replacement is "
                                           "requested by trade)"),
    Column("skill", Cell.NUMBER, required=True, meaning="0..100"),
    Column("steadiness", Cell.NUMBER, meaning="0..100 (14.2; empty: 0)"),
    Column("fatigue", Cell.NUMBER, meaning="0..100 (14.1; empty: 0, fresh)"),
    Column("trust", Cell.NUMBER, meaning="his trust in the lieutenant, 0..100 (9.9; empty: 50)"),
    Column("lieutenant", Cell.YES_NO, meaning="true for the platoon's lieutenant"),
    Column("years_with_crew", Cell.NUMBER, meaning="years with his crew (14.9; empty: 0)"),
    Column("traits", Cell.PAIRS, meaning="section 8 traits, e.g. nerve=40; eyes=55"),
    Column("tank_id", meaning="his crew's tank id, on one row of the crew"),
    Column("tank_name", meaning="that tank's name"),
)
_TANK = ("tank_id", "tank_name")


def merge(base: dict[str, Any], rows: list[Row]) -> tuple[dict[str, Any], list[Problem]]:
    """The base scenario with its roster replaced by the table's men and their crews' tanks."""
    men, tanks, problems = [], [], []
    crews_with_tanks: set[str] = set()
    for line, row in rows:
        men.append({k: v for k, v in row.items() if k not in _TANK})
        if "tank_id" not in row and "tank_name" not in row:
            continue
        crew = row.get("crew")
        if crew is None or "tank_id" not in row or "tank_name" not in row:
            problems.append(Problem("a tank needs its id, its name and the crew of the man "
                                    "on its row", "Fill tank_id, tank_name and crew.",
                                    line=line, field="column tank_id"))
        elif crew in crews_with_tanks:
            problems.append(Problem(f"crew {crew!r} is given a second tank",
                                    "Name a crew's tank on one row only.", line=line,
                                    field="column tank_id"))
        else:
            crews_with_tanks.add(crew)
            tanks.append({"id": row["tank_id"], "name": row["tank_name"], "crew": crew})
    return {**base, "men": men, "tanks": tanks}, problems


def rows(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A roster's men as rows, each crew's tank on the row of its first man."""
    tanks = {tank["crew"]: tank for tank in scenario.get("tanks") or ()}
    found = []
    for man in scenario.get("men") or ():
        row = dict(man)
        tank = tanks.pop(str(man.get("crew")), None) if man.get("crew") is not None else None
        if tank is not None:
            row |= {"tank_id": tank["id"], "tank_name": tank["name"]}
        found.append(row)
    return found


TABLE = ScenarioTable("man", COLUMNS, merge, rows)
"""The roster table of a platoon scenario."""
