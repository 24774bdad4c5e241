"""The TCS counters table (``rallypoint scenario import-csv tcs COUNTERS.csv``): one row per
counter entry (``count`` makes several), naming its formation and company. Sides, formations and
the turn track come from the rest of the scenario file; a company the base file already has keeps
its own fields (its modifiers among them), the ``company_*`` cells fill or change them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.csvtable import Cell, Column, Row, ScenarioTable
from rallypoint.core.problems import Problem

COLUMNS = (
    Column("formation", required=True, meaning="the id of its formation (in the base file)"),
    Column("company", required=True, meaning="the id of its company (rolls once on the "
                                             "recovery table)"),
    Column("company_name", meaning="the company's name"),
    Column("company_kind", meaning="company, battalion_troops or independent_platoon"),
    Column("company_column", meaning="inf, hwy, to or tank, when its counters' types mix"),
    Column("id", required=True, meaning="the counter's id (with count N: id-1 .. id-N)"),
    Column("name", meaning="its name"),
    Column("type", required=True, meaning="its recovery column: inf, hwy, to or tank"),
    Column("kind", meaning="free text; at_gun, artillery and fo are special"),
    Column("steps", Cell.NUMBER, required=True, meaning="full-strength steps"),
    Column("morale", Cell.NUMBER, meaning="printed morale; empty for a no-morale unit"),
    Column("target", meaning="P (area) or V (point); empty: P"),
    Column("count", Cell.NUMBER, meaning="how many identical counters the row makes; empty: 1"),
    Column("lost", Cell.NUMBER, meaning="steps lost at the start (map counters only)"),
    Column("pile", meaning="map (empty), dead, very_dead or fo"),
    Column("hex", meaning="CC.RR, e.g. 23.15 (format the column as text: a spreadsheet "
                          "writes 17.20 as 17.2)"),
)
_COMPANY = {"company_name": "name", "company_kind": "kind", "company_column": "column"}
_PLACE = ("formation", "company", *_COMPANY)


def merge(base: dict[str, Any], rows: list[Row]) -> tuple[dict[str, Any], list[Problem]]:
    """The base scenario with every formation's companies made from the table's rows."""
    formations = [dict(f) for f in base.get("formations") or () if isinstance(f, Mapping)]
    known = {str(f.get("id")): f for f in formations}
    made: dict[str, dict[str, dict[str, Any]]] = {}
    problems = []
    for line, row in rows:
        formation = known.get(row["formation"])
        if formation is None:
            problems.append(Problem(
                f"formation {row['formation']!r} is not in the base file",
                f"Use one of: {', '.join(known) or 'none'}; or add [[formations]] with its id "
                "and side to the base file (--into).", line=line, field="column formation"))
            continue
        companies = made.setdefault(row["formation"], {})
        company = companies.get(row["company"]) or _company(formation, row["company"])
        company |= {field: row[cell] for cell, field in _COMPANY.items() if cell in row}
        company.setdefault("counters", []).append(
            {k: v for k, v in row.items() if k not in _PLACE})
        companies[row["company"]] = company
    for formation in formations:
        formation.pop("companies", None)
        if formation["id"] in made:
            formation["companies"] = list(made[formation["id"]].values())
    return {**base, "formations": formations}, problems


def _company(formation: Mapping[str, Any], company_id: str) -> dict[str, Any]:
    """A company as the base file has it (without its counters), else a new one."""
    for company in formation.get("companies") or ():
        if isinstance(company, Mapping) and company.get("id") == company_id:
            return {k: v for k, v in company.items() if k != "counters"}
    return {"id": company_id}


def rows(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A scenario's counters as rows, each naming its formation and company."""
    found = []
    for formation in scenario.get("formations") or ():
        for company in formation.get("companies") or ():
            place = {"formation": formation["id"], "company": company["id"]}
            place |= {cell: company[field] for cell, field in _COMPANY.items() if field in company}
            found += [{**place, **counter} for counter in company.get("counters") or ()]
    return found


TABLE = ScenarioTable("counter", COLUMNS, merge, rows)
"""The counters table of a TCS scenario."""
