"""``rallypoint scenario import-csv``: a spreadsheet's table (TCS counters, squares units, a
platoon roster) into a scenario. Every shipped example round-trips through its CSV; every bad
cell is one problem with its row and column; the TOML writer gives back what it was given."""

from __future__ import annotations

import csv
import io
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.csvtable import table_of
from rallypoint.core.registry import get_ruleset, registered
from rallypoint.core.tomlwrite import dumps
from rallypoint.session.scenarios import import_table, scenario_from, table_csv
from test_cli_rough_edges import ok, run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
SHIPPED = sorted(p for name in ("tcs", "squares", "platoon")
                 for p in get_ruleset(name).example_scenarios())


def ruleset_of(path: Path) -> str:
    return str(tomllib.loads(path.read_text(encoding="utf-8"))["ruleset"])


def without_table(data: dict[str, Any]) -> dict[str, Any]:
    """The scenario with its table taken out: what the CSV must bring back."""
    rest = {k: v for k, v in data.items() if k not in ("units", "men", "tanks")}
    if "formations" in rest:
        rest["formations"] = [{k: v for k, v in f.items() if k != "companies"}
                              for f in rest["formations"]]
    return rest


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_example_round_trips_through_its_csv(path: Path) -> None:
    ruleset, data = ruleset_of(path), tomllib.loads(path.read_text(encoding="utf-8"))
    shipped_csv = (EXAMPLES / f"{path.stem}.csv").read_text(encoding="utf-8")
    assert shipped_csv == table_csv(ruleset, path.read_text(encoding="utf-8"))
    made = import_table(ruleset, shipped_csv, base=dumps(without_table(data)),
                        table_file=f"{path.stem}.csv", base_file="base.toml")
    assert made.problems == ()
    assert made.text.splitlines()[0].startswith("# Made by `rallypoint scenario import-csv`: ")
    # The oracle: the campaign the original would start from, and the one the import gives.
    assert scenario_from(tomllib.loads(made.text), ruleset=ruleset) == \
        scenario_from(data, ruleset=ruleset)


def test_the_example_tables_are_what_docs_scenarios_md_says() -> None:
    """Hand-written expectations of one row of each (not the exporter's own output)."""
    def first_row(name: str) -> dict[str, str]:
        text = (EXAMPLES / f"{name}.csv").read_text(encoding="utf-8")
        return {k: v for k, v in next(csv.DictReader(io.StringIO(text))).items() if v}

    assert first_row("farm_below_the_ridge") == {
        "id": "28th", "name": "28th Foot", "brigade": "kempt", "stamina": "6", "sp": "3",
        "square": "C2", "disordered": "true"}
    assert first_row("example1_tolvajarvi") == {
        "formation": "ErP112", "company": "1/ErP112", "company_name": "1/ErP 112th",
        "id": "1/ErP112-1", "name": "1st Plt, 1/ErP 112th", "type": "inf", "steps": "5",
        "morale": "1", "lost": "2", "hex": "23.15"}
    assert set(first_row("italy_1944")) >= {"crew", "seat", "id", "name", "age", "trade",
                                             "skill", "lieutenant", "tank_id", "tank_name"}


@pytest.mark.parametrize("path", sorted(p for r in registered().values()
                                        for p in r.example_scenarios()), ids=lambda p: p.stem)
