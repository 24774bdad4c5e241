"""`rallypoint backup FILE`: the whole database, dice secrets and seat keys included, so that a
campaign restored from it rolls on (an export leaves both out, and cannot).

The oracle is the game itself: a server-dice campaign restored from a backup must roll its next
command (it needs the secret) and verify; a seat restored from a backup must answer a dice round
by mail (it needs its chain seed) with the link its card committed to.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import build
from rallypoint.core.errors import DataFileError, IllegalNowError
from rallypoint.session import Session
from rallypoint.session.backup import backup
from rallypoint.session.pbem import answer, export_turn, import_turn, reveal, verify_file
from test_pbem import RALLY, SCENARIO, command, start_game

runner = CliRunner()


def _rally(session: Session, ref: str) -> None:
    """A new turn, the 28th disordered, and Kempt's rally test (one die)."""
    command(session, ref, {"kind": "turn"})
    with contextlib.suppress(IllegalNowError):  # still disordered from the last rally
        command(session, ref, {"kind": "disorder", "unit": "28th"})
    command(session, ref, RALLY)


def test_a_restored_server_dice_campaign_rolls_on_and_verifies(tmp_path: Path) -> None:
    live = Session(tmp_path / "live.sqlite3")
    info = live.create(SCENARIO, name="farm")
    _rally(live, "farm")
    made = backup(live, tmp_path / "kept.sqlite3")
    before = live.load("farm").version
    assert (made.campaigns, made.events) == (1, before)
    (tmp_path / "live.sqlite3").unlink()  # the disk died; only the backup is left

    restored = Session(made.path)
    _rally(restored, "farm")  # needs the dice secret: an export would not have it
    after = restored.load("farm", whole=True)
    assert after.version > before and after.events[-1].type == "rallied"
    assert restored.verify("farm").ok
    reveal(restored, info.id)
    out = tmp_path / "end.json"
    export_turn(restored, info.id, out)
    report = verify_file(out)
    assert report.dice.ok and report.dice.summary().startswith("dice-v1: 2 verified")


def test_an_export_alone_cannot_roll_on(tmp_path: Path) -> None:
    # Why backups exist: the same campaign imported from its export has no secret to roll with.
    live = Session(tmp_path / "live.sqlite3")
    info = live.create(SCENARIO, name="farm")
    out = tmp_path / "farm.json"
    live.export(info.id, out)
    elsewhere = Session(tmp_path / "elsewhere.sqlite3")
    elsewhere.import_file(out)
    with pytest.raises(Exception, match="secret"):
        _rally(elsewhere, "farm")


def test_a_seat_restored_from_a_backup_answers_its_round(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    kept = backup(game.french, tmp_path / "french-backup.sqlite3")
    shutil.move(str(tmp_path / "a.sqlite3"), tmp_path / "lost.sqlite3")
    game.french = Session(kept.path)
    with pytest.raises(Exception, match="needs french's link"):
        command(game.allied, game.campaign, RALLY)
    game.allied_to_french()
    answer(game.french, game.campaign)  # reveals a link of the chain kept in the backup
    path = tmp_path / "answer.json"
    export_turn(game.french, game.campaign, path, for_seat="allied")
    # Rounds by mail are sealed (issue 18): Allied's import checks the link on French's chain
    # and decides its rally; the event goes back to French.
    assert import_turn(game.allied, path).resolved is not None
    assert verify_file(game.allied_to_french()).dice.ok


def test_a_backup_never_replaces_a_file_and_writes_nothing_when_refused(tmp_path: Path) -> None:
    live = Session(tmp_path / "live.sqlite3")
    live.create(SCENARIO, name="farm")
    target = tmp_path / "there.sqlite3"
    target.write_text("precious")
    with pytest.raises(DataFileError, match="already exists"):
        backup(live, target)
    assert target.read_text() == "precious"
    with pytest.raises(DataFileError, match="no folder"):
        backup(live, tmp_path / "missing" / "b.sqlite3")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live.sqlite3", "there.sqlite3"]


def test_postgresql_is_pointed_at_pg_dump(tmp_path: Path) -> None:
    with pytest.raises(IllegalNowError, match="pg_dump"):
        backup(Session("postgresql://nobody@127.0.0.1:1/none"), tmp_path / "b.sqlite3")


def test_a_backup_taken_while_a_writer_holds_the_database_is_consistent(tmp_path: Path) -> None:
    live = Session(tmp_path / "live.sqlite3")
    live.create(SCENARIO, name="farm")
    writer = sqlite3.connect(tmp_path / "live.sqlite3", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # a server mid-write: the backup reads the last commit
    try:
        made = backup(live, tmp_path / "b.sqlite3")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert Session(made.path).verify("farm").ok


def test_the_cli_says_what_it_kept_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "live.sqlite3"
    Session(db).create(SCENARIO, name="farm")
    target = tmp_path / "b.sqlite3"
    done = runner.invoke(build(["backup"]), ["--db", str(db), "backup", str(target)])
    assert done.exit_code == 0, done.output
    assert done.output == f"backed up 1 campaign (1 event, {target.stat().st_size:,} bytes) " \
                          f"to {target}\n"
    again = runner.invoke(build(["backup"]), ["--db", str(db), "backup", str(target)])
    assert again.exit_code == 2 and len(again.output.strip().splitlines()) == 1
    assert "already exists" in again.output
