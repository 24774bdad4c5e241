"""``rallypoint squares …``: real flows through the CLI, and bad input refused in one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.rulesets.squares import RULESET

runner = CliRunner()
RIDGE = str(RULESET.example_scenarios()[0])


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "squares.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    assert rp("new", RIDGE, "--name", "ridge", "--seed", "s").exit_code == 0
    return path


def rp(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def flat(text: str) -> str:
    return " ".join(text.split())


def _version(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])


def test_rally_scene_end_to_end(db: Path) -> None:
    board = rp("squares", "board")
    assert board.exit_code == 0
    assert "A:28th 3/6 D" in board.output and "*A:wellington" in board.output
    assert "walled_farm C2 (allied's fortification, blocks sight)" in flat(board.output)
    out = rp("squares", "fire", "28th")
    assert "28th targeted by ranged fire on turn 1" in out.output
    out = rp("squares", "activate", "28th")
    assert "stays disordered — under fire this turn (ranged)" in flat(out.output)
    odds = json.loads(rp("squares", "odds", "kempt", "28th", "--kind", "disorder",
                         "--json").output)
    assert odds == [{
        "leader": "kempt", "unit": "28th", "rally": "disorder",
        "modifiers": [{"name": "recovering from disorder", "value": 2},
                      {"name": "SP lost from starting stamina (6→3)", "value": -3},
                      {"name": "friendly fortification (walled_farm at C2)", "value": 1},
                      {"name": "no enemy visible (line of sight)", "value": 1}],
        "modifier": 1, "pass": "1/3", "no_effect": "2/3", "break": "0",
        "enemy_visible": {"computed": False, "ruling": None, "seen": []}}]
    text = flat(rp("squares", "odds", "kempt", "28th", "--kind", "disorder").output)
    assert "+1 friendly fortification (walled_farm at C2)" in text
    assert "= +1 in all: passes on a die of 5+, never breaks" in text
    assert "pass 1/3 33.3%" in text and "break 0 0.0%" in text
    out = rp("squares", "rally", "kempt", "28th", "--kind", "disorder", "--dice", "5")
    assert out.exit_code == 0, out.output
    assert "kempt (B1→C2) rallies 28th for disorder: PASSES — disorder removed" in flat(out.output)
    assert "= 6 → pass [pass 1/3, no effect 2/3, break 0]" in flat(out.output)
    state = json.loads(rp("show", "--json").output)["state"]
    assert state["units"]["28th"]["disordered"] is False
    assert state["leaders"]["kempt"] == {"name": "Kempt", "role": "brigadier", "side": "allied",
                                         "brigade": "kempt", "square": "C2", "attached": "28th"}
    log = json.loads(rp("log", "--json").output)
    assert [r["total"] for e in log for r in e["rolls"]] == [6]
    assert "attached: kempt→28th" in rp("show").output
    assert rp("undo").exit_code == 0
    state = json.loads(rp("show", "--json").output)["state"]
    assert state["units"]["28th"]["disordered"] is True
    assert rp("verify").exit_code == 0


def test_who_may_test_and_the_rest_of_the_verbs(db: Path) -> None:
    listing = json.loads(rp("squares", "odds", "--json").output)
    pairs = {(p["unit"], p["leader"], p["rally"]) for p in listing}
    assert ("44th", "pack", "disorder") not in pairs, "an enemy is next to the 44th"
    assert ("32nd", "wellington", "sp") in pairs
    assert ("79th", "kempt", "disorder") in pairs
    ruled = json.loads(rp("squares", "odds", "kempt", "28th", "--kind", "disorder",
                          "--enemy-visible", "--json").output)
    assert ruled[0]["modifier"] == 0 and ruled[0]["enemy_visible"]["ruling"] is True
    out = rp("squares", "rally", "kempt", "79th", "--kind", "disorder", "--no-enemy-visible",
             "--dice", "1")
    assert "+1 no enemy visible (player's ruling)" in flat(out.output)
    assert rp("undo").exit_code == 0
    table = rp("squares", "odds", "--kind", "sp").output
    assert "32nd" in table and "79th" not in table
    out = rp("squares", "activate", "79th")
    assert "recovers from disorder automatically" in flat(out.output)
    assert rp("squares", "move", "pack", "E2").exit_code == 0
    out = rp("squares", "lose", "32nd")
    assert "32nd loses 1 SP (1→0); destroyed: removed from play" in out.output
    assert rp("squares", "disorder", "92nd").exit_code == 0
    assert rp("squares", "fire", "92nd", "--bombardment").exit_code == 0
    sight = json.loads(rp("squares", "sight", "C2", "G4", "--json").output)
    assert sight == {"a": "C2", "b": "G4", "visible": False, "why": "blocked at E3 (hill)",
                     "between": ["D2", "D3", "E3", "F3", "F4"]}
    assert rp("squares", "sight", "C2", "G4", "--set", "clear").exit_code == 0
    assert "visible (player's ruling)" in rp("squares", "sight", "G4", "C2").output
    out = rp("squares", "turn")
    assert "#" in out.output and "turn 2" in out.output
    state = json.loads(rp("squares", "board", "--json").output)
    assert state["turn"] == 2 and state["under_fire"] == {} and state["activated"] == []
    assert state["sight"] == {"C2|G4": True}
    assert state["units"]["32nd"]["status"] == "destroyed"


@pytest.mark.parametrize(("args", "needle"), [
    (("squares", "rally", "pack", "44th", "--kind", "disorder"), "enemy adjacent: 105e Ligne"),
    (("squares", "rally", "pack", "28th", "--kind", "disorder"), "is neither its brigadier"),
    (("squares", "rally", "kempt", "95th", "--kind", "sp"), "it has lost 0 SP"),
    (("squares", "rally", "kempt", "28th", "--kind", "morale"), "is not a rally kind"),
    (("squares", "rally", "kempt", "28th", "--kind", "disorder", "--dice", "7"),
     "does not fit a d6"),
    (("squares", "rally", "kempt", "28th", "--kind", "disorder", "--dice", "5,5"),
     "the dice typed gave 2 value(s) but the command used 1"),
    (("squares", "move", "nobody", "C3"), "no unit or leader 'nobody'"),
    (("squares", "move", "95th", "K3"), "off the 8x6 grid"),
    (("squares", "move", "95th", "3C"), "'3C' is not a square"),
    (("squares", "lose", "95th", "5"), "has 4 SP left, cannot lose 5"),
    (("squares", "lose", "95th", "0"), "sp: Input should be greater than or equal to 1"),
    (("squares", "disorder", "28th"), "already disordered"),
    (("squares", "fire", "kempt"), "no unit 'kempt' in this battle (that is a leader)"),
    (("squares", "odds", "kempt"), "give both LEADER and UNIT"),
    (("squares", "odds", "kempt", "95th"), "it has lost 0 SP"),
    (("squares", "sight", "C2", "G4", "--set", "maybe"), "is not a ruling"),
    (("squares", "sight", "C2", "G4", "--set", "auto"), "no ruling on sight"),
])
def test_bad_input_is_one_line_exit_2_nothing_written(db: Path, args: tuple[str, ...],
                                                      needle: str) -> None:
    before = _version(db)
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert _version(db) == before


def test_move_refused_after_automatic_recovery(db: Path) -> None:
    assert rp("squares", "activate", "79th").exit_code == 0
    before = _version(db)
    result = runner.invoke(app, ["squares", "move", "79th", "D3"])
    assert result.exit_code == 2
    assert "it may fire but not move" in result.stderr
    assert _version(db) == before


def test_a_broken_unit_is_refused_everywhere(db: Path) -> None:
    # The 32nd: -5 SP lost +1 unseen +2 steady = -2; a 1 breaks it.
    out = rp("squares", "rally", "wellington", "32nd", "--kind", "sp", "--dice", "1")
    assert "BREAKS — removed from play" in out.output
    before = _version(db)
    for args in (["squares", "move", "32nd", "A2"], ["squares", "activate", "32nd"],
                 ["squares", "rally", "kempt", "32nd", "--kind", "sp", "--dice", "6"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "is broken and out of play" in result.stderr
    assert _version(db) == before
    assert "out of play: 32nd (broken)" in rp("squares", "board").output


def test_demo_ends_with_the_rally_scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "never.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    result = rp("demo")
    assert result.exit_code == 0, result.output
    text = flat(result.output)
    squares = text[text.index("Squares: disorder recovery and leader rally"):]
    for fragment in [
        "79th activates: recovers from disorder automatically",
        "refused: 79th Highlanders recovered from disorder in this activation",
        "28th activates: stays disordered — under fire this turn (ranged)",
        "+1 no enemy visible (line of sight)",
        "= 6 → pass [pass 1/3, no effect 2/3, break 0]",
        "kempt (B1→C2) rallies 28th for disorder: PASSES — disorder removed",
        "= -2 in all: never passes, breaks on a die of 2 or less",
    ]:
        assert fragment in squares
    assert not path.exists(), "the demo uses a throwaway database"


def test_the_board_marks_sides_in_text(db: Path) -> None:
    board = rp("squares", "board").output       # piped: no colour at all
    assert "\x1b[" not in board
    assert "A:28th 3/6 D" in board and "F:55e 4/6" in board
    assert "*A:wellington" in board and "*F:derlon" in board
    assert "A: allied, F: french" in flat(board)


def test_odds_table_has_a_side_column(db: Path) -> None:
    text = rp("squares", "odds").output
    assert "┃ side   ┃ unit ┃ leader" in text
    rows = [line.split("│")[1:3] for line in text.splitlines() if "│" in line]
    cells = {(side.strip(), unit.strip()) for side, unit in rows}
    assert ("allied", "28th") in cells and ("french", "55e") in cells


def test_rally_infers_the_kind_when_only_one_applies(db: Path) -> None:
    out = rp("squares", "rally", "kempt", "79th", "--dice", "3")   # disordered, lost 1 SP
    assert out.exit_code == 0, out.output
    assert "rallies 79th for disorder" in flat(out.output)
    assert rp("undo").exit_code == 0
    out = rp("squares", "rally", "kempt", "32nd", "--dice", "3")   # 5 SP lost, ordered
    assert "rallies 32nd for sp" in flat(out.output)
    assert rp("undo").exit_code == 0
    before = _version(db)
    out = rp("squares", "rally", "kempt", "28th", "--dice", "3")   # both apply: choose
    assert out.exit_code == 2
    assert ("may rally 28th Foot (28th) for disorder or for SP. Choose one: --kind disorder "
            "(pass 1/3, no effect 2/3, break 0); --kind sp (pass 1/6, no effect 5/6, break 0)"
            in flat(out.output))
    assert _version(db) == before


def test_ids_in_any_case_and_did_you_mean(db: Path) -> None:
    # The board spells them 28th and kempt; a player types them as he likes.
    assert json.loads(rp("squares", "odds", "Kempt", "79TH", "--json").output)[0]["unit"] == "79th"
    out = rp("squares", "rally", "KEMPT", "28TH", "--kind", "disorder", "--dice", "5")
    assert out.exit_code == 0, out.output
    assert "kempt (B1→C2) rallies 28th for disorder: PASSES" in flat(out.output)
    state = json.loads(rp("show", "--json").output)["state"]
    assert state["leaders"]["kempt"]["attached"] == "28th"
    assert rp("squares", "turn").exit_code == 0
    assert rp("squares", "activate", "Kempt").exit_code == 0
    assert rp("squares", "move", "Kempt", "c3").exit_code == 0
    assert json.loads(rp("show", "--json").output)["state"]["leaders"]["kempt"]["square"] == "C3"
    before = _version(db)
    for args, needle in [
        (("squares", "rally", "kemp", "28th"), "no leader 'kemp' in this battle"),
        (("squares", "lose", "28t"), "no unit '28t' in this battle"),
        (("squares", "move", "welington", "C3"), "no unit or leader 'welington'"),
    ]:
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2 and needle in result.stderr, result.stderr
        assert "Did you mean" in result.stderr, result.stderr
    result = runner.invoke(app, ["squares", "lose", "28t"])
    assert "Did you mean 28th or 28e?" in flat(result.stderr)
    result = runner.invoke(app, ["squares", "move", "welington", "C3"])
    assert "Did you mean wellington?" in flat(result.stderr)
    assert _version(db) == before
