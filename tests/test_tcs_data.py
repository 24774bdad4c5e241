"""The TCS data file (``data.toml``) against its sources, its parameters, and scenario files.

Sources: the recovery table is the seed's (../shared/seeds/000_1f347753f65212b7.txt); the
Implementation Table and weighted turns are TCS 4.01 as given in
../shared/reference/tcs-core-facts.md. The expected values are written out here; when the source
files are present they are also parsed and compared cell by cell.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from conftest import tcs_campaign
from rallypoint.core.errors import DataFileError
from rallypoint.rulesets.tcs.data import Column, Parameters, load_data, resolve_data
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.scenario import load_scenario

SHARED = Path(__file__).resolve().parents[2] / "shared"
SEED = SHARED / "seeds" / "000_1f347753f65212b7.txt"
FACTS = SHARED / "reference" / "tcs-core-facts.md"

RECOVERY_ROWS = [  # seed: "Modified die roll / Inf Coy / Hwy Coy / TO Coy / Tank Coy"
    ("1-3", 1, 3, [5, 2, 1, 2]),
    ("4-7", 4, 7, [4, 1, 1, 1]),
    ("8-10", 8, 10, [3, 1, 1, 0]),
    ("11-13", 11, 13, [2, 0, 0, 0]),
    ("14+", 14, None, [1, 0, 0, 0]),
]

PREP_DEFENSE = [1, 12, 18, 24, 30, 36, 42, 49, 56, 63, 71]
LINES = {
    "prep_defense": PREP_DEFENSE,
    "attack": [1, 6, 9, 12, 16, 22, 28, 34, 42, 52, 61],
    "hasty_defense": [1, 3, 6, 9, 12, 17, 22, 26, 32, 40, 45],
    "move": [1, 2, 4, 6, 8, 12, 15, 18, 22, 28, 34],
}
IMPLEMENTATION_ROWS = {  # facts: Implementation Table (4.01); 0 = "–" (cannot implement)
    1: [61, 52, 44, 35, 32, 24, 24, 21, 14, 12, 11],
    2: [63, 56, 52, 44, 35, 32, 25, 22, 21, 14, 12],
    3: [64, 63, 55, 52, 44, 35, 31, 26, 24, 21, 14],
    4: [65, 64, 63, 55, 52, 44, 36, 32, 31, 24, 21],
    5: [66, 65, 64, 62, 56, 52, 45, 42, 34, 32, 24],
    6: [0, 65, 65, 64, 62, 56, 52, 46, 43, 34, 32],
    7: [0, 0, 65, 65, 64, 62, 56, 53, 51, 44, 35],
    8: [0, 0, 0, 65, 65, 63, 62, 56, 54, 52, 46],
}

DEFAULTS: dict[str, str | bool] = {
    "pairing_scope": "company",
    "odd_pile_limit": "floor",
    "morale_rounding": "half_up",
    "morale_average_over": "all",
    "half_dead_pile_rounding": "down",
    "leave_center_scope": "formation",
    "shared_center": "own_formation",
    "no_morale_mix": "per_counter",
    "soviet_fo_pile": True,
    "sheet_command_prep": "worst",
    "complete_battalion": "all_companies",
    "skip_moot_rolls": True,
    "vehicle_sheets_triple": False,
    "allow_redistribution": True,
    "hex_offset": "even_down",
}
"""Every parameter's default (docs/rules/tcs.md lists the same)."""


def raw_data() -> dict[str, Any]:
    """``data.toml`` exactly as shipped, sources included."""
    text = resources.files("rallypoint.rulesets.tcs").joinpath("data.toml").read_text("utf-8")
    return tomllib.loads(text)


# -- tables against their sources ---------------------------------------------------------------


def test_recovery_table_rows_exactly_as_the_seed() -> None:
    table = raw_data()["recovery_table"]
    assert table["columns"] == ["inf", "hwy", "to", "tank"]
    rows = [(r["label"], r["low"], r.get("high"), r["steps"]) for r in table["rows"]]
    assert rows == RECOVERY_ROWS


