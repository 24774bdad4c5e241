"""Squares scenario files: the shipped example, and every kind of mistake named with file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from json_kit import at, obj
from rallypoint.core.campaign import created_event, start
from rallypoint.core.errors import DataFileError
from rallypoint.rulesets.squares import RULESET
from rallypoint.rulesets.squares.data import resolve_data
from rallypoint.rulesets.squares.front.campaign import squares_state

BASE = '''ruleset = "squares"

[scenario]
title = "t"

[grid]
columns = 4
rows = 4

[[terrain]]
kind = "woods"
squares = ["B2"]

[[sides]]
id = "blue"

[[sides]]
id = "red"

[[brigades]]
id = "b1"
side = "blue"

[[brigades]]
id = "r1"
side = "red"

[[leaders]]
id = "brig"
role = "brigadier"
brigade = "b1"
square = "A1"

[[leaders]]
id = "cmdr"
role = "army_commander"
side = "blue"
square = "A1"

[[units]]
id = "u1"
brigade = "b1"
stamina = 5
square = "A2"

[[units]]
id = "r1u"
brigade = "r1"
stamina = 5
square = "D4"
'''


def load(tmp_path: Path, text: str) -> dict[str, object]:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return RULESET.load_scenario(path)


def test_the_shipped_example_starts() -> None:
    (path,) = [p for p in RULESET.example_scenarios() if p.stem == "farm_below_the_ridge"]
    c = start(created_event(RULESET, path, "x", seed="s"))
    units = obj(c.ruleset.state_json(c.state), "units")
    assert units["28th"] == {
        "name": "28th Foot", "side": "allied", "brigade": "kempt", "stamina": 6, "sp": 3,
        "square": "C2", "disordered": True, "shaken": False, "status": "in_play", "attached": []}
    assert at(units, "32nd", "shaken") is True
    assert squares_state(c).friendly_fortification("28th")


def test_the_base_scenario_loads(tmp_path: Path) -> None:
    data = load(tmp_path, BASE)
    assert data["units"][0]["square"] == "A2"  # type: ignore[index]


@pytest.mark.parametrize(("old", "new", "needle", "line_of"), [
    ('square = "A2"', 'square = "E2"', "unit 'u1' is at E2, off the 4x4 grid", 'id = "u1"'),
    ('square = "A2"', 'square = "2A"', "'2A' is not a square", 'square = "2A"'),
    ('brigade = "b1"\nstamina = 5', 'brigade = "b9"\nstamina = 5',
     "unit 'u1' names unknown brigade 'b9'", 'id = "u1"'),
    ('id = "r1u"', 'id = "brig"', "id 'brig' is used twice", 'id = "brig"'),
    ('stamina = 5\nsquare = "A2"', 'stamina = 5\nsp = 6\nsquare = "A2"',
     "starts with sp=6, above its stamina 5", "[[units]]"),
    ('kind = "woods"', 'kind = "swamp"', "terrain kind 'swamp' is unknown", None),
    ('role = "brigadier"\nbrigade = "b1"', 'role = "brigadier"',
     "brigadier 'brig' needs brigade", "[[leaders]]"),
    ('side = "blue"\nsquare = "A1"', 'side = "blue"\nsquare = "A1"\n\n[[leaders]]\nid = "c2"\n'
     'role = "army_commander"\nside = "blue"\nsquare = "B1"',
     "leader 'c2' and 'cmdr' both command 'blue'", 'id = "c2"'),
    ('ruleset = "squares"', 'ruleset = "tcs"', "scenario is for ruleset 'tcs'", None),
])
def test_bad_scenarios_name_file_line_and_fix(tmp_path: Path, old: str, new: str, needle: str,
                                              line_of: str | None) -> None:
    assert old in BASE
    text = BASE.replace(old, new, 1)
    with pytest.raises(DataFileError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert needle in message
    assert str(tmp_path / "s.toml") in message
    if line_of is not None:
        line = next(n for n, s in enumerate(text.splitlines(), start=1) if s.startswith(line_of))
        assert f"s.toml:{line}" in message


def test_overlapping_terrain_and_many_problems_are_counted(tmp_path: Path) -> None:
    text = BASE + '\n[[terrain]]\nkind = "town"\nsquares = ["B2", "Z9"]\n'
    with pytest.raises(DataFileError, match=r"square B2 is both 'woods' and 'town' \(1 more\)"):
        load(tmp_path, text)


def test_parameters_are_checked_against_their_choices() -> None:
    assert resolve_data({"sp_rally_gain": "all"})["parameters"]["sp_rally_gain"]["value"] == "all"
    with pytest.raises(DataFileError, match="parameter 'sp_rally_gain' cannot be True"):
        resolve_data({"sp_rally_gain": True})
    with pytest.raises(DataFileError, match="parameter 'adjacency' cannot be 'six'"):
        resolve_data({"adjacency": "six"})
    with pytest.raises(DataFileError, match="unknown parameter 'morale'"):
        resolve_data({"morale": 1})


def test_data_file_carries_a_source_for_every_rule() -> None:
    data = resolve_data({})
    assert data["thresholds"]["pass_at"] == 6 and data["thresholds"]["break_at"] == 0
    assert all(m["source"].startswith("seed") for m in data["modifiers"].values())
    assert all(p["clause"] and p["note"] for p in data["parameters"].values())
    assert data["modifiers"]["steady_friends"]["cap"] == 3
