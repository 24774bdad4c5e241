"""At the table without the docs open: writes name their campaign, imports leave the default
alone, shipped scenarios by name, shell completion, and no Python reprs in what a player reads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app

runner = CliRunner()
RALLYPOINT = str(Path(sys.executable).parent / "rallypoint")
"""The installed console script, for runs as a player makes them."""


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "table.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def rp(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output + result.stderr
    return result


def flat(text: str) -> str:
    return " ".join(text.split())


def test_every_write_names_the_campaign_it_wrote_to(db: Path, tmp_path: Path) -> None:
    assert "created campaign ridge (squares" in rp("new", "farm", "--name", "ridge").output
    assert rp("squares", "lose", "95th").output.startswith("ridge #2 95th loses 1 SP (4→3)")
    assert "created platoon campaign p " in rp("platoon", "create", "--name", "p").output
    assert rp("platoon", "battle").output.startswith("p #2 stand-in battle, intensity 1")
    assert rp("undo").output.startswith("p: undone #2: stand-in battle")
    assert rp("squares", "turn").output.startswith("ridge #3 turn 2")
    assert rp("export", str(tmp_path / "r.json"), "-c", "ridge").output.startswith(
        "exported 3 events to")
    assert rp("rename", "ridge", "hill").output.startswith("renamed ridge to hill")


def test_after_an_import_bare_commands_keep_to_the_campaign_last_used_here(
        db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Their campaign, played elsewhere and sent over.
    monkeypatch.setenv("RALLYPOINT_DB", str(tmp_path / "theirs.sqlite3"))
    rp("new", "farm", "--name", "theirs")
    rp("squares", "lose", "95th")
    rp("export", str(tmp_path / "theirs.json"))
    monkeypatch.setenv("RALLYPOINT_DB", str(db))
    rp("new", "farm", "--name", "mine")
    rp("platoon", "create", "--name", "p")
    rp("squares", "turn")                        # the last campaign used here: mine
    assert "imported theirs (2 events, 2 new)" in rp("import", str(tmp_path / "theirs.json")).output
    assert rp("show").output.startswith("mine — ")
    assert rp("squares", "turn").output.startswith("mine #3 turn 3")
    assert rp("undo").output.startswith("mine: undone #3")
    state = json.loads(rp("show", "--json", "-c", "theirs").output)["state"]
    assert state["units"]["95th"]["sp"] == 3, "their campaign is untouched"
    # Once the player writes to it here, it is the one in use.
    assert rp("squares", "lose", "95th", "-c", "theirs").output.startswith("theirs #3")
    assert rp("show").output.startswith("theirs — ")


@pytest.mark.parametrize(("given", "ruleset", "name"), [
    ("example1", "tcs", "example1_tolvajarvi"),
    ("EXAMPLE2_LECHANOWKA", "tcs", "example2_lechanowka"),
    ("farm", "squares", "farm_below_the_ridge"),
    ("italy", "platoon", "italy_1944"),
    ("normandy", "platoon", "normandy_1944"),
    ("village", "squares", "village_on_the_stream"),
])
def test_new_takes_a_shipped_scenario_by_name(db: Path, given: str, ruleset: str,
                                              name: str) -> None:
    out = rp("new", given).output
    assert out.startswith(f"created campaign {name} ({ruleset}, id ")


@pytest.mark.parametrize(("given", "needle"), [
    ("ex", "'ex' could be example1_tolvajarvi or example2_lechanowka"),
    ("nothing", "no scenario file or shipped scenario 'nothing'. Give a TOML file, or one of: "
                "italy_1944, normandy_1944, farm_below_the_ridge, village_on_the_stream, "
                "example1_tolvajarvi, example2_lechanowka, tolvajarvi_two_sides."),
    ("farn_below_the_ridge", "Did you mean farm_below_the_ridge?"),
    ("missing.toml", "no such file: 'missing.toml'"),
])
def test_new_refuses_an_unknown_or_ambiguous_name_in_one_line(db: Path, given: str,
                                                              needle: str) -> None:
    result = runner.invoke(app, ["new", given])
    assert result.exit_code == 2 and needle in flat(result.stderr), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not db.exists()


def _complete(words: str, shell: str = "bash") -> str:
    env = {**os.environ, "_RALLYPOINT_COMPLETE": f"complete_{shell}", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - 1), "_TYPER_COMPLETE_ARGS": words}
    done = subprocess.run([RALLYPOINT], env=env, capture_output=True, text=True, check=True,
                          stdin=subprocess.DEVNULL)
    return done.stdout


def test_shell_completion_is_typers_own() -> None:
    help_text = subprocess.run([RALLYPOINT, "--help"], capture_output=True, text=True,
                               check=True).stdout
    assert "--install-completion" in help_text and "--show-completion" in help_text
    script = subprocess.run([RALLYPOINT, "--show-completion", "bash"], capture_output=True,
                            text=True, check=True).stdout
    assert "_rallypoint_completion()" in script and "_RALLYPOINT_COMPLETE" in script
    assert _complete("rallypoint squ").split() == ["squares"]
    assert _complete("rallypoint platoon au").split() == ["autoplay"]
    assert _complete("rallypoint platoon si").split() == [], "the deprecated name is hidden"
    assert "autoplay" in _complete("rallypoint platoon au", "zsh")


def test_a_command_of_another_ruleset_is_refused_in_words() -> None:
    from platoon_kit import campaign
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.dice import ScriptedRoller
    from rallypoint.rulesets.platoon.commands import RestDay
    from rallypoint.rulesets.squares.commands import NextTurn
    from squares_kit import battle, unit

    squares = battle([unit("a", "C3")])
    with pytest.raises(MalformedInputError) as info:
        squares.ruleset.decide(squares.state, RestDay(expected_version=1), ScriptedRoller(()))
    assert info.value.message.startswith("a platoon command 'rest' is not a squares command")
    platoon = campaign()
    with pytest.raises(MalformedInputError) as info:
        platoon.ruleset.decide(platoon.state, NextTurn(expected_version=1), ScriptedRoller(()))
    assert info.value.message.startswith("a squares command 'turn' is not a platoon command")


def test_the_demo_points_at_the_shipped_scenario_by_name(db: Path) -> None:
    out = flat(rp("demo").output)
    assert "Next: uv run rallypoint new example1_tolvajarvi to play it yourself" in out


REPR = re.compile(r"<\w+\.\w+: |\[\]|\{'|\['|\b[A-Z]\w+\(\w+=|\b[a-z_]+=\w|Traceback")
"""What a Python repr looks like: an enum member, an empty or quoted list, a dict, a model."""


def test_no_python_reprs_in_squares_or_platoon_output(db: Path, tmp_path: Path) -> None:
    rp("new", "farm", "--name", "ridge")
    rp("platoon", "create", "--name", "p", "--seed", "italy-1944")
    rp("platoon", "autoplay", "--days", "9", "--seed", "s", "--intensity", "3")
    commands = [
        ["squares", "board"], ["squares", "odds"], ["squares", "odds", "kempt", "28th"],
        ["squares", "sight", "C2", "G4"], ["squares", "rally", "kempt", "28th"],
        ["squares", "rally", "pack", "44th"], ["squares", "activate", "79th"],
        ["squares", "move", "79th", "D3"], ["squares", "fire", "kempt"],
        ["squares", "lose", "nobody"], ["squares", "turn"], ["show", "-c", "ridge"],
        ["log", "-c", "ridge"], ["platoon", "roster"], ["platoon", "decisions"],
        ["platoon", "place", "nobody", "1", "gunner"], ["platoon", "place", "m001", "9", "x"],
        ["platoon", "commander", "1", "--wait"], ["platoon", "tank", "nothing", "1"],
        ["platoon", "resolve", "--policy", "nope"], ["platoon", "year-end"],
        ["platoon", "report", str(tmp_path / "none.json")], ["log", "-c", "p"],
        ["undo", "-c", "p"], ["verify", "-c", "p"],
    ]
    for args in commands:
        result = runner.invoke(app, args)
        text = result.output + result.stderr
        assert not REPR.search(text), f"{' '.join(args)}: {REPR.search(text)!r} in {text}"
    bad = tmp_path / "bad.json"
    day = json.loads(rp("show", "--json", "-c", "p").output)["state"]["day"]
    bad.write_text(json.dumps({"day": day, "tanks": []}), encoding="utf-8")
    result = runner.invoke(app, ["platoon", "report", str(bad), "-c", "p"])
    assert result.exit_code == 2 and not REPR.search(result.stderr), result.stderr


def test_campaign_names_in_any_case_and_did_you_mean(db: Path) -> None:
    rp("new", "farm", "--name", "Ridge")
    assert rp("show", "-c", "RIDGE").output.startswith("Ridge — ")
    assert rp("squares", "turn", "-c", "ridge").output.startswith("Ridge #2 turn 2")
    result = runner.invoke(app, ["show", "-c", "rigde"])
    assert result.exit_code == 2 and "Did you mean Ridge?" in flat(result.stderr)
    rp("new", "farm", "--name", "RIDGE")      # names differing by case alone: type it exactly
    result = runner.invoke(app, ["show", "-c", "ridge"])
    assert result.exit_code == 2 and "no campaign with name or id 'ridge'" in result.stderr
    assert rp("show", "-c", "RIDGE").output.startswith("RIDGE — ")
