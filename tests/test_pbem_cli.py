"""Play by e-mail through the command line, as two players would: seat cards, a two-seat
campaign, turn files both ways with a pair-mode dice round, tampered files refused with one line
(exit 2, nothing written), a fork kept with ``--as``, and ``dice reveal`` in server mode."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from rallypoint.cli.main import app
from test_pbem import rehash

SCENARIO = "src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml"
RALLY = ["squares", "rally", "kempt", "28th", "--kind", "disorder"]


def rp(db: Path, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    assert result.exit_code == code, result.output
    return result.output


def game(tmp: Path) -> tuple[Path, Path]:
    """French (a) and allied (b) start a campaign and trade the first file."""
    a, b = tmp / "a.sqlite3", tmp / "b.sqlite3"
    assert "seat french: key" in rp(a, "seat", "new", "french", "--card", str(tmp / "f.json"))
    rp(b, "seat", "new", "allied", "--card", str(tmp / "al.json"))
    out = rp(a, "seat", "start", SCENARIO, "--card", str(tmp / "f.json"), "--card",
             str(tmp / "al.json"), "--name", "farm")
    assert "seats allied, french" in out
    assert "signed by french for allied" in rp(a, "export", "--for", "allied",
                                               str(tmp / "t1.json"))
    assert "imported farm (1 event, 1 new), signed by french (key " in rp(
        b, "import", str(tmp / "t1.json"))
    return a, b


def test_a_pbem_exchange_with_a_dice_round_ends_verified(tmp_path: Path) -> None:
    a, b = game(tmp_path)
    out = rp(b, *RALLY)
    assert out.startswith("waiting: dice round 1 needs french's link")
    assert "with your dice request (round 1)" in rp(b, "export", "--for", "french",
                                                     str(tmp_path / "t2.json"))
    assert "allied asks for your dice link (round 1)" in rp(a, "import", str(tmp_path / "t2.json"))
    answered = rp(a, "dice", "answer")  # only french's link: nothing is decided here
    assert answered.startswith("your link for sealed dice round 1 is kept")
    rp(a, "export", "--for", "allied", str(tmp_path / "t3.json"))
    resolved = rp(b, "import", str(tmp_path / "t3.json"))
    assert "french answered your sealed dice round" in resolved and "rallies 28th" in resolved
    rp(b, "export", "--for", "french", str(tmp_path / "t4.json"))
    assert "(2 events, 1 new)" in rp(a, "import", str(tmp_path / "t4.json"))
    assert rp(a, "log") == rp(b, "log")
    out = rp(a, "verify", str(tmp_path / "t4.json"))
    assert "hash chain intact" in out and "dice-v1: 1 verified, 0 failed" in out
    assert "signed by allied" in out


def refused(db: Path, path: Path, message: str) -> None:
    before = rp(db, "log")
    out = rp(db, "import", str(path), code=2)
    assert out.startswith("error (integrity): ") and message in out, out
    assert "\n" not in out.strip()  # one line
    assert rp(db, "log") == before  # nothing written


def test_tampered_files_are_refused_through_the_cli(tmp_path: Path) -> None:
    a, b = game(tmp_path)
    rp(b, *RALLY)
    rp(b, "export", "--for", "french", str(tmp_path / "t2.json"))
    rp(a, "import", str(tmp_path / "t2.json"))
    rp(a, "dice", "answer")
    rp(a, "export", "--for", "allied", str(tmp_path / "t3.json"))
    rp(b, "import", str(tmp_path / "t3.json"))  # allied's import decides its rally
    good = tmp_path / "t4.json"
    rp(b, "export", "--for", "french", str(good))
    data = json.loads(good.read_text())

    edited = json.loads(json.dumps(data))
    edited["events"][-1]["payload"]["dice_proof"]["tape"][0][1] = 7
    _write(tmp_path / "edit.json", edited)
    refused(a, tmp_path / "edit.json", "broken at seq 2")

    rehashed = rehash(json.loads(json.dumps(edited)))  # chain, head and header recomputed
    _write(tmp_path / "rehash.json", rehashed)
    refused(a, tmp_path / "rehash.json", "does not match the file's contents")

    cut = json.loads(json.dumps(data))
    cut["events"].pop()
    _write(tmp_path / "cut.json", cut)
    refused(a, tmp_path / "cut.json", "were cut")

    reordered = json.loads(json.dumps(data))
    reordered["events"].reverse()
    _write(tmp_path / "reorder.json", reordered)
    refused(a, tmp_path / "reorder.json", "sequence gap")

    refused(a, tmp_path / "t2.json", "replayed: the file's head #1")
    assert "(2 events, 1 new)" in rp(a, "import", str(good))
    refused(a, good, "replayed: the file's head #2 is your head")


def _write(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def test_a_fork_is_kept_with_import_as(tmp_path: Path) -> None:
    a, b = game(tmp_path)
    old = tmp_path / "a-old.sqlite3"
    old.write_bytes(a.read_bytes())
    rp(a, "squares", "disorder", "54e")
    rp(a, "export", "--for", "allied", str(tmp_path / "t2.json"))
    rp(b, "import", str(tmp_path / "t2.json"))
    rp(old, "squares", "disorder", "55e")
    rp(old, "export", "--for", "allied", str(tmp_path / "fork.json"))
    out = rp(b, "import", str(tmp_path / "fork.json"), code=2)
    assert "forks from your log at #2" in out and "--as NAME" in out
    out = rp(b, "import", str(tmp_path / "fork.json"), "--as", "farm-b")
    assert "imported farm-b as a new campaign (2 events)" in out
    listed = rp(b, "list")
    assert "farm-b" in listed and "farm " in listed


def test_dice_reveal_makes_server_rolls_verify(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    rp(db, "new", SCENARIO, "--name", "farm")
    rp(db, *RALLY)
    rp(db, "export", str(tmp_path / "before.json"))
    assert "1 committed, secret not revealed" in rp(db, "verify", str(tmp_path / "before.json"))
    assert "revealed dice secret " in rp(db, "dice", "reveal")
    assert "with the revealed dice secret" in rp(db, "export", str(tmp_path / "after.json"))
    assert "dice-v1: 1 verified, 0 failed" in rp(db, "verify", str(tmp_path / "after.json"))
    rp(db, "undo")
    out = rp(db, *RALLY, code=2)
    assert "dice secret has been revealed" in out
    # The opponent's copy verifies too, and a forged secret is refused.
    forged = json.loads((tmp_path / "after.json").read_text())
    forged["turn"]["revealed_secret"] = "00" * 32
    _write(tmp_path / "forged.json", forged)
    out = rp(db, "verify", str(tmp_path / "forged.json"), code=2)
    assert "header does not match" in out


def test_typed_dice_need_both_cards(tmp_path: Path) -> None:
    _, b = game(tmp_path)
    out = rp(b, *RALLY, "--dice", "4", code=2)
    assert "need every seat's agreement" in out