def test_recovery_table_against_the_seed_text() -> None:
    if not SEED.exists():
        pytest.skip("the seed text is not next to this checkout")
    text = SEED.read_text(encoding="utf-8")
    assert "Modified die roll\tInf Coy\tHwy Coy\tTO Coy\tTank Coy" in text
    found = re.findall(r"^(\d+(?:-\d+|\+))\t(\d)\t(\d)\t(\d)\t(\d)$", text, flags=re.M)
    assert [(label, [int(n) for n in cells]) for label, *cells in found] == [
        (label, steps) for label, _, _, steps in RECOVERY_ROWS]


def test_implementation_table_exactly_as_the_facts() -> None:
    table = raw_data()["implementation"]
    assert table["line"] == "prep_defense"
    assert table["lines"] == LINES
    assert {int(k): v for k, v in table["rows"].items()} == IMPLEMENTATION_ROWS
    assert table["rows"]["1"][5:7] == [24, 24]  # "Row 1 shows 24 in columns 6 and 7 as printed"


def test_implementation_table_against_the_facts_text() -> None:
    if not FACTS.exists():
        pytest.skip("the reference facts are not next to this checkout")
    text = FACTS.read_text(encoding="utf-8")
    names = {"Prep. Defense": "prep_defense", "Attack": "attack",
             "Hasty Defense": "hasty_defense", "Move": "move"}
    for label, key in names.items():
        match = re.search(rf"^\| {re.escape(label)} \|(.*)\|$", text, flags=re.M)
        assert match is not None, label
        assert [int(x) for x in match.group(1).split("|")] == LINES[key]
    for row, cells in IMPLEMENTATION_ROWS.items():
        match = re.search(rf"^\| {row} \|(.*)\|$", text, flags=re.M)
        assert match is not None, row
        printed = [x.strip() for x in match.group(1).split("|")]
        assert [0 if x == "–" else int(x) for x in printed] == cells


def test_implementation_rows_nine_and_up_cannot_implement() -> None:
    table = load_data(resolve_data({})).implementation
    assert sorted(table.rows) == list(range(1, 9))
    assert all(table.needed(9, column) is None for column in range(1, 12))
    assert table.needed(6, 1) is None and table.needed(6, 2) == 65
    assert table.needed(1, 6) == table.needed(1, 7) == 24


def test_weighted_turns_morale_and_fo_numbers() -> None:
    data = raw_data()
    wt = data["weighted_turns"]
    assert (wt["unassigned"], wt["other_sheet_or_night"], wt["fired"],
            wt["vehicle_multiplier"]) == (3, 2, 1, 3)
    morale = data["morale"]
    assert morale["assumed"] == {"at_gun": 3, "artillery": 6}
    assert morale["nationality_modifier"] == {"german": 1, "american": 1, "british": 2,
                                              "commonwealth": 2}
    assert morale["everyone_else"] == 3
    fo = dict(data["fo_recovery_numbers"])
    fo.pop("source")
    assert fo == {"A Frozen Hell": 12, "GD '41": 11, "Black Wednesday": 9}


def test_every_table_has_a_source() -> None:
    data = raw_data()
    tables = [k for k, v in data.items() if isinstance(v, dict) and k != "parameters"]
    assert sorted(tables) == ["fo_recovery_numbers", "implementation", "morale", "nationalities",
                              "recovery_table", "weighted_turns"]
    for key in tables:
        source = data[key].get("source", "")
        assert source.startswith(("seed", "facts")), key


