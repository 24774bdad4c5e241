"""Red team by mail, fuzzed (issue 18): any edit of any field of any event of a real two-seat
turn file (TCS, and squares with a pair dice round the other seat answered), re-hashed and
re-signed with the sender's own key, is refused by ``import``, and the reader's database stays
byte-identical. The one field exempt is the ``blind``: random by design, so any value of it is a
legal command's result.

Oracle: the edit itself. Every edit changes the file's JSON (checked), and each field of an event
is either an outcome the rules decide, the command that decided it, the dice that proved it, or
chain data; none of them may change without the file being refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rallypoint.core.errors import RallypointError
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.pbem import answer, import_turn
from redteam_kit import Mail, copied, database_bytes, forge, leaves, seat_key, seated
from seats_kit import SCENARIO as TCS_SCENARIO

SQUARES = Path("src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml")


def _tcs(tmp: Path) -> tuple[Mail, str, str, Path]:
    game = seated(tmp, TCS_SCENARIO, ("finland", "soviet"), "t")
    game.command("finland", {"kind": "loss", "counter": "1/ErP112-1", "steps": 2})
    game.command("finland", {"kind": "morale", "formation": "ErP112", "value": 2})
    game.command("finland", {"kind": "move", "counter": "1/ErP112-1", "hex": "22.14"})
    game.command("finland", {"kind": "turn", "skip_fo": True})
    return game, "finland", "soviet", game.export("finland")


def _squares(tmp: Path) -> tuple[Mail, str, str, Path]:
    """French fires on its own unit; the allied rally needs dice: allied asks, French answers
    (deciding allied's command in French's database), and French's file carries both."""
    game = seated(tmp, SQUARES, ("french", "allied"), "farm")
    game.command("french", {"kind": "fire", "unit": "54e", "fire": "bombardment"})
    game.send("french")
    with pytest.raises(AwaitingDice):
        game.command("allied", {"kind": "rally", "leader": "kempt", "unit": "28th",
                                "rally": "disorder"})
    game.send("allied")
    answer(game.dbs["french"], game.campaign)
    game.command("french", {"kind": "move", "who": "54e", "square": "F4"})
    return game, "french", "allied", game.export("french")


GAMES: dict[str, Callable[[Path], tuple[Mail, str, str, Path]]] = {
    "tcs": _tcs, "squares": _squares}


@pytest.fixture(scope="module", params=list(GAMES))
def played(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> tuple[Mail, str, str, Path]:
    return GAMES[request.param](tmp_path_factory.mktemp(request.param))


def _fields(path: Path) -> list[tuple[int, tuple[Any, ...]]]:
    """Every (event index, payload field path) of a file, the blind and a redaction's
    bookkeeping left out."""
    events = json.loads(path.read_text("utf-8"))["events"]
    return [(index, where) for index, event in enumerate(events)
            for where, _ in leaves(event["payload"])
            if where and where[0] not in ("blind", "$redacted")]


def _mutate(value: Any, pick: int) -> Any:
    """A different JSON value of a related kind (``pick`` chooses among the ways)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + (pick % 7 - 3 or 4)
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return value + "x" if pick % 2 or not value else value[:-1]
    if value is None:
        return (0, "x", True)[pick % 3]
    if isinstance(value, list):
        return [*value, value[0] if value else 1] if pick % 2 or not value else value[1:]
    if isinstance(value, dict):
        if value and pick % 2:
            drop = sorted(value)[pick % len(value)]
            return {k: v for k, v in value.items() if k != drop}
        return {**value, "extra": 1}
    raise AssertionError(value)


def _edit(index: int, where: tuple[Any, ...], pick: int) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        parent = data["events"][index]["payload"]
        for step in where[:-1]:
            parent = parent[step]
        parent[where[-1]] = _mutate(parent[where[-1]], pick)
    return edit


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(data=st.data())
def test_any_edit_of_any_field_re_signed_is_refused(
    played: tuple[Mail, str, str, Path], tmp_path: Path, data: st.DataObject,
) -> None:
    game, sender, reader, honest = played
    index, where = data.draw(st.sampled_from(_fields(honest)), label="field")
    pick = data.draw(st.integers(0, 5), label="pick")
    forged = forge(honest, tmp_path / "forged.json", _edit(index, where, pick),
                   seat_key(game.dbs[sender], game.campaign, sender))
    before_json = json.loads(honest.read_text("utf-8"))["events"][index]["payload"]
    after_json = json.loads(forged.read_text("utf-8"))["events"][index]["payload"]
    assert before_json != after_json  # the edit changed something
    target = copied(game.dbs[reader], tmp_path / "reader.sqlite3")
    before = database_bytes(target)
    with pytest.raises(RallypointError):
        import_turn(target, forged)
    assert database_bytes(target) == before


def test_the_honest_files_go_in(played: tuple[Mail, str, str, Path], tmp_path: Path) -> None:
    game, _, reader, honest = played
    target = copied(game.dbs[reader], tmp_path / "reader.sqlite3")
    assert import_turn(target, honest).new_events >= 2
