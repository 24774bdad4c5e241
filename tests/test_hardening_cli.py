"""The campaign verbs at the edge: reads that never write, delete and rename, broken campaigns,
and names that cannot break the terminal."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.core.registry import get_ruleset

runner = CliRunner()
SQUARES = str(get_ruleset("squares").example_scenarios()[0])


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


def rp(*args: str, input: str | None = None) -> Any:
    return runner.invoke(app, list(args), input=input, catch_exceptions=False)


def one_line_refusal(result: Any) -> str:
    assert result.exit_code == 2, result.output
    text: str = result.output.strip()
    assert text.startswith("error ("), text
    assert "Traceback" not in text
    return text


@pytest.mark.parametrize("verb", [["list"], ["show"], ["log"], ["verify"], ["export", "x.json"]])
def test_reads_on_a_missing_path_create_nothing(tmp_path: Path, verb: list[str]) -> None:
    path = tmp_path / "no" / "such" / "db.sqlite3"
    text = one_line_refusal(rp("--db", str(path), *verb))
    assert "no database at" in text
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("verb", [["list"], ["show"], ["verify"], ["new", SQUARES]])
def test_foreign_sqlite_file_is_refused_unchanged(tmp_path: Path, verb: list[str]) -> None:
    path = tmp_path / "someone-elses.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE accounts (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    assert "not a rallypoint database" in one_line_refusal(rp("--db", str(path), *verb))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["someone-elses.sqlite3"]


def test_db_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    text = one_line_refusal(rp("--db", str(tmp_path / "file" / "db.sqlite3"), "new", SQUARES))
    assert "is a file, not a folder" in text


def test_delete_asks_backs_up_and_deletes(db: Path) -> None:
    assert rp("new", SQUARES, "--name", "farm").exit_code == 0
    assert rp("new", SQUARES, "--name", "keep").exit_code == 0
    refused = rp("delete", "farm", input="n\n")
    # Declined is a refusal: one line, exit 2, like every other (a script never reads it as done).
    assert refused.exit_code == 2
    assert refused.stderr.strip().splitlines() == [
        "error (illegal-now): delete of 'farm' not confirmed. Nothing was deleted; answer y, or "
        "pass --yes."]
    no_answer = rp("delete", "farm")                # no answer at all: nothing deleted either
    assert no_answer.exit_code == 2 and "not confirmed" in no_answer.stderr
    assert not (db.parent / "backups").exists(), "nothing written, not even the backup"
    done = rp("delete", "farm", input="y\n")
    assert done.exit_code == 0, done.output
    assert "deleted farm (1 event)" in done.output
    backups = list((db.parent / "backups").iterdir())
    assert len(backups) == 1
    names = [c["name"] for c in json.loads(rp("list", "--json").output)]
    assert names == ["keep"]
    # The backup is a good export: importing it brings the campaign back.
    assert rp("import", str(backups[0])).exit_code == 0
    assert rp("verify", "-c", "farm").exit_code == 0


def test_delete_yes_no_backup(db: Path) -> None:
    assert rp("new", SQUARES, "--name", "farm").exit_code == 0
    result = rp("delete", "farm", "--yes", "--no-backup")
    assert result.exit_code == 0 and "backup" not in result.output
    assert not (db.parent / "backups").exists()
    assert "no campaign" in one_line_refusal(rp("delete", "farm", "--yes"))


def test_rename(db: Path) -> None:
    assert rp("new", SQUARES, "--name", "farm").exit_code == 0
    assert rp("rename", "farm", "ridge").exit_code == 0
    assert [c["name"] for c in json.loads(rp("list", "--json").output)] == ["ridge"]
    assert rp("new", SQUARES, "--name", "farm").exit_code == 0
    assert "already exists" in one_line_refusal(rp("rename", "farm", "ridge"))


def break_campaign(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("UPDATE events SET recorded_at = '2000-01-01T00:00:00+00:00' WHERE seq = 1")
    conn.close()


def test_broken_campaign_marked_on_read_refused_on_write_and_deletable(db: Path) -> None:
    assert rp("new", SQUARES, "--name", "farm").exit_code == 0
    break_campaign(db)
    verified = rp("verify")
    assert verified.exit_code == 1 and "BROKEN at #1" in verified.output
    shown = rp("show")
    assert shown.exit_code == 0 and "BROKEN at #1" in shown.output
    text = one_line_refusal(rp("undo"))
    assert "broken" in text or "BROKEN" in text
    assert rp("delete", "farm", "--yes").exit_code == 0
    assert json.loads(rp("list", "--json").output) == []


def test_cut_tail_shown_in_list_and_verify(db: Path) -> None:
    assert rp("new", SQUARES, "--name", "farm").exit_code == 0
    assert rp("squares", "turn").exit_code == 0, rp("squares", "--help").output
    conn = sqlite3.connect(db, isolation_level=None)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                ).fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DELETE FROM events WHERE seq = 2")
    conn.close()
    assert "cut from 2" in rp("list").output
    result = rp("verify")
    assert result.exit_code == 1 and "was cut" in result.output


@pytest.mark.parametrize("name", ["x[/]", "[bold]x", "a\x1b[2Jb", "x\x07\ny"])
def test_names_cannot_break_the_terminal(db: Path, name: str) -> None:
    created = rp("new", SQUARES, "--name", name)
    assert created.exit_code == 0, created.output
    listed = rp("list")
    assert listed.exit_code == 0
    stored = json.loads(rp("list", "--json").output)[0]["name"]
    assert "\x1b" not in stored and "\x07" not in stored and "\n" not in stored
    assert stored in listed.output  # shown as stored, markup and all
    assert "\x1b" not in listed.output


def test_empty_name_refused(db: Path) -> None:
    assert "visible character" in one_line_refusal(rp("new", SQUARES, "--name", ""))
    assert not db.exists()