def test_every_parameter_has_clause_choices_note_and_a_default_in_its_choices() -> None:
    params = raw_data()["parameters"]
    assert {k: p["value"] for k, p in params.items()} == DEFAULTS
    assert set(params) == set(Parameters.model_fields)
    for name, p in params.items():
        assert set(p) == {"value", "clause", "choices", "note", "means"}, name
        assert p["clause"].strip() and p["note"].strip(), name
        assert len(p["choices"]) >= 2 and p["value"] in p["choices"], name
        # Every choice says what it reads the clause as (the readings a player is shown).
        assert set(p["means"]) == {str(c).lower() for c in p["choices"]}, name
        assert all(text.strip() for text in p["means"].values()), name


def test_table_readers() -> None:
    data = load_data(resolve_data({}))
    assert data.recovery_table.row_for(0).label == "1-3"
    assert data.recovery_table.row_for(99).label == "14+"
    assert data.recovery_table.steps(Column.TANK, 7) == 1
    assert data.morale.nationality("German") == 1
    assert data.morale.nationality("soviet") == 3


# -- parameters overridden by a scenario ----------------------------------------------------------


def test_scenario_overrides_parameters() -> None:
    resolved = load_data(resolve_data({"odd_pile_limit": "ceil", "skip_moot_rolls": False}))
    assert resolved.params.odd_pile_limit == "ceil"
    assert resolved.params.skip_moot_rolls is False
    assert resolved.params.pairing_scope == "company"
    # The override keeps the clause and note.
    assert resolved.parameters["odd_pile_limit"].note == raw_data()["parameters"][
        "odd_pile_limit"]["note"]


def test_scenario_file_overrides_are_stored_in_the_campaign(tmp_path: Path) -> None:
    source = next(p for p in tcs_campaign("example1").ruleset.example_scenarios()
                  if p.name.startswith("example1"))
    path = tmp_path / "ex1.toml"
    path.write_text(source.read_text(encoding="utf-8")
                    + '\n[parameters]\npairing_scope = "formation"\n', encoding="utf-8")
    c = tcs_campaign(path)
    assert tcs_state(c).rules.params.pairing_scope == "formation"
    stored = c.created.rules_data
    assert stored["parameters"]["pairing_scope"]["value"] == "formation"
    assert stored == resolve_data({"pairing_scope": "formation"})


@pytest.mark.parametrize(("overrides", "where", "what"), [
    ({"bogus": 1}, "[parameters].bogus", "unknown parameter 'bogus'"),
    ({"odd_pile_limit": "round"}, "[parameters].odd_pile_limit", "cannot be 'round'"),
    ({"skip_moot_rolls": "yes"}, "[parameters].skip_moot_rolls", "cannot be 'yes'"),
])
def test_bad_overrides_are_data_file_errors(
    overrides: dict[str, Any], where: str, what: str,
) -> None:
    with pytest.raises(DataFileError, match=re.escape(what)) as info:
        resolve_data(overrides)
    assert info.value.where == where
    assert info.value.fix is not None and "Use one of" in info.value.fix


def test_bad_override_in_a_scenario_file_refuses_the_campaign(tmp_path: Path) -> None:
    source = next(p for p in tcs_campaign("example1").ruleset.example_scenarios()
                  if p.name.startswith("example1"))
    path = tmp_path / "ex1.toml"
    path.write_text(source.read_text(encoding="utf-8") + "\n[parameters]\nbogus = 1\n",
                    encoding="utf-8")
    with pytest.raises(DataFileError, match="unknown parameter"):
        tcs_campaign(path)


@pytest.mark.parametrize(("change", "what"), [
    (lambda d: d["recovery_table"]["rows"][0].update(steps=[5, 2, 1]), "has 3 cells"),
    (lambda d: d["recovery_table"]["rows"].reverse(), "rising order"),
    (lambda d: d["implementation"]["rows"].update({"1": [67] * 11}), "not a d66 value"),
    (lambda d: d["implementation"]["rows"].update({"2": [63] * 10}), "has 10 cells"),
    (lambda d: d["implementation"].update(line="retreat"), "'retreat' is not among"),
    (lambda d: d["parameters"]["hex_offset"].update(value="sideways"), "not one of"),
])
def test_corrupt_data_is_a_data_file_error(change: Any, what: str) -> None:
    data = resolve_data({})
    change(data)
    with pytest.raises(DataFileError, match=re.escape(what)) as info:
        load_data(data)
    assert info.value.where is not None and info.value.where.startswith("data.toml")


