"""``rallypoint reveal FILE --out OUT`` through the command line: the end of a TCS campaign
played by e-mail with both sides' Op Sheets hidden (docs/two-player.md).

The game is played through the library (two databases, turn files filtered for their reader,
Finland's implementation check in a sealed dice round); the reveal then runs as a player runs
it: the success line, the ``--json`` keys, and a refusal as one line on stderr, exit 2, nothing
written. The expected counts come from the two stores' own rows, not from the reveal.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from rallypoint.cli.main import app
from rallypoint.dice.v1 import DiceProof
from rallypoint.session import Session
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.pbem import answer, create_seated, export_turn, import_turn, new_seat
from seats_kit import SCENARIO, SHEETS, execute

TURN = {"kind": "turn", "skip_fo": True}
CHECK = {"kind": "check", "sheet": "F-hideout"}


@dataclass
class Hidden:
    """Two databases at the same head, each holding the other side's events redacted."""

    finland: Path
    soviet: Path
    campaign: str
    mail: Path


def _send(mail: Path, sender: Session, reader: Session, seat: str, campaign: str) -> None:
    path = mail / f"turn{len(list(mail.iterdir())) + 1}.json"
    export_turn(sender, campaign, path, for_seat=seat)
    import_turn(reader, path)


def play(tmp: Path) -> Hidden:
    """Both sides write a sheet and play turns; Finland's check rolls in a sealed round."""
    fdb, sdb, mail = tmp / "f.sqlite3", tmp / "s.sqlite3", tmp / "mail"
    mail.mkdir()
    finland, soviet = Session(fdb), Session(sdb)
    info = create_seated(finland, SCENARIO, [new_seat(finland, "finland"),
                                             new_seat(soviet, "soviet")], name="both")
    cid = info.id
    execute(finland, cid, SHEETS[0])
    _send(mail, finland, soviet, "soviet", cid)
    execute(soviet, cid, SHEETS[1])
    for _ in range(3):
        execute(soviet, cid, TURN)
    _send(mail, soviet, finland, "finland", cid)  # Finland owes its sheet's three turns
    for _ in range(2):
        execute(finland, cid, TURN)
    with contextlib.suppress(AwaitingDice):
        execute(finland, cid, CHECK)
    _send(mail, finland, soviet, "soviet", cid)  # the sealed request
    answer(soviet, cid)
    _send(mail, soviet, finland, "finland", cid)  # the link-only answer: Finland decides
    _send(mail, finland, soviet, "soviet", cid)  # the Soviets owe their sheet's two turns
    _send(mail, soviet, finland, "finland", cid)
    return Hidden(fdb, sdb, cid, mail)


def rows(db: Path, campaign: str) -> list[Any]:
    with Session(db)._store() as store:
        return list(store.events(campaign))


def redacted(db: Path, campaign: str) -> int:
    """Events this database holds redacted: counted from its rows."""
    return sum("$withheld" in r.payload for r in rows(db, campaign))


def dice_in(game: Hidden) -> int:
    """Dice rolled in the game: the tapes of the proofs each database holds whole (a sealed
    check's dice are random: it may implement and roll the recovery and morale too)."""
    tapes = {}
    for db in (game.finland, game.soviet):
        for r in rows(db, game.campaign):
            if "dice_proof" in r.payload and "$withheld" not in r.payload:
                tapes[r.seq] = len(DiceProof.model_validate(r.payload["dice_proof"]).tape)
    return sum(tapes.values())


def whole_export(db: Path, campaign: str, path: Path) -> Path:
    """A seat's plain export for the reveal (its own events whole, signed)."""
    export_turn(Session(db), campaign, path)
    return path


def copy_of(db: Path, path: Path) -> Path:
    """A copy of a database (SQLite's backup: the WAL's pages included)."""
    with sqlite3.connect(db) as source, sqlite3.connect(path) as target:
        source.backup(target)
    source.close()
    target.close()
    return path


def cli(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *args])


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Hidden:
    return play(tmp_path_factory.mktemp("hidden"))


