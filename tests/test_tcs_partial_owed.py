"""Owed accruals: a turn advanced in the opponent's database accrues only the sheets it knows.

The same commands are played twice: in one whole database, and "split", where each command is
decided in its side's own database (its own events whole, the opponent's redacted, folded through
``apply_redacted``), after the ``accrue`` command ``owed`` gives, as the session appends it before
a seat's own event. The merged log of the split game must fold to exactly the whole game's
state, every check must see the same weighted turns, and each side's database must show what the
whole one shows that side. On a whole log ``owed`` is always ``None``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, RallypointError
from rallypoint.core.events import EventRecord
from rallypoint.core.ruleset import Command
from rallypoint.core.visibility import Viewer, redact_events
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs.commands import Accrue, AdvanceTurn, CheckImplementation
from rallypoint.rulesets.tcs.events import Accrued, ImplementationChecked, TurnAdvanced
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.state import TcsState
from tcs_partial_kit import DECLARATION, SIDES, TCS, fresh, owner_of, partial_fold, record, seen
from test_tcs_partial import draw_command, mismatches

GOLDEN = Path(__file__).parent / "golden" / "logs" / "tcs.json"


def database_of(log: Campaign, side: str, own: Collection[int] = ()) -> TcsState:
    """The state ``side``'s own database folds from the shared chain: the events it decided
    (``own``, seqs) whole, as it stored them, and the rest redacted for it (a sealed turn even
    when it withholds nothing from ``side``)."""
    shown = redact_events(log.events, Viewer.of_side(side))
    return partial_fold([whole if whole.seq in own else seen
                         for whole, seen in zip(log.events, shown, strict=True)])


class Split:
    """Two databases playing one chain: each command decided in its side's database."""

    def __init__(self) -> None:
        self.log = fresh()
        self.own: dict[str, set[int]] = {}

    def database(self, side: str) -> TcsState:
        """``side``'s database now."""
        return database_of(self.log, side, self.own.get(side, set()))

    def _record(self, side: str, command: Command, faces: Sequence[int]) -> None:
        self.log = record(self.log, command, faces, state=self.database(side))
        self.own.setdefault(side, set()).add(self.log.version)

    def act(self, side: str, command: Mapping[str, Any], faces: Sequence[int] = ()) -> None:
        """Bring ``side``'s sheets up to date (owed first), then decide ``command`` there."""
        self.accrue(side)
        self._record(side, TCS.parse_command({**command, "expected_version": self.log.version}),
                     faces)

    def accrue(self, side: str) -> Command | None:
        """Append what ``side``'s database owes, as the session does before its own events."""
        owed = TCS.owed(self.database(side), self.log.version)
        if owed is not None:
            self._record(side, owed, ())
        return owed


def whole(commands: Sequence[tuple[str, Mapping[str, Any], Sequence[int]]]) -> Campaign:
    """The same commands in one whole database (``owed`` stays ``None`` throughout)."""
    c = fresh()
    for _, command, faces in commands:
        c = record(c, TCS.parse_command({**command, "expected_version": c.version}), faces)
        assert TCS.owed(tcs_state(c), c.version) is None
    return c


SHEET_F = {"kind": "write_sheet", "sheet": "F", "members": ["ErP112"], "size": 0,
           "attest": True,
           "centers": {"1/ErP112": "23.15", "2/ErP112": "17.21", "MG/ErP112": "8.21"}}
SHEET_S = {"kind": "write_sheet", "sheet": "S", "members": ["1/609", "T/609"], "size": 0,
           "attest": True, "vehicle": True, "centers": {"1/609": "30.10", "T/609": "32.12"}}
TURN = {"kind": "turn", "skip_fo": True}

