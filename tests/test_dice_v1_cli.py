"""dice-v1 through the CLI: a new campaign commits its dice, retries see the same dice, typed-in
dice are marked, and ``verify FILE`` re-checks every roll offline."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from rallypoint.cli.main import app

SCENARIO = "src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml"
RALLY = ["squares", "rally", "kempt", "28th", "--kind", "disorder"]


def rp(db: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_new_campaign_commits_and_verify_file_rechecks(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    rp(db, "new", SCENARIO, "--name", "farm")
    first = rp(db, *RALLY)
    rp(db, "undo")
    assert rp(db, *RALLY).splitlines()[1:] == first.splitlines()[1:]  # the same dice
    rp(db, "undo")
    rp(db, *RALLY, "--dice", "1")  # 1 +1 = 2: no effect, whatever the seeded die was
    rp(db, "export", str(tmp_path / "f.json"))
    exported = json.loads((tmp_path / "f.json").read_text())
    created = exported["events"][0]["payload"]
    assert "seed" not in created and len(created["dice"]["commitment"]) == 64
    modes = [e["payload"].get("dice_proof", {}).get("mode") for e in exported["events"]]
    assert modes == [None, "server", None, "server", None, "typed"]
    out = rp(db, "verify", str(tmp_path / "f.json"))
    assert "hash chain intact" in out
    assert "dice-v1: 1 typed in, 2 committed, secret not revealed, 0 failed" in out


def test_verify_file_reproduces_a_public_seed_campaign(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    rp(db, "new", SCENARIO, "--name", "farm", "--seed", "s")
    rp(db, *RALLY)
    rp(db, "export", str(tmp_path / "f.json"))
    assert "legacy seed: 1 reproduced from the public seed, 0 failed" in rp(
        db, "verify", str(tmp_path / "f.json"))


def test_retry_after_undo_sees_the_same_dice_when_a_snapshot_sits_at_the_undo(
    tmp_path: Path,
) -> None:
    # The undo writes a state snapshot at its own event; the next command resumes from it and
    # holds only the tail of the log, which cannot say the position (the undone event's): the
    # position must come from the whole log, or the retry would draw other dice.
    db = tmp_path / "c.sqlite3"
    rp(db, "new", SCENARIO, "--name", "farm")
    rp(db, "squares", "disorder", "95th")  # rolls nothing; the rally is decided at position 2
    first = rp(db, *RALLY)
    rp(db, "undo")
    again = rp(db, *RALLY)
    assert again.splitlines()[1:] == first.splitlines()[1:]
    rp(db, "export", str(tmp_path / "f.json"))
    proofs = [e["payload"].get("dice_proof") for e in
              json.loads((tmp_path / "f.json").read_text())["events"]]
    assert proofs[2] == proofs[4] and proofs[4]["position"] == 2