def test_the_toml_writer_gives_back_every_shipped_scenario(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert tomllib.loads(dumps(data)) == data


def test_the_toml_writer_quotes_what_needs_quoting() -> None:
    data = {"ruleset": "x", "parameters": {"fatigue.fight": 25, "a b": True},
            "notes": {"text": 'say "hi"\n\ttab \\ back \x7f del, «ünïcode»'},
            "men": [{"id": "m", "traits": {"nerve": 40}, "n": [1, 2]}],
            "formations": [{"id": "f", "modifiers": [{"name": "x", "value": 1}],
                            "companies": [{"id": "c", "counters": [
                                {"id": "k", "type": "inf", "steps": 4}]}]}]}
    text = dumps(data)
    assert tomllib.loads(text) == data
    assert '"fatigue.fight" = 25' in text and "[[formations.companies.counters]]" in text
    assert 'modifiers = [{ name = "x", value = 1 }]' in text


SQUARES_CSV = """id,name,brigade,stamina,sp,square,disordered
u1,One,b1,6,,C3,
u2,Two,b1,x,9,C4,maybe
,Three,r1,5,,E5,yes
u4,Four,r1,5,,E6,yes,extra
"""


def test_every_bad_cell_is_one_problem_with_its_row_and_column() -> None:
    made = import_table("squares", SQUARES_CSV, table_file="units.csv")
    assert made.text == ""
    assert [(p.file, p.line, p.field, p.what) for p in made.problems] == [
        ("units.csv", 3, "column stamina", "'x' is not a whole number"),
        ("units.csv", 3, "column disordered", "'maybe' is not yes or no"),
        ("units.csv", 4, "column id", "id is empty"),
        ("units.csv", 5, "", "8 cells, but the header has 7 columns"),
    ]
    assert made.problems[0].message == (
        "'x' is not a whole number (at units.csv:3 column stamina). Write a whole number like 4 "
        "(its starting stamina in SP).")


def test_a_bad_header_names_each_column() -> None:
    made = import_table("squares", "id,nmae,brigade,square,square\nu1,x,b1,C3,C3\n",
                        table_file="u.csv")
    assert [(p.line, p.what) for p in made.problems] == [
        (1, "unknown column 'nmae'"), (1, "column 'square' is given twice"),
        (1, "column 'stamina' is missing")]
    assert made.problems[0].fix.startswith("Use these columns: id, name, brigade, stamina, sp,")


def test_the_made_scenario_s_problems_point_at_the_rows() -> None:
    table = "id,brigade,stamina,sp,square\nu1,b1,6,,C3\nu2,b1,0,,C4\nu3,r9,5,,E5\n"
    made = import_table("squares", table, table_file="units.csv")
    assert [(p.file, p.line, p.field, p.what) for p in made.problems] == [
        ("units.csv", 3, "column stamina", "Input should be greater than or equal to 1"),
        ("units.csv", 4, "", "unit 'u3' names unknown brigade 'r9'"),
    ]


def test_rows_that_cannot_be_placed_are_named() -> None:
    tcs = import_table("tcs", "formation,company,id,type,steps\n9bn,c,k,inf,4\n",
                       table_file="c.csv")
    assert [(p.line, p.field, p.what) for p in tcs.problems] == [
        (2, "column formation", "formation '9bn' is not in the base file")]
    assert tcs.problems[0].fix.startswith("Use one of: 1bn;")
    roster = ("crew,seat,id,name,age,trade,skill,tank_id,tank_name\n"
              "1,commander,a,A,20,commander,50,t1,Able\n1,gunner,b,B,20,gunner,50,t2,Baker\n"
              ",,c,C,20,driver,50,t3,\n")
    platoon = import_table("platoon", roster, table_file="r.csv")
    assert [(p.line, p.what) for p in platoon.problems] == [
        (3, "crew '1' is given a second tank"),
        (4, "a tank needs its id, its name and the crew of the man on its row")]


def test_import_csv_on_the_command_line(tmp_path: Path) -> None:
    db, out, table = tmp_path / "db.sqlite3", tmp_path / "mine.toml", tmp_path / "units.csv"
    table.write_text(SQUARES_CSV, encoding="utf-8")
    done = run(db, "scenario", "import-csv", "squares", str(table), "-o", str(out))
    assert (done.returncode, done.stdout, out.exists()) == (2, b"", False)
    lines = done.stderr.decode().splitlines()
    assert lines[0] == (f"error (bad-data-file): 'x' is not a whole number (at {table}:3 column "
                        "stamina). Write a whole number like 4 (its starting stamina in SP).")
    assert lines[-1] == f"4 problems in {table}; nothing was written."

    # The farm's own units into the farm's other parts, then a campaign.
    farm = next(p for p in SHIPPED if p.stem.startswith("farm"))
    # Wide enough for the temporary path (longer under a pytest-xdist worker): a path wider
    # than the terminal is folded mid-word, and this checks the words, not the folding.
    said = ok(db, "scenario", "import-csv", "squares", str(EXAMPLES / f"{farm.stem}.csv"),
              "--into", str(farm), "-o", str(out), env={"COLUMNS": "200"})
    assert " ".join(said.split()) == (
        f"wrote {out} (and squares-scenario.schema.json beside it); `rallypoint scenario check` "
        "finds no problem in it.")
    assert out.read_text(encoding="utf-8").startswith(
        "#:schema ./squares-scenario.schema.json\n# Made by `rallypoint scenario import-csv`: 11 "
        "unit(s) from ")
    assert (tmp_path / "squares-scenario.schema.json").exists()
    assert ok(db, "new", str(out)).startswith("created campaign mine (squares, id ")
    assert run(db, "scenario", "import-csv", "squares", str(table), "-o", str(out)
               ).returncode == 2  # never over a file that is there


def test_docs_scenarios_md_lists_every_column() -> None:
    text = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    for name in ("tcs", "squares", "platoon"):
        table = table_of(get_ruleset(name))
        assert table is not None
        for column in table.columns:
            assert f"| `{column.name}` | {column.meaning}" in text, (name, column.name)