# 15:00, 15:20, 15:40, then night from 16:00 in hour turns: turns 4 and on are night turns.
SCRIPT: list[tuple[str, Mapping[str, Any], Sequence[int]]] = [
    ("finland", SHEET_F, ()),
    ("soviet", SHEET_S, ()),
    ("finland", TURN, ()),  # turn 2 in Finland's database: S is not accrued there
    ("finland", TURN, ()),  # turn 3
    ("finland", TURN, ()),  # turn 4, the first night turn
    ("soviet", {"kind": "attack", "members": ["1/609"]}, ()),  # owed 2-4 first; attacked on 4
    ("finland", TURN, ()),  # turn 5: S attacked the turn before, so fired upon
    ("finland", TURN, ()),  # turn 6
    ("soviet", {"kind": "reassign", "members": ["T/609"], "other_sheet": True}, ()),
    ("soviet", TURN, ()),  # turn 7 in the Soviet database: F misses it
    ("soviet", TURN, ()),  # turn 8
    ("finland", {"kind": "check", "sheet": "F"}, (6, 6, 3, 4, 5)),  # owed 7, 8 first
    ("finland", TURN, ()),  # turn 9
    ("soviet", {"kind": "check", "sheet": "S"}, (3, 1)),  # owed 9 first; misses
]


@pytest.fixture(scope="module")
def split() -> Split:
    played = Split()
    for side, command, faces in SCRIPT:
        played.act(side, command, faces)
    for side in SIDES:  # before the reveal
        played.accrue(side)
    return played


def _checks(events: Sequence[Any]) -> list[tuple[str, int, int, int, bool]]:
    return [(e.sheet, e.weighted_turns, e.column, e.needed, e.implemented) for e in events
            if isinstance(e, ImplementationChecked)]


def test_the_split_game_folds_to_the_whole_game(split: Split) -> None:
    reference = whole(SCRIPT)
    assert TCS.state_json(tcs_state(split.log)) == TCS.state_json(tcs_state(reference))
    weighted = {k: s.weighted_turns for k, s in tcs_state(split.log).sheets.items()}
    assert weighted == {k: s.weighted_turns for k, s in tcs_state(reference).sheets.items()}
    for side in SIDES:
        assert seen(split.database(side), side) == seen(tcs_state(reference), side)
        assert TCS.owed(split.database(side), split.log.version) is None
    assert mismatches(split.log.events, whole_log=False) == []


def test_a_check_after_owed_sees_the_whole_games_total(split: Split) -> None:
    reference = whole(SCRIPT)
    assert _checks(split.log.typed) == _checks(reference.typed)
    # F: turns 2-3 unassigned (3 each), 4-8 night turns (2 each): checked at turn 8 with
    # 3 + 3 + 2 + 2 + 2 + 2 + 2 = 16 (7 and 8 accrued as owed, just before the check).
    assert _checks(split.log.typed)[0][:2] == ("F", 16)


def test_owed_accruals_take_each_turns_night_and_attack(split: Split) -> None:
    owed = [(e.turn, [(a.sheet, a.turn, a.added, a.reason, a.total) for a in e.accruals])
            for e in split.log.typed if isinstance(e, Accrued)]
    assert owed == [
        # The Soviets' first command, at turn 4: turns 2 and 3 by day (unassigned: 3), turn 4
        # the first night turn (2): each missed turn with its own night flag.
        (4, [("S", 2, 3, "unassigned", 3), ("S", 3, 3, "unassigned", 6),
             ("S", 4, 2, "night turn", 8)]),
        # Turn 5 follows the attack on turn 4 (fired upon: 1); turn 6 is a night turn (2).
        (6, [("S", 5, 1, "attacked: fired upon", 9), ("S", 6, 2, "night turn", 11)]),
        # Finland missed the Soviets' turns 7 and 8 (night).
        (8, [("F", 7, 2, "night turn", 14), ("F", 8, 2, "night turn", 16)]),
        # Turn 9 with T/609 on another Op Sheet (reassigned on turn 6): 2.
        (9, [("S", 9, 2, "on another Op Sheet", 17)]),
    ]