# -- scenario file errors ----------------------------------------------------------------------


def example1_text() -> str:
    """The shipped Example #1 scenario."""
    source = next(p for p in tcs_campaign("example1").ruleset.example_scenarios()
                  if p.name.startswith("example1"))
    return source.read_text(encoding="utf-8")


def broken(tmp_path: Path, old: str, new: str) -> Path:
    """Example #1 with ``old`` replaced by ``new`` (exactly once)."""
    text = example1_text()
    assert text.count(old) == 1, old
    path = tmp_path / "broken.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def line_of(path: Path, fragment: str) -> int:
    """1-based line of the first line containing ``fragment``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if fragment in line)


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="no such file"):
        load_scenario(tmp_path / "nowhere.toml")


def test_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = broken(tmp_path, 'title = "Tolvaj', "title = Tolvaj")
    with pytest.raises(DataFileError, match="TOML syntax error") as info:
        load_scenario(path)
    assert info.value.where == f"{path}:{line_of(path, 'title = Tolvaj')}"


def test_invalid_field_names_file_line_and_path(tmp_path: Path) -> None:
    path = broken(tmp_path, "morale = 1\nlost = 2", "morale = 12\nlost = 2")
    with pytest.raises(DataFileError, match="less than or equal to 9") as info:
        load_scenario(path)
    assert info.value.where == (f"{path}:{line_of(path, 'morale = 12')} "
                                "formations[0].companies[0].counters[0].morale")


def test_invalid_enum_field(tmp_path: Path) -> None:
    path = broken(tmp_path, 'type = "hwy"', 'type = "jeep"')
    with pytest.raises(DataFileError) as info:
        load_scenario(path)
    assert info.value.where == (f"{path}:{line_of(path, 'jeep')} "
                                "formations[0].companies[3].counters[0].type")


@pytest.mark.parametrize(("old", "new", "what"), [
    ('side = "finland"', 'side = "sweden"', "formation 'ErP112' names unknown side 'sweden'"),
    ('echelon = "battalion"', 'echelon = "battalion"\nparent = "nope"',
     "formation 'ErP112' names unknown parent 'nope'"),
    ('id = "2/ErP112-dead"', 'id = "1/ErP112-1"', "id '1/ErP112-1' is used twice"),
    ('id = "3/ErP112"', 'id = "2/ErP112"', "id '2/ErP112' is used twice"),
    ("lost = 2 ", "lost = 5 ", "would leave no steps"),
    ('pile = "dead"                      # "All', 'lost = 1\npile = "dead"  # "All',
     "only counters on the map"),
])
def test_scenario_content_errors(tmp_path: Path, old: str, new: str, what: str) -> None:
    path = broken(tmp_path, old, new)
    with pytest.raises(DataFileError, match=re.escape(what)) as info:
        load_scenario(path)
    assert info.value.where is not None and info.value.where.startswith(f"{path}")


def test_scenario_for_another_ruleset(tmp_path: Path) -> None:
    path = broken(tmp_path, 'ruleset = "tcs"', 'ruleset = "platoon"')
    with pytest.raises(DataFileError, match="not 'tcs'"):
        load_scenario(path)


def test_shipped_examples_load_and_say_what_is_assumed() -> None:
    ruleset = tcs_campaign("example1").ruleset
    for path in ruleset.example_scenarios():
        scenario = load_scenario(path)
        assert "ASSUMED" in scenario.scenario.notes
        assert scenario.scenario.source.startswith("seed 000_1f347753f65212b7.txt")
