"""The command line: every command documented, real flows, and bad input refused in one line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.core.registry import get_ruleset

runner = CliRunner()
EX1 = str(next(p for p in get_ruleset("tcs").example_scenarios() if p.stem.startswith("example1")))


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def rp(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    # typer vendors click; walk groups by duck typing rather than importing its private copy.
    found = []
    for name, cmd in getattr(group, "commands", {}).items():
        found.append((*prefix, name))
        found.extend(_commands(cmd, (*prefix, name)))
    return found


ROOT: Any = typer.main.get_command(app)
ALL = _commands(ROOT)


@pytest.mark.parametrize("path", ALL, ids=[" ".join(p) for p in ALL])
def test_every_command_and_option_has_help(path: tuple[str, ...]) -> None:
    cmd = ROOT
    for part in path:
        cmd = cmd.commands[part]
    assert cmd.help and cmd.help.strip(), f"{' '.join(path)} needs a docstring"
    for param in cmd.params:
        if param.param_type_name == "option" and param.name != "help":
            assert param.help, f"{' '.join(path)} {param.opts[0]} needs help text"
    result = rp(*path, "--help")
    assert result.exit_code == 0


def test_tcs_flow_end_to_end(db: Path) -> None:
    assert rp("new", EX1, "--name", "t", "--seed", "s").exit_code == 0
    out = rp("tcs", "sheet", "rest", "--member", "ErP112", "--center", "ErP112=8.21",
             "--center", "1/ErP112=23.15", "--center", "2/ErP112=17.21", "--size", "1",
             "--attest")
    assert out.exit_code == 0, out.output
    assert "row 3 (prep 2 + size 1)" in out.output
    assert rp("tcs", "turn", "--count", "6", "--no-stop").exit_code == 0
    assert rp("tcs", "morale", "ErP112", "2").exit_code == 0
    out = rp("tcs", "check", "rest", "--dice", "5,5,5,1,4")
    assert out.exit_code == 0, out.output
    assert "P(implements) = 2/9" in out.output
    choices = json.loads(rp("tcs", "choices", "--json").output)
    assert [d["subject"] for d in choices] == ["1/ErP112", "2/ErP112", "3/ErP112"]
    assert choices[0]["options"]["max_resurrections"] == 1
    out = rp("tcs", "resolve", "1/ErP112", "--resurrect", "1/ErP112-d-2=3",
             "--very-dead", "1/ErP112-d-1")
    assert out.exit_code == 0, out.output
    assert rp("tcs", "resolve", "--policy", "rebuild").exit_code == 0
    assert rp("tcs", "resolve", "--policy", "rebuild", "--dice", "3").exit_code == 0
    state = json.loads(rp("show", "--json").output)
    assert state["state"]["morale"] == {"ErP112": 0}
    assert state["state"]["companies"]["1/ErP112"]["counters"]["1/ErP112-d-2"] == {
        "steps": 3, "full": 5, "pile": "map", "hex": "23.15"}
    log = json.loads(rp("log", "--json").output)
    rolls = [r for e in log for r in e["rolls"]]
    assert [r["total"] for r in rolls] == [55, 8, 4, 7, 3]
    assert rolls[1]["purpose"] == "1/ErP 112th recovery roll (inf column)"
    assert {m["name"]: m["value"] for m in rolls[1]["modifiers"]} == {
        "average raw morale (1,1,1,1)": 1, "battalion morale ErP 112th": 2}
    assert rp("verify").exit_code == 0
    assert "ErP112" in rp("show").output


def test_export_import_and_undo(db: Path, tmp_path: Path) -> None:
    rp("new", EX1, "--name", "pbem")
    rp("tcs", "loss", "1/ErP112-1", "--steps", "1")
    out_file = tmp_path / "pbem.json"
    assert rp("export", str(out_file)).exit_code == 0
    other = tmp_path / "other.sqlite3"
    assert rp("--db", str(other), "import", str(out_file)).exit_code == 0
    listed = json.loads(rp("--db", str(other), "list", "--json").output)
    assert [(c["name"], c["version"]) for c in listed] == [("pbem", 2)]
    assert rp("undo").exit_code == 0
    state = json.loads(rp("show", "--json").output)["state"]
    assert state["companies"]["1/ErP112"]["counters"]["1/ErP112-1"]["steps"] == 3
    assert json.loads(rp("show", "--json").output)["version"] == 3


def _version(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("tcs", "loss", "no-such-counter"), "no counter 'no-such-counter'"),
        (("tcs", "loss", "1/ErP112-1", "--steps", "4"), "has 3 step(s) left"),
        (("tcs", "loss", "1/ErP112-1", "--cause", "meteor"), "unknown elimination cause"),
        (("tcs", "check", "rest", "--dice", "6,6"), "no Recovery Op Sheet 'rest'"),
        (("tcs", "sheet", "r", "--member", "ErP112", "--center", "ErP112=8.21", "--size", "1"),
         "attest"),
        (("tcs", "sheet", "r", "--member", "ErP112", "--center", "ErP112", "--size", "1"),
         "is not KEY=VALUE"),
        (("tcs", "resolve", "--policy", "rebuild"), "no distribution pending"),
        (("tcs", "fo"), "FO"),
        (("tcs", "morale", "nope", "1"), "keeps no battalion morale"),
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(db: Path, args: tuple[str, ...],
                                                      needle: str) -> None:
    rp("new", EX1, "--name", "t")
    before = _version(db)
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert _version(db) == before


def test_illegal_allocation_and_extra_dice_change_nothing(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    rp("tcs", "sheet", "rest", "--member", "ErP112", "--center", "ErP112=8.21",
       "--center", "1/ErP112=23.15", "--center", "2/ErP112=17.21", "--size", "1", "--attest")
    rp("tcs", "turn", "--count", "6", "--no-stop")
    before = _version(db)
    extra = runner.invoke(app, ["tcs", "check", "rest", "--dice", "5,5,5,1,4,6"])
    assert extra.exit_code == 2 and "used 5" in extra.stderr
    assert _version(db) == before
    assert rp("tcs", "check", "rest", "--dice", "5,5,5,1,4").exit_code == 0
    before = _version(db)
    bad = runner.invoke(app, ["tcs", "resolve", "3/ErP112", "--resurrect", "3/ErP112-d-1=2",
                              "--resurrect", "3/ErP112-d-2=2", "--resurrect",
                              "3/ErP112-d-3=0"])
    assert bad.exit_code == 2
    assert _version(db) == before
    # Battalion morale is still 4 here: 4 + 1 + 4 = 9 → 3 steps for 3/ErP.
    bad = runner.invoke(app, ["tcs", "resolve", "3/ErP112", "--resurrect", "3/ErP112-d-1=1",
                              "--resurrect", "3/ErP112-d-2=1", "--resurrect",
                              "3/ErP112-d-3=1"])
    assert bad.exit_code == 2 and "at most 2 may" in bad.stderr
    assert _version(db) == before


def test_bad_scenario_files(db: Path, tmp_path: Path) -> None:
    missing = runner.invoke(app, ["new", str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text('ruleset = "tcs"\n[scenario]\ntitle = "x"\nbad line here\n')
    result = runner.invoke(app, ["new", str(broken)])
    assert result.exit_code == 2
    assert f"{broken}:4" in result.stderr
    invalid = tmp_path / "invalid.toml"
    invalid.write_text(Path(EX1).read_text().replace("steps = 5\nmorale = 1\nlost = 2",
                                                     "steps = -5\nmorale = 1\nlost = 2"))
    result = runner.invoke(app, ["new", str(invalid)])
    assert result.exit_code == 2
    assert "formations[0].companies[0].counters[0].steps" in result.stderr
    line = Path(invalid).read_text().splitlines().index("steps = -5") + 1
    assert f"{invalid}:{line}" in result.stderr
    assert "Traceback" not in result.stderr
    assert not db.exists() or _version(db) == 0


def test_verify_catches_an_edited_event(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    rp("tcs", "loss", "1/ErP112-1", "--steps", "1")
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='trigger'").fetchall():
            conn.execute(f'DROP TRIGGER "{name}"')
        conn.execute("UPDATE events SET payload = replace(payload, '\"steps\":1', "
                     "'\"steps\":2') WHERE seq = 2")
    result = runner.invoke(app, ["verify"])
    assert result.exit_code == 1
    assert "BROKEN at #2" in result.output


def test_demo_plays_example_one(db: Path) -> None:
    result = rp("demo")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for fragment in ["= 8 → 3 steps", "= 4 → 4 steps", "= 7 → 4 steps", "(morale 2→0)",
                     "P(implements) = 2/9", "a week in Italy (stand-in battles)",
                     "day 3 (action): battle-start stress, mean 40; shaken at 35"]:
        assert fragment in text
    assert not db.exists(), "the demo uses a throwaway database"


def test_a_value_the_command_model_refuses_is_one_line(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    result = runner.invoke(app, ["tcs", "loss", "1/ErP112-1", "--steps", "0"])
    assert result.exit_code == 2
    assert "steps: Input should be greater than or equal to 1" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_same_seed_rolls_the_same_dice(db: Path) -> None:
    rolls = []
    for name in ("a", "b"):
        rp("new", EX1, "--name", name, "--seed", "same")
        rp("tcs", "sheet", "rest", "--member", "ErP112", "--center", "ErP112=8.21", "--center",
           "1/ErP112=23.15", "--center", "2/ErP112=17.21", "--size", "1", "--attest",
           "-c", name)
        rp("tcs", "turn", "--count", "6", "--no-stop", "-c", name)
        assert rp("tcs", "check", "rest", "-c", name).exit_code == 0
        log = json.loads(rp("log", "--json", "-c", name).output)
        rolls.append([r["faces"] for e in log for r in e["rolls"]])
    assert rolls[0] == rolls[1] and rolls[0]


def test_version_prints_the_installed_version(db: Path) -> None:
    from importlib.metadata import version

    result = rp("--version")
    assert result.exit_code == 0
    assert result.output.strip() == f"rallypoint {version('rallypoint')}"
    assert not db.exists()


def test_where_prints_the_database_path(db: Path, tmp_path: Path) -> None:
    assert rp("where").output.strip() == str(db)
    other = tmp_path / "elsewhere.sqlite3"
    assert rp("--db", str(other), "where").output.strip() == str(other)
    assert not db.exists() and not other.exists()  # a read that creates nothing


def test_log_marks_undone_events_in_words_when_piped(db: Path) -> None:
    # CliRunner output is not a terminal, as when piped: strike-through is gone, the word stays.
    rp("new", EX1, "--name", "ex1")
    rp("tcs", "loss", "1/ErP112-1", "--steps", "1")
    rp("undo")
    lines = rp("log").output.splitlines()
    assert lines[1].startswith("#2") and lines[1].endswith("(undone)")
    assert not lines[0].endswith("(undone)") and not lines[2].endswith("(undone)")
