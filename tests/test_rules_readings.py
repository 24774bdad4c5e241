"""``rallypoint rules readings``: every reading a ruleset takes, for a player, at 80 columns.

The oracle for the lists is the data files themselves (each switch must be a parameter there)
and docs/rules/<ruleset>.md's "Readings" section, read as text.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.core.readings import Reading, readings_of

ROOT = Path(__file__).resolve().parents[1]
LOGS = Path(__file__).parent / "golden" / "logs"
runner = CliRunner()


def _data(ruleset: str) -> dict[str, object]:
    text = (ROOT / "src" / "rallypoint" / "rulesets" / ruleset / "data.toml").read_text("utf-8")
    return tomllib.loads(text)


def _is_parameter(ruleset: str, switch: str) -> bool:
    data = _data(ruleset)
    if ruleset in ("squares", "tcs"):
        return switch in data["parameters"]  # type: ignore[operator]
    section, _, key = switch.partition(".")
    return key in data.get(section, {})  # type: ignore[operator]


def _readings_section(ruleset: str) -> str:
    text = (ROOT / "docs" / "rules" / f"{ruleset}.md").read_text("utf-8")
    start = text.index("\n## Readings\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


@pytest.mark.parametrize("ruleset", ["platoon", "squares", "tcs"])
def test_every_switch_is_a_parameter_and_listed_once_in_the_docs(ruleset: str) -> None:
    found = readings_of(ruleset)
    assert found, ruleset
    section = _readings_section(ruleset)
    for reading in found:
        assert _is_parameter(ruleset, reading.switch), reading.switch
        assert section.count(f"`{reading.switch}`") == 1, (ruleset, reading.switch)
        assert reading.clause and reading.reading and reading.why and reading.default
    # ...and the docs' table lists no switch the command does not show.
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    listed = {word for row in rows for word in re.findall(r"`([a-z_.]+)`", row)
              if _is_parameter(ruleset, word)}
    assert listed == {r.switch for r in found}


def test_the_command_prints_every_ruleset_at_80_columns() -> None:
    result = runner.invoke(app, ["rules", "readings"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    for name in ("platoon", "squares", "tcs"):
        assert any(line.startswith(f"{name}: ") for line in lines), name
    for reading in readings_of("platoon"):
        assert f"switch: {reading.switch} = " in result.output


def test_one_ruleset_and_json() -> None:
    result = runner.invoke(app, ["rules", "readings", "squares", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [d["ruleset"] for d in data] == ["squares"]
    got = [Reading.model_validate(r) for r in data[0]["readings"]]
    assert got == list(readings_of("squares"))
    adjacency = next(r for r in got if r.switch == "adjacency")
    assert adjacency.default == '"eight" (other choices: "four")'
    assert adjacency.value is None


def test_an_unknown_ruleset_is_one_line_exit_2() -> None:
    result = runner.invoke(app, ["rules", "readings", "chess"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "no ruleset named 'chess'" in result.stderr and "platoon" in result.stderr


def test_an_old_campaign_shows_the_readings_it_was_created_with(tmp_path: Path) -> None:
    """The golden platoon log predates every switch added since: each reads its old setting."""
    db = str(tmp_path / "old.db")
    assert runner.invoke(app, ["--db", db, "import", str(LOGS / "platoon.json")]).exit_code == 0
    result = runner.invoke(app, ["--db", db, "rules", "readings", "--json", "--campaign",
                                 "golden-platoon"])
    assert result.exit_code == 0, result.output
    values = {r["switch"]: r["value"] for r in json.loads(result.output)[0]["readings"]}
    old = "0 (created before this switch: the reading it was played with)"
    assert values["morale.bound_each_step"] == old
    assert values["fatigue.rest_rounds_up"] == old
    assert values["fatigue.night_per_man"] == old.replace("0", "1", 1)
    assert values["fit.min_crew"] == "2"
    wrong = runner.invoke(app, ["--db", db, "rules", "readings", "squares", "--campaign",
                                "golden-platoon"])
    assert wrong.exit_code == 2 and "is a platoon campaign" in wrong.stderr


def test_squares_old_campaign_keeps_bresenham(tmp_path: Path) -> None:
    db = str(tmp_path / "old.db")
    assert runner.invoke(app, ["--db", db, "import", str(LOGS / "squares.json")]).exit_code == 0
    name = json.loads((LOGS / "squares.state.json").read_text("utf-8"))["name"]
    result = runner.invoke(app, ["--db", db, "rules", "readings", "--json", "-c", name])
    values = {r["switch"]: r["value"] for r in json.loads(result.output)[0]["readings"]}
    assert values["line_of_sight"].startswith('"bresenham" (created before')
    assert values["adjacency"] == '"eight"'


def test_the_golden_platoon_campaign_plays_by_the_readings_it_shows(tmp_path: Path) -> None:
    """What the command shows for an old campaign is what its rules do: each switch's shown
    value against ``PlatoonData.reading`` on the golden log's stored data."""
    from rallypoint.rulesets.platoon.data import SWITCHED_READINGS, load_data

    export = json.loads((LOGS / "platoon.json").read_text("utf-8"))
    stored = export["events"][0]["payload"]["rules_data"]
    rules = load_data(stored)
    for reading in readings_of("platoon", stored):
        section, _, key = reading.switch.partition(".")
        assert reading.value is not None
        shown = int(reading.value.split()[0])
        if section == "fit":
            assert shown == rules.n(section, key)
            continue
        before = (section, key) in SWITCHED_READINGS
        assert bool(shown) is rules.reading(section, key, before=before), reading.switch
