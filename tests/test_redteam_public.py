"""Red team: the public parts of a redacted event, forged by mail (issue 18).

The Soviets hold Finland's sheet events redacted: their hash commits the withheld parts, which
only the reveal can check. What the Soviet database folds of them is their public parts (the
counters they leave, the turn, clock and night). A cheating Finland edits those parts in its
own turn file and signs it again with its own seat key (the redacted hash is kept: nobody but
Finland could check it before the reveal). Every such file is refused on import, with one line
naming the event and the field, and leaves the Soviet database byte-identical: the Soviet table
decides each public part again (``rulesets/tcs/public.py``).

The oracle is the scenario (tests/data/tcs_two_sides.toml: which side each counter fights for,
the turn track) and the honest file, which imports; nothing here calls the check under test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.errors import IntegrityError
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.session import Session
from rallypoint.session.pbem import import_turn
from redteam_kit import Mail, copied, database_bytes, forge, seat_key, seated
from seats_kit import SCENARIO, SHEETS

Edit = Callable[[dict[str, Any]], None]

_BACK = {"steps": 5, "pile": "map", "hex": "23.15"}
"""A dead Finnish counter (1/ErP112-d-*, 5 steps) back on the map."""
_SOVIET_DEAD = {"steps": 0, "pile": "dead", "hex": None}


def _by_type(data: dict[str, Any], kind: str) -> dict[str, Any]:
    found: dict[str, Any] = next(e for e in reversed(data["events"])
                                 if e["type"] == kind)["payload"]  # the latest: new in the file
    assert "$withheld" in found  # the attack is on a redacted event
    return found


def _set(kind: str, key: str, value: Any) -> Edit:
    return lambda data: _by_type(data, kind).__setitem__(key, value)


def _counter(kind: str, counter: str, after: dict[str, Any]) -> Edit:
    return lambda data: _by_type(data, kind)["counters"].__setitem__(counter, after)


def _left(key: str, value: Any) -> Edit:
    return lambda data: _by_type(data, "moved")["left_center"].__setitem__(key, value)


def _moved_elsewhere(data: dict[str, Any]) -> None:
    _by_type(data, "moved")["hex"] = "23.20"  # its counters still say 23.19


def _soviet_moved(data: dict[str, Any]) -> None:
    moved = _by_type(data, "moved")
    moved["counter"] = moved["hex"] and "1/609-1"
    moved["counters"] = {"1/609-1": {"steps": 3, "pile": "map", "hex": "23.19"},
                         **{k: v for k, v in moved["counters"].items() if k != "1/ErP112-1"}}


def _soviet_very_dead(data: dict[str, Any]) -> None:
    moved = _by_type(data, "moved")
    gone = {"steps": 0, "pile": "very_dead", "hex": None}
    moved["left_center"]["very_dead"] = ["1/609-d-1"]
    moved["left_center"]["counters"] = {"1/609-d-1": gone}
    moved["counters"] = {"1/ErP112-1": moved["counters"]["1/ErP112-1"], "1/609-d-1": gone}


def _none_very_dead(data: dict[str, Any]) -> None:
    moved = _by_type(data, "moved")
    moved["left_center"]["very_dead"] = []
    moved["left_center"]["counters"] = {}
    moved["counters"] = {"1/ErP112-1": moved["counters"]["1/ErP112-1"]}


_ACCRUAL = {"sheet": "S-lair", "added": 6, "reason": "no orders", "total": 6}

# (file, edit, seq, type, the refusal's field and values)
FORGERIES: dict[str, tuple[str, Edit, int, str, str]] = {
    "a sheet brings a dead counter back": (
        "a", _counter("sheet_written", "1/ErP112-d-1", _BACK), 2, "sheet_written",
        'counters.1/ErP112-d-1: stated {"hex":"23.15","pile":"map","steps":5}, re-derived '
        "(absent)"),
    "a turn kills a Soviet counter": (
        "a", _counter("turn_advanced", "1/609-1", _SOVIET_DEAD), 3, "turn_advanced",
        'counters.1/609-1: stated {"hex":null,"pile":"dead","steps":0}, re-derived (absent)'),
    "a turn skips ahead": (
        "a", _set("turn_advanced", "turn", 5), 3, "turn_advanced",
        "turn: stated 5, re-derived 2"),
    "a turn falls at night": (
        "a", _set("turn_advanced", "night", True), 3, "turn_advanced",
        "night: stated true, re-derived false"),
    "a turn hides the skipped FO roll": (
        "a", _set("turn_advanced", "fo_skipped", []), 3, "turn_advanced",
        'fo_skipped[0]: stated (absent), re-derived "FO/609-1"'),
    "a turn accrues the reader's sheet": (
        "a", _set("turn_advanced", "accruals", [_ACCRUAL]), 3, "turn_advanced",
        'accruals[0]: stated {"added":6,"reason":"no orders","sheet":"S-lair","total":6}, '
        "re-derived (absent)"),
    "a fired mark heals a counter": (
        "a", _counter("fired", "1/ErP112-1", {**_BACK, "steps": 5}), 4, "fired",
        'counters.1/ErP112-1: stated {"hex":"23.15","pile":"map","steps":5}, re-derived '
        "(absent)"),
    "a reassignment dates itself": (
        "a", _set("reassigned", "turn", 7), 5, "reassigned", "turn: stated 7, re-derived 2"),
    "an attack kills a Soviet counter": (
        "a", _counter("attacked", "1/609-1", _SOVIET_DEAD), 6, "attacked",
        'counters.1/609-1: stated {"hex":null,"pile":"dead","steps":0}, re-derived (absent)'),
    "an owed accrual jumps the turn": (
        "b", _set("accrued", "turn", 9), 9, "accrued", "turn: stated 9, re-derived 3"),
    "an owed accrual accrues the reader's sheet": (
        "b", _set("accrued", "accruals", [{**_ACCRUAL, "turn": 3}]), 9, "accrued",
        'accruals[0]: stated {"added":6,"reason":"no orders","sheet":"S-lair","total":6,…, '
        "re-derived (absent)"),
    "a move heals the counter": (
        "b", _counter("moved", "1/ErP112-1", {"steps": 5, "pile": "map", "hex": "23.19"}), 10,
        "moved", "counters.1/ErP112-1.steps: stated 5, re-derived 3"),
    "a move lands elsewhere": (
        "b", _moved_elsewhere, 10, "moved",
        'counters.1/ErP112-1.hex: stated "23.19", re-derived "23.20"'),
    "a move of a Soviet counter": (
        "b", _soviet_moved, 10, "moved",
        "counter: stated 1/609-1 (soviet's), re-derived a counter of finland's, the sender's"),
    "leaving sends a Soviet counter Very Dead": (
        "b", _soviet_very_dead, 10, "moved",
        "left_center.very_dead: stated 1/609-d-1 (soviet's), re-derived a counter of finland's, "
        "the sender's"),
    "leaving sends nobody Very Dead": (
        "b", _none_very_dead, 10, "moved",
        "left_center.very_dead: stated [], re-derived at least 1 of a Dead Pile holding "
        "1/ErP112's (1/ErP112-d-1, 1/ErP112-d-2, 1/ErP112-d-3)"),
    "leaving for another reason": (
        "b", _left("cause", "forced off its center"), 10, "moved",
        'left_center.cause: stated "forced off its center", re-derived "1/ErP112-1 moved off '
        'its center"'),
    "leaving names another company": (
        "b", _left("company", "2/ErP112"), 10, "moved",
        'left_center.company: stated "2/ErP112", re-derived "1/ErP112"'),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, Mail]]:
    """File "a" (Finland's sheet, a turn, a fired mark, a reassignment, an attack) and file "b"
    (Finland's owed accrual for a Soviet turn, and a move off its center), each with a copy of
    the Soviet database just before it."""
    tmp = tmp_path_factory.mktemp("public")
    game = seated(tmp, SCENARIO, ("finland", "soviet"), "public")
    game.command("finland", SHEETS[0])
    game.command("finland", {"kind": "turn", "skip_fo": True})
    game.command("finland", {"kind": "fired", "sheets": ["F-hideout"]})
    game.command("finland", {"kind": "reassign", "members": ["ErP112"], "other_sheet": True})
    game.command("finland", {"kind": "attack", "members": ["1/ErP112"]})
    a = game.export("finland")
    before_a = copied(game.dbs["soviet"], tmp / "before-a.sqlite3")
    import_turn(game.dbs["soviet"], a)
    game.command("soviet", {"kind": "turn", "skip_fo": True})
    game.send("soviet")  # Finland owes its sheet that turn, and appends it
    game.command("finland", {"kind": "move", "counter": "1/ErP112-1", "hex": "23.19",
                             "leave_center": True})
    b = game.export("finland")
    return {"a": (a, Path(str(before_a.path)), game),
            "b": (b, Path(str(game.dbs["soviet"].path)), game)}


def _soviet(files: dict[str, tuple[Path, Path, Mail]], which: str, target: Path) -> Session:
    return copied(Session(files[which][1]), target)


@pytest.mark.parametrize("which", ["a", "b"])
def test_the_honest_files_import(files: dict[str, tuple[Path, Path, Mail]], which: str,
                                 tmp_path: Path) -> None:
    soviet = _soviet(files, which, tmp_path / "s.sqlite3")
    assert import_turn(soviet, files[which][0]).withheld == {"a": 5, "b": 2}[which]


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_public_part_is_refused_on_import_and_nothing_is_written(
        files: dict[str, tuple[Path, Path, Mail]], name: str, tmp_path: Path) -> None:
    which, edit, seq, kind, field = FORGERIES[name]
    path, _, game = files[which]
    finland = seat_key(game.dbs["finland"], game.campaign, "finland")
    forged = forge(path, tmp_path / "forged.json", edit, finland)
    soviet = _soviet(files, which, tmp_path / "s.sqlite3")
    before = database_bytes(soviet)
    with pytest.raises(IntegrityError) as refused:
        import_turn(soviet, forged)
    assert refused.value.what == (f"#{seq} ({kind}, redacted) is not what the rules give on "
                                  f"this table: {field}")
    assert database_bytes(soviet) == before
    assert json.loads(forged.read_text("utf-8"))["events"][seq - 1]["hash"] == json.loads(
        path.read_text("utf-8"))["events"][seq - 1]["hash"]  # the commitment is untouched


# --- what only the withheld parts decide: caught at the reveal --------------------------------


def test_a_move_off_a_hidden_center_sent_as_a_plain_move_is_refused_at_the_reveal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finland's modified client moves 1/ErP112-1 four hexes off its hidden center (22.15) and
    records a plain move: no leaving, no Dead Pile counter Very Dead. The Soviet table cannot
    know the counter's company recovers (its sheet is withheld), so the move is legal there and
    the import takes it; the reveal, where the sheet is known, decides it again and refuses."""
    from rallypoint.session import commands
    from rallypoint.session.reveal import reveal

    game = seated(tmp_path, SCENARIO, ("finland", "soviet"), "far")
    game.command("finland", SHEETS[0])
    game.send("finland")
    honest = commands._decide

    def stays(*args: Any, **kwargs: Any) -> Any:
        event = honest(*args, **kwargs)
        if event.type == "moved":
            event.payload["left_center"] = None
            event.payload["counters"] = {"1/ErP112-1": event.payload["counters"]["1/ErP112-1"]}
        return event

    monkeypatch.setattr(commands, "_decide", stays)
    game.command("finland", {"kind": "move", "counter": "1/ErP112-1", "hex": "23.19",
                             "leave_center": True})
    monkeypatch.undo()
    moved = json.loads(game.send("finland").read_text("utf-8"))["events"][-1]
    assert moved["type"] == "moved" and "$withheld" not in moved["payload"]  # shown whole
    theirs = game.export("finland", whole=True)
    soviet = game.dbs["soviet"]
    before = database_bytes(soviet)
    with pytest.raises(IntegrityError) as refused:
        reveal(soviet, theirs, tmp_path / "whole.json")
    assert refused.value.what.startswith(
        f"#{moved['seq']} (moved) is not what its command decides: counters.1/ErP112-d-")
    assert not (tmp_path / "whole.json").exists() and database_bytes(soviet) == before


# --- a check and a distribution: the morale rolls and counters they show ----------------------


@pytest.fixture(scope="module")
def implemented() -> list[Any]:
    """Finland's sheet implements (6-6 on the check, then its recovery rolls), and each company
    distributes its steps (a policy's choice, the last with the battalion's morale roll): the
    log as the Soviet database holds it, with the state before each event."""
    from rallypoint.core.visibility import Viewer, is_redacted, redact_events
    from rallypoint.rulesets.tcs.commands import AdvanceTurn, CheckImplementation, WriteSheet
    from tcs_partial_kit import TCS, fresh, partial_fold, record

    c = fresh()
    c = record(c, WriteSheet(expected_version=c.version, sheet="F", members=("ErP112",), size=0,
                             attest=True, centers={"1/ErP112": "23.15", "2/ErP112": "17.21",
                                                   "MG/ErP112": "8.21"}), ())
    for _ in range(3):
        c = record(c, AdvanceTurn(expected_version=c.version, skip_fo=True), ())
    c = record(c, CheckImplementation(expected_version=c.version, sheet="F"), (6, 6, 3, 4, 5))
    while TCS.pending(tcs_state(c)):
        decision = TCS.pending(tcs_state(c))[0]
        c = record(c, TCS.policies()[0].decide(tcs_state(c), decision, c.version), (6,))
    shown = redact_events(c.events, Viewer.of_side("soviet"))
    return [(partial_fold(shown[:k]), r) for k, r in enumerate(shown)
            if r.type in ("implementation_checked", "distributed") and is_redacted(r)]


def _check(state: Any, record: Any, payload: dict[str, Any]) -> Any:
    from tcs_partial_kit import TCS

    return TCS.check_public(state, record.type, payload, "finland")


def test_an_honest_check_and_distribution_pass(implemented: list[Any]) -> None:
    kinds = [r.type for _, r in implemented]
    assert kinds[0] == "implementation_checked" and "distributed" in kinds
    assert any(r.payload.get("morale") for _, r in implemented)  # a morale roll is shown
    assert [_check(state, r, dict(r.payload)) for state, r in implemented] == [
        None] * len(implemented)


def test_a_forged_morale_roll_or_distribution_is_refused(implemented: list[Any]) -> None:
    state, rolled = next((s, r) for s, r in implemented if r.payload.get("morale"))
    roll = rolled.payload["morale"][0]
    better = {**rolled.payload, "morale": [{**roll, "after": roll["after"] - 1}]}
    assert _check(state, rolled, better).path == "morale[0].after"
    soviet = {**rolled.payload, "morale": [{**roll, "formation": "609RR"}]}
    assert _check(state, rolled, soviet).derived == "a battalion of finland's, the sender's"
    state, spread = next((s, r) for s, r in implemented if r.type == "distributed"
                         and r.payload["counters"])
    counters = spread.payload["counters"]
    first = sorted(counters)[0]
    healed = {**spread.payload, "counters": {**counters, first: {
        **counters[first], "steps": counters[first]["steps"] + 1}}}
    assert _check(state, spread, healed).path == f"counters.{first}.steps"
    foreign = {**spread.payload, "heal": {"1/609-1": 1}}
    assert _check(state, spread, foreign).path == "counters"
