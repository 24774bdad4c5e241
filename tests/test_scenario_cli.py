"""``rallypoint scenario init`` → edit → ``scenario check`` (every problem) → ``new``, and
``rallypoint schema``, through the installed console script as a player runs them."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from rallypoint.core.registry import registered
from test_cli_rough_edges import ok, refused, run


def test_init_edit_check_new(tmp_path: Path) -> None:
    db, game = tmp_path / "db.sqlite3", tmp_path / "my_battle.toml"
    # Wide enough for the temporary path (longer under a pytest-xdist worker): a path wider
    # than the terminal is folded mid-word, and this checks the words, not the folding.
    said = " ".join(ok(db, "scenario", "init", "squares", str(game),
                       env={"COLUMNS": "200"}).split())
    assert said == (f"wrote {game}, a squares scenario `rallypoint new` accepts as written, and "
                    "squares-scenario.schema.json beside it (its #:schema line lets a TOML "
                    f"editor check the file). Edit it, then `rallypoint scenario check {game}`.")
    text = game.read_text(encoding="utf-8")
    assert text.startswith("#:schema ./squares-scenario.schema.json\n")
    assert json.loads((tmp_path / "squares-scenario.schema.json").read_text("utf-8"))[
        "title"] == "rallypoint squares-scenario"
    assert ok(db, "scenario", "check", str(game)) == (
        f"{game}: no problems; `rallypoint new {game}` accepts it.\n")

    # The player's edits: four mistakes of four kinds, on four lines.
    lines = text.splitlines()
    edits = {'stamina = 5': 'stamina = 0',          # a value out of range
             'square = "C5"': 'square = "5C"',      # a square misspelt
             'side = "red"': 'side = "green"',      # a side that does not exist
             'rows = 6': 'rows = 6\n\n[parameters]\nadjacency = "six"'}  # a parameter's value
    for old, new in edits.items():
        (at,) = [n for n, line in enumerate(lines) if line.startswith(old)]
        lines[at] = lines[at].replace(old, new)
    edited = "\n".join(lines) + "\n"
    game.write_text(edited, encoding="utf-8")
    done = run(db, "scenario", "check", str(game))
    assert (done.returncode, done.stdout) == (2, b"")
    needles = {"stamina": "stamina = 0", "square": 'square = "5C"', "adjacency": "adjacency",
               "r1": 'id = "r1"'}
    number = {key: n for n, line in enumerate(edited.splitlines(), start=1)
              for key, needle in needles.items() if line.startswith(needle)}
    fix = "Correct that field; docs/scenarios.md lists every field and its meaning."
    assert done.stderr.decode().splitlines() == [
        f"error (bad-data-file): Input should be greater than or equal to 1 (at {game}:"
        f"{number['stamina']} units[1].stamina). {fix}",
        f"error (bad-data-file): '5C' is not a square (write the column letter then the row, "
        f"e.g. C4) (at {game}:{number['square']} units[2].square). {fix}",
        f"error (bad-data-file): brigade 'r1' names unknown side 'green' (at {game}:"
        f"{number['r1']}). {fix}",
        f"error (bad-data-file): parameter 'adjacency' cannot be 'six' (at {game}:"
        f"{number['adjacency']} parameters.adjacency). Use one of: 'eight', 'four'.",
        f"4 problems in {game}; `rallypoint new` stops at the first.",
    ]
    # `new` refuses the same file with the first of them, and writes nothing.
    first = refused(db, "new", str(game))
    assert first == (f"error (bad-data-file): Input should be greater than or equal to 1 (more "
                     "after it: `rallypoint scenario check` lists every problem) (at "
                     f"{game}:{number['stamina']} units[1].stamina). {fix}")
    as_json = json.loads(run(db, "scenario", "check", str(game), "--json").stdout)
    assert [(p["line"], p["field"]) for p in as_json] == [
        (number["stamina"], "units[1].stamina"), (number["square"], "units[2].square"),
        (number["r1"], ""), (number["adjacency"], "parameters.adjacency")]

    # Fixed, the file is a campaign.
    game.write_text(text.replace('stamina = 5', 'stamina = 4'), encoding="utf-8")
    ok(db, "scenario", "check", str(game))
    assert ok(db, "new", str(game)).startswith("created campaign my_battle (squares, id ")


def test_every_ruleset_s_starting_file_is_a_campaign_as_written(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    for name in ("tcs", "squares", "platoon"):  # each shipped ruleset has its own
        printed = ok(db, "scenario", "init", name)
        assert tomllib.loads(printed)["ruleset"] == name
        game = tmp_path / f"{name}.toml"
        game.write_text(printed, encoding="utf-8")
        assert ok(db, "new", str(game)).startswith(f"created campaign {name} ({name}, id ")


def test_init_never_overwrites_a_file_unless_told(tmp_path: Path) -> None:
    db, game = tmp_path / "db.sqlite3", tmp_path / "mine.toml"
    game.write_text("my own work\n", encoding="utf-8")
    assert refused(db, "scenario", "init", "tcs", str(game)) == (
        f"error (bad-data-file): '{game}' already exists (at {game}). Give another file name, "
        "or --force to overwrite it.")
    assert game.read_text(encoding="utf-8") == "my own work\n"
    assert not (tmp_path / "tcs-scenario.schema.json").exists()
    ok(db, "scenario", "init", "tcs", str(game), "--force")
    assert ok(db, "scenario", "check", str(game)).endswith("accepts it.\n")


def test_check_takes_a_shipped_name_and_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    farm = next(p for r in registered().values() for p in r.example_scenarios()
                if p.stem.startswith("farm"))
    assert ok(db, "scenario", "check", "farm") == (
        f"{farm}: no problems; `rallypoint new {farm}` accepts it.\n")
    assert refused(db, "scenario", "check", str(tmp_path / "none.toml")).startswith(
        "error (bad-data-file): scenario file")
    assert refused(db, "scenario", "init", "chess").startswith(
        "error (unknown-id): no ruleset named 'chess'. Use one of: platoon, squares, tcs")


def test_schema_lists_and_prints(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    assert ok(db, "schema").splitlines() == [
        "campaign-export", "platoon-report", "platoon-scenario", "squares-scenario",
        "tcs-scenario", "Print one with `rallypoint schema NAME > NAME.schema.json`."]
    root = Path(__file__).resolve().parents[1]
    assert ok(db, "schema", "platoon-report") == (
        root / "docs" / "schemas" / "platoon-report.schema.json").read_text(encoding="utf-8")
    assert refused(db, "schema", "report") == (
        "error (unknown-id): no schema named 'report'. Use one of: campaign-export, "
        "platoon-report, platoon-scenario, squares-scenario, tcs-scenario.")
