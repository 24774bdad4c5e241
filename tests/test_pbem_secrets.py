"""A turn file ``--for`` a seat holds none of the other side's secrets: the per-viewer filter
(:mod:`rallypoint.core.visibility`, the ruleset's declaration) redacts them, the signed header
binds what was redacted, and ``verify FILE`` checks what the reader can (playing on from such a
file, in the reader's own database, is tests/test_pbem_hidden.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.errors import IntegrityError
from rallypoint.dice.report import Verdict
from rallypoint.session import Session
from rallypoint.session.pbem import create_seated, export_turn, new_seat, verify_file
from seats_kit import SCENARIO, SECRET_OF, SHEETS, execute, scrub


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Session, str, Path]:
    """Both seats at one screen (hot seat: rounds are immediate), each side's sheet written and
    checked with dice; the file is for the Soviet seat."""
    tmp = tmp_path_factory.mktemp("secrets")
    table = Session(tmp / "table.sqlite3")
    cards = [new_seat(table, "finland"), new_seat(table, "soviet")]
    info = create_seated(table, SCENARIO, cards, name="both")
    for command in SHEETS:
        execute(table, info.id, command)
    for _ in range(3):
        # The Soviet FO starts dead at 08:00; its hourly roll is let pass explicitly.
        execute(table, info.id, {"kind": "turn", "skip_fo": True})
    execute(table, info.id, {"kind": "check", "sheet": "F-hideout"})  # round 1: Finland's
    execute(table, info.id, {"kind": "check", "sheet": "S-lair"})  # round 2: the Soviets'
    path = tmp / "for-soviet.json"
    done = export_turn(table, info.id, path, for_seat="soviet")
    assert done.sender == "finland" and done.withheld > 0
    return table, info.id, path


def test_the_file_holds_none_of_finlands_secrets(played: tuple[Session, str, Path]) -> None:
    _, _, path = played
    text = scrub(path.read_text(encoding="utf-8"))
    for secret in SECRET_OF["finland"]:
        assert secret not in text
    assert all(secret in text for secret in SECRET_OF["soviet"])  # the reader's own stay


def test_verify_checks_what_the_reader_can(played: tuple[Session, str, Path]) -> None:
    _, _, path = played
    checked = verify_file(path)
    assert checked.signer == "finland" and checked.withheld > 0
    assert checked.dice.ok
    # The Soviet check's dice (round 2) verify although Finland's round 1 is withheld. Both
    # rounds' numbering is public (so both databases agree on it); round 1's command, tape and
    # links are not.
    verdicts = {e.seq: e.verdict for e in checked.dice.events}
    data = json.loads(path.read_text(encoding="utf-8"))
    proofs = {e["seq"]: e["payload"]["dice_proof"] for e in data["events"]
              if "mode" in (e["payload"].get("dice_proof") or {})}
    assert [p["round"] for p in proofs.values()] == [1, 2]
    first, second = proofs
    assert verdicts[second] is Verdict.VERIFIED and verdicts[first] is Verdict.WITHHELD
    assert not {"command", "tape", "links", "nonce"} & set(proofs[first])
    assert "withheld from you" in checked.dice.summary()


def test_an_edit_of_a_redacted_event_is_caught(played: tuple[Session, str, Path],
                                               tmp_path: Path) -> None:
    _, _, path = played
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    redacted = next(e for e in data["events"] if "$withheld" in e["payload"])
    redacted["payload"]["$withheld"] = {}  # pretend nothing was withheld there
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(IntegrityError, match="withheld events are not the ones"):
        verify_file(bad)


def test_a_backup_for_anyone_is_whole(played: tuple[Session, str, Path], tmp_path: Path) -> None:
    table, ref, _ = played
    path = tmp_path / "backup.json"
    assert export_turn(table, ref, path).withheld == 0
    checked = verify_file(path)
    assert checked.withheld == 0 and checked.dice.ok
