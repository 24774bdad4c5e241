"""``--json`` on the play-by-e-mail commands, through the command line: ``seat new``, ``seat
start``, ``export``, ``import``, ``dice answer``, ``dice reveal`` and ``verify FILE`` each print one
JSON object on stdout (the fields of the library's result), and a refusal stays one line on
stderr with exit 2 and nothing on stdout, as for every other ``--json`` command."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from test_pbem_cli import RALLY, SCENARIO, rp

HEX64 = 64


def rp_json(db: Path, *args: str) -> Any:
    """Run a command with ``--json``: exit 0, stdout one JSON document, nothing on stderr."""
    result = CliRunner().invoke(app, ["--db", str(db), *args, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


def refused_json(db: Path, *args: str) -> str:
    """Run a command with ``--json`` that must be refused: exit 2, one line on stderr only."""
    result = CliRunner().invoke(app, ["--db", str(db), *args, "--json"])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    line = result.stderr.strip()
    assert line.startswith("error (") and "\n" not in line, result.stderr
    return line


def test_seats_export_import_answer_and_verify_print_their_results(tmp_path: Path) -> None:
    a, b = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"
    card = rp_json(a, "seat", "new", "french", "--card", str(tmp_path / "f.json"))
    assert card["file"] == str(tmp_path / "f.json") and card["seat"] == "french"
    written = json.loads((tmp_path / "f.json").read_text())
    assert card["card"] == written  # the card as sent, key and anchor included
    digest = hashlib.sha256(bytes.fromhex(written["key"])).hexdigest()
    assert card["fingerprint"] == "-".join(digest[i:i + 4] for i in range(0, 16, 4))
    rp(b, "seat", "new", "allied", "--card", str(tmp_path / "al.json"))

    started = rp_json(a, "seat", "start", SCENARIO, "--card", str(tmp_path / "f.json"),
                      "--card", str(tmp_path / "al.json"), "--name", "farm")
    assert started["seats"] == ["allied", "french"]
    assert started["campaign"]["name"] == "farm" and started["campaign"]["version"] == 1
    assert started["campaign"]["ruleset"] == "squares"

    out = rp_json(a, "export", "--for", "allied", str(tmp_path / "t1.json"))
    assert out == {"file": str(tmp_path / "t1.json"), "events": 1, "sender": "french",
                   "reader": "allied", "request": None, "revealed": False, "withheld": 0,
                   "answered": None, "partial": 0}
    got = rp_json(b, "import", str(tmp_path / "t1.json"))
    assert got["file"] == str(tmp_path / "t1.json")
    assert got["campaign"]["id"] == started["campaign"]["id"]
    assert got["campaign"]["version"] == 1 and got["new_events"] == 1
    assert got["sender"] == "french" and got["fingerprint"] == card["fingerprint"]
    assert (got["request"], got["forked"], got["note"]) == (None, False, None)

    rp(b, *RALLY)  # waits for french's link
    out = rp_json(b, "export", "--for", "french", str(tmp_path / "t2.json"))
    request = out["request"]
    assert (out["sender"], out["reader"]) == ("allied", "french")
    assert request["seat"] == "allied" and request["round"] == 1
    # Sealed (issue 18): a commitment goes out, no command and no link.
    assert len(request["commitment"]) == HEX64
    assert (request["command"], request["link"], request["nonce"]) == (None, None, None)
    got = rp_json(a, "import", str(tmp_path / "t2.json"))
    assert got["request"] == request and got["new_events"] == 0

    answered = rp_json(a, "dice", "answer")  # french's link only; nothing decided here
    assert answered["round"] == 1 and answered["commitment"] == request["commitment"]
    rp(a, "export", "--for", "allied", str(tmp_path / "t3.json"))
    resolved = rp_json(b, "import", str(tmp_path / "t3.json"))["resolved"]
    assert resolved["seq"] == 2 and resolved["type"] == "rallied"
    assert resolved["payload"]["dice_proof"]["round"] == 1
    rp(b, "export", "--for", "french", str(tmp_path / "t4.json"))
    assert rp_json(a, "import", str(tmp_path / "t4.json"))["new_events"] == 1

    verified = rp_json(a, "verify", str(tmp_path / "t4.json"))
    assert verified["events"] == 2 and verified["ok"] is True
    allied_key = json.loads((tmp_path / "al.json").read_text())["key"]
    digest = hashlib.sha256(bytes.fromhex(allied_key)).hexdigest()
    allied = "-".join(digest[i:i + 4] for i in range(0, 16, 4))
    assert (verified["signed_by"], verified["key"]) == ("allied", allied)
    assert verified["withheld"] == 0 and verified["chain"] == "ok"
    assert [e["verdict"] for e in verified["dice"]["events"]] == ["verified"]


def test_a_fork_imported_as_a_new_campaign_says_forked(tmp_path: Path) -> None:
    db, other = tmp_path / "c.sqlite3", tmp_path / "d.sqlite3"
    rp(db, "new", SCENARIO, "--name", "farm")
    rp(db, "export", str(tmp_path / "backup.json"))
    got = rp_json(other, "import", str(tmp_path / "backup.json"), "--as", "copy")
    assert got["forked"] is True and got["campaign"]["name"] == "copy"
    assert got["sender"] is None and got["fingerprint"] is None


def test_dice_reveal_prints_the_secret_the_export_then_carries(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    rp(db, "new", SCENARIO, "--name", "farm")
    rp(db, *RALLY)
    secret = rp_json(db, "dice", "reveal")["secret"]
    assert len(secret) == HEX64 and rp_json(db, "dice", "reveal") == {"secret": secret}
    out = rp_json(db, "export", str(tmp_path / "after.json"))
    assert out["revealed"] is True and out["sender"] is None and out["events"] == 2
    assert json.loads((tmp_path / "after.json").read_text())["turn"]["revealed_secret"] == secret


def test_refusals_under_json_stay_one_line_on_stderr(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite3"
    assert "no campaigns yet" in refused_json(db, "export", str(tmp_path / "x.json"))
    assert not (tmp_path / "x.json").exists()
    rp(db, "new", SCENARIO, "--name", "farm")
    assert "one-player campaign" in refused_json(db, "export", "--for", "allied",
                                                 str(tmp_path / "x.json"))
    (tmp_path / "junk.json").write_text("{}", encoding="utf-8")
    assert "not a rallypoint campaign export" in refused_json(db, "import",
                                                              str(tmp_path / "junk.json"))
    assert "not a rallypoint campaign export" in refused_json(db, "verify",
                                                              str(tmp_path / "junk.json"))
    assert "no dice request waits" in refused_json(db, "dice", "answer")
    assert "seat card" in refused_json(db, "seat", "start", SCENARIO, "--card",
                                       str(tmp_path / "junk.json"))
    assert "seat" in refused_json(db, "seat", "new", "no such side!")
    assert "no campaign" in refused_json(db, "dice", "reveal", "-c", "nosuch")
    assert rp(db, "list").count("farm") == 1  # nothing else was written


def test_a_sealed_round_prints_the_answer_and_the_event_it_resolves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rallypoint.core.visibility import declaration_of
    from test_dice_sealed_pbem import start

    monkeypatch.setattr(type(declaration_of("tcs")), "hides_secrets", True, raising=False)
    start(tmp_path)  # Finland's implementation check waits for a sealed round
    finland, soviet = tmp_path / "f.sqlite3", tmp_path / "s.sqlite3"
    out = rp_json(finland, "export", "-c", "both", str(tmp_path / "t1.json"))
    request = out["request"]
    assert (request["command"], request["nonce"], request["link"]) == (None, None, None)  # sealed
    assert (request["seat"], request["round"], out["answered"]) == ("finland", 1, None)
    assert rp_json(soviet, "import", str(tmp_path / "t1.json"))["request"] == request

    made = rp_json(soviet, "dice", "answer", "-c", "both")
    assert (made["seat"], made["round"]) == ("soviet", 1)
    assert made["commitment"] == request["commitment"] and len(made["link"]) == HEX64
    back = rp_json(soviet, "export", "-c", "both", str(tmp_path / "t2.json"))
    assert back["answered"] == 1 and back["request"] is None

    done = rp_json(finland, "import", str(tmp_path / "t2.json"))
    resolved = done["resolved"]
    assert done["new_events"] == 0 and resolved["type"] == "implementation_checked"
    proof = resolved["payload"]["dice_proof"]
    assert (proof["round"], proof["seat"], proof["commitment"]) == (1, "finland",
                                                                   request["commitment"])
    assert proof["links"]["soviet"] == made["link"]