def test_an_owed_event_is_the_owners_secret_and_sealed(split: Split) -> None:
    for side in SIDES:
        shown = [r for r in redact_events(split.log.events, Viewer.of_side(side))
                 if r.type == "accrued"]
        assert shown and all("$withheld" in r.payload for r in shown)
        other = {"finland": "S", "soviet": "F"}[side]
        assert all(a["sheet"] != other for r in shown for a in r.payload["accruals"])
        summaries = [DECLARATION.public_summary(r.type, r.payload) for r in shown]
        assert all(s.startswith("owed weighted turns, to turn ") for s in summaries)
    line = TCS.describe(next(e for e in split.log.typed if isinstance(e, Accrued)))
    assert line == ("owed weighted turns, to turn 4 (turns the other side advanced): S turn 2 "
                    "+3 (unassigned), turn 3 +3 (unassigned), turn 4 +2 (night turn) = 8")


def test_nothing_is_owed_on_a_whole_log() -> None:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    records = [EventRecord.model_validate(e) for e in data["events"]]
    c = Campaign.from_events(records[:1])
    for r in records[1:]:
        c = c.with_event(r)
        assert TCS.owed(tcs_state(c), c.version) is None


def test_a_turn_or_check_on_stale_weighted_turns_is_refused() -> None:
    # The Soviet database after Finland's first two turns: S is behind.
    played = Split()
    for side, step, faces in SCRIPT[:4]:
        played.act(side, step, faces)
    behind = played.database("soviet")
    assert TCS.owed(behind, played.log.version) == Accrue(expected_version=played.log.version)
    stale: tuple[Command, ...] = (
        AdvanceTurn(expected_version=played.log.version, skip_fo=True),
        CheckImplementation(expected_version=played.log.version, sheet="S"))
    for command in stale:
        with pytest.raises(IllegalNowError, match="have not accrued"):
            TCS.decide(behind, command, ScriptedRoller((6, 6)))
    with pytest.raises(IllegalNowError, match="no pending sheet is owed"):
        TCS.decide(played.database("finland"),
                   Accrue(expected_version=played.log.version), ScriptedRoller(()))


# --- random games, split and whole ----------------------------------------------------------


def _actor(data: st.DataObject, c: Campaign, command: Command) -> str:
    """Who makes ``command``: its owner; a turn naming a fired sheet, that sheet's owner (no
    other database knows the sheet); a turn or anything else of no one side, either."""
    if isinstance(command, AdvanceTurn) and command.fired:
        return _sheet_owner(c, command.fired[0])
    return owner_of(c, command) or data.draw(st.sampled_from(SIDES))


def _sheet_owner(c: Campaign, sheet: str) -> str:
    companies = tcs_state(c).sheets[sheet].companies
    return tcs_state(c).oob.side_of(companies[0]) if companies else SIDES[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_split_games_fold_to_the_whole_game(data: st.DataObject) -> None:
    reference, played = fresh(), Split()
    for _ in range(data.draw(st.integers(5, 35), label="length")):
        kind, command = draw_command(data, reference)
        if command is None or kind == "undo":
            continue
        faces = data.draw(st.lists(st.integers(1, 6), max_size=8), label="dice")
        if kind == "check" and data.draw(st.booleans()):
            faces = [6, 6, *faces]
        try:
            reference = record(reference, command, faces)
        except RallypointError:
            continue
        assert TCS.owed(tcs_state(reference), reference.version) is None
        side = _actor(data, reference, command)
        played.act(side, command.model_dump(mode="json", exclude={"expected_version"}), faces)
        decided, expected = played.log.typed[-1], reference.typed[-1]
        if isinstance(expected, TurnAdvanced):
            assert isinstance(decided, TurnAdvanced)
            assert (decided.turn, decided.clock, decided.night) == (
                expected.turn, expected.clock, expected.night)
        else:
            assert decided.model_dump(exclude={"dice_proof", "blind"}) == expected.model_dump(
                exclude={"dice_proof", "blind"})
    for side in SIDES:
        played.accrue(side)
    assert TCS.state_json(tcs_state(played.log)) == TCS.state_json(tcs_state(reference))
    for side in SIDES:
        assert seen(played.database(side), side) == seen(tcs_state(reference), side)
    # The oracle holds on the split game's merged log too, at every prefix.
    assert mismatches(played.log.events, whole_log=False) == []
