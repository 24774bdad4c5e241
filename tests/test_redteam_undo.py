"""Red team: a forged ``undone`` by mail (issue 18).

An undo cancels the latest event that still counts; the fold takes its target as it stands.
A cheating Finland edits the undo in its own turn file, re-hashes and signs it again with its own
seat key: to cancel the Soviets' earlier loss instead of its own last event, or to say it
cancelled something else. Each file is refused on import and by ``verify`` (the target), with
one line naming the event and the field, and the Soviet database is left byte-identical; the
honest file goes in. The oracle is the log itself: which event was last, and what it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from json_kit import at
from rallypoint.core.errors import IntegrityError
from rallypoint.session.pbem import import_turn, verify_file
from redteam_kit import Mail, copied, database_bytes, forge, seat_key, seated
from seats_kit import SCENARIO


@pytest.fixture(scope="module")
def undo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Mail, Path]:
    """The Soviets record a loss (#2) and send it; Finland sets its morale (#3) and undoes it
    (#4). Returns the game and Finland's file (the Soviet database is just before it)."""
    tmp = tmp_path_factory.mktemp("undo")
    game = seated(tmp, SCENARIO, ("finland", "soviet"), "undo")
    game.command("soviet", {"kind": "loss", "counter": "1/609-1", "steps": 1})
    game.send("soviet")
    game.command("finland", {"kind": "morale", "formation": "ErP112", "value": 3})
    game.dbs["finland"].undo(game.campaign)
    path = game.export("finland")
    return game, path


def _undone(data: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = data["events"][-1]["payload"]
    assert data["events"][-1]["type"] == "undone"
    return found


def _target(seq: int) -> Callable[[dict[str, Any]], None]:
    return lambda data: _undone(data).__setitem__("target", seq)


def _summary(data: dict[str, Any]) -> None:
    _undone(data)["summary"] = "1/609-1 (1/609th): 1 step lost"


def test_the_honest_undo_goes_in(undo: tuple[Mail, Path], tmp_path: Path) -> None:
    game, path = undo
    assert _undone(json.loads(path.read_text("utf-8")))["target"] == 3
    soviet = copied(game.dbs["soviet"], tmp_path / "s.sqlite3")
    assert import_turn(soviet, path).new_events == 2
    view = soviet.view(game.campaign)
    assert at(view["state"], "morale", "ErP112") == 4  # the morale change was cancelled
    assert verify_file(path).rederived == 2


@pytest.mark.parametrize(("name", "edit", "field"), [
    ("cancel the Soviet loss instead", "loss", "target: stated 2, re-derived 3"),
    ("say it cancelled the loss", "summary",
     'summary: stated "1/609-1 (1/609th): 1 step lost", re-derived'),
])
def test_a_forged_undo_is_refused_on_import_and_nothing_is_written(
        undo: tuple[Mail, Path], tmp_path: Path, name: str, edit: str, field: str) -> None:
    game, path = undo
    change = {"loss": _target(2), "summary": _summary}[edit]
    forged = forge(path, tmp_path / "forged.json", change,
                   seat_key(game.dbs["finland"], game.campaign, "finland"))
    soviet = copied(game.dbs["soviet"], tmp_path / "s.sqlite3")
    before = database_bytes(soviet)
    with pytest.raises(IntegrityError) as refused:
        import_turn(soviet, forged)
    assert refused.value.what.startswith(
        f"#4 (undone) is not the undo of the log before it: {field}")
    assert database_bytes(soviet) == before
    if edit != "summary":  # the target is what the fold reads: verify checks it too
        with pytest.raises(IntegrityError, match=r"^#4 \(undone\) is not the undo"):
            verify_file(forged)