def test_the_reveal_line_and_a_merged_log_that_verifies_and_imports(
    game: Hidden, tmp_path: Path,
) -> None:
    theirs = whole_export(game.finland, game.campaign, tmp_path / "finland.json")
    out = tmp_path / "full.json"
    held = rows(game.soviet, game.campaign)
    from_them, from_us = redacted(game.soviet, game.campaign), redacted(game.finland,
                                                                        game.campaign)
    assert from_them and from_us  # the game did hide something both ways
    result = cli(game.soviet, "reveal", str(theirs), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"revealed: {len(held)} events whole in {out} ({from_them} of finland's were withheld "
        f"from you, {from_us} of yours from finland); every redaction shown was honest; "
        f"{len(held) - 1} event(s) re-derived from their commands; "
        f"dice-v1: {dice_in(game)} verified, 0 failed (dice)\n")
    merged = json.loads(out.read_text(encoding="utf-8"))
    assert [e["hash"] for e in merged["events"]] == [r.hash for r in held]
    assert not any({"$redacted", "$withheld"} & set(e["payload"]) for e in merged["events"])
    assert rows(game.soviet, game.campaign) == held  # the reveal writes only --out

    checked = cli(tmp_path / "anyone.sqlite3", "verify", str(out))
    assert checked.exit_code == 0, checked.output
    assert "every event folds, signed by soviet" in checked.stdout
    assert f"dice-v1: {dice_in(game)} verified, 0 failed (dice)" in checked.stdout
    # Either seat keeps the revealed log beside its partial one.
    for db in (game.soviet, game.finland):
        kept = cli(copy_of(db, tmp_path / f"kept-{db.name}"), "import", str(out), "--as",
                   "revealed")
        assert kept.exit_code == 0, kept.output
        assert f"imported revealed as a new campaign ({len(held)} events)" in kept.stdout


def test_reveal_json_prints_out_the_result_fields_and_the_dice_counts(
    game: Hidden, tmp_path: Path,
) -> None:
    theirs = whole_export(game.soviet, game.campaign, tmp_path / "soviet.json")
    out = tmp_path / "full.json"
    result = cli(game.finland, "reveal", str(theirs), "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    done = json.loads(result.stdout)
    dice = dice_in(game)
    assert done == {
        "out": str(out), "events": len(rows(game.finland, game.campaign)),
        "revealed": redacted(game.finland, game.campaign),
        "shown_to_them": redacted(game.soviet, game.campaign), "other": "soviet",
        "rederived": len(rows(game.finland, game.campaign)) - 1,
        "dice": {"scheme": "dice-v1", "summary": f"dice-v1: {dice} verified, 0 failed (dice)",
                 "verified": dice, "typed": 0, "committed": 0, "legacy": 0, "failed": 0,
                 "withheld": 0}}
    assert out.exists()


def _refused(db: Path, *args: str) -> str:
    """A reveal that must be refused: exit 2, one line on stderr, nothing on stdout."""
    result = cli(db, "reveal", *args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    line: str = result.stderr.strip()
    assert line.startswith("error (") and "\n" not in line, result.stderr
    return line


@pytest.mark.parametrize("as_json", [False, True], ids=["line", "json"])
def test_a_refused_reveal_is_one_line_and_writes_nothing(
    game: Hidden, tmp_path: Path, as_json: bool,
) -> None:
    flag = ("--json",) if as_json else ()
    out = tmp_path / "full.json"
    before = rows(game.soviet, game.campaign)
    own = whole_export(game.soviet, game.campaign, tmp_path / "own.json")
    line = _refused(game.soviet, str(own), "--out", str(out), *flag)
    assert "signed by your own seat (soviet)" in line and "Pass the file the other seat" in line

    behind = whole_export(game.finland, game.campaign, tmp_path / "finland.json")
    moved = tmp_path / "ahead.sqlite3"
    execute(Session(copy_of(game.soviet, moved)), game.campaign, TURN)  # Soviets play on
    line = _refused(moved, str(behind), "--out", str(out), *flag)
    assert line.startswith("error (illegal-now): the two logs are not at the same head")
    assert "theirs is behind" in line

    assert not out.exists()
    assert rows(game.soviet, game.campaign) == before


def test_reveal_as_a_player_runs_it(game: Hidden, tmp_path: Path) -> None:
    """The installed entry point, piped, at 80 columns: the same one line."""
    theirs = whole_export(game.finland, game.campaign, tmp_path / "finland.json")
    out = tmp_path / "full.json"
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "rallypoint"), "--db", str(game.soviet), "reveal",
         str(theirs), "--out", str(out)], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.count("\n") == 1
    assert done.stdout.startswith("revealed: ") and out.exists()
