"""The partial fold of TCS (``apply_redacted``) against the whole fold: the oracle of issue 12.

For any two-side log L and side S, what S may see of the whole fold equals what S may see of the
fold of L as S's database holds it (S's own events whole, the opponent's redacted and folded from
their public parts)::

    redact_state(state_json(fold(L)), S) == redact_state(state_json(partial_fold(L, S)), S)

Property-tested over random command sequences (legal and not, undo included) on a two-side
scenario, for every prefix of every log; a deliberately broken ``apply_redacted`` must fail it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IntegrityError, RallypointError
from rallypoint.core.events import EventRecord
from rallypoint.core.ruleset import Command
from rallypoint.core.visibility import OPEN, WITHHELD, Viewer, declaration_of, redact_events
from rallypoint.rulesets.tcs.commands import (
    AdvanceTurn,
    Attack,
    CheckImplementation,
    LeaveCenter,
    MoveCounter,
    Reassign,
    RecordLoss,
    RollFos,
    SetMorale,
    WriteSheet,
)
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.partial import apply_redacted
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import SheetStatus, TcsState
from tcs_partial_kit import DECLARATION as TCS_SECRETS
from tcs_partial_kit import SIDES, TCS, fresh, partial_fold, record, seen

# --- the oracle -----------------------------------------------------------------------------


def old_format(records: Sequence[EventRecord]) -> list[EventRecord]:
    """Stand-ins that ask ``redact_events`` (``like=``) for the format stored before issue 18."""
    return [r.model_copy(update={"payload": {"$redacted": []}}) for r in records]


def mismatches(records: Sequence[EventRecord], apply: Any = None, *,
               whole_log: bool = True, old: bool = False) -> list[str]:
    """Every (prefix, side) where the side's view of the partial fold differs from the whole.

    The partial fold is the kit's own (``partial_fold``) and, with the real ``apply_redacted``,
    also the core's (``Campaign.from_events`` reads a redacted event as ``Withheld``).
    ``whole_log``: the log was made in one whole database, so nothing is ever owed in it (a
    split game's merged log owes between a turn and its ``accrued``). ``old``: the partial log
    is in the format stored before issue 18 (markers and paths).
    """
    found = []
    for k in range(1, len(records) + 1):
        prefix = records[:k]
        whole = Campaign.from_events(prefix)
        if whole_log:  # every turn accrued every sheet
            assert TCS.owed(tcs_state(whole), whole.version) is None
        for side in SIDES:
            shown = redact_events(prefix, Viewer.of_side(side),
                                  like=old_format(prefix) if old else ())
            if not old:  # issue 18: a sealed turn names every other party, whatever it hides
                assert all(sorted(r.payload[WITHHELD]) == sorted({"@referee", *SIDES} - {side})
                           for r in shown if r.type in ("turn_advanced", "accrued"))
            partial = partial_fold(shown, apply)
            if seen(tcs_state(whole), side) != seen(partial, side):
                found.append(f"seq {k}, {side}")
            elif apply is None:
                # ``created`` whole: from_events reads it without the core's redacted-event
                # path, and this test campaign has a legacy plain seed (withheld for a side).
                core = tcs_state(Campaign.from_events([prefix[0], *shown[1:]]))
                assert seen(core, side) == seen(partial, side)
    return found


# --- commands -------------------------------------------------------------------------------

KINDS = ("loss", "turn", "turn", "turn", "turn", "sheet", "sheet", "check", "check", "check",
         "distribute", "distribute", "morale", "move", "leave", "fo", "undo", "reassign",
         "attack")


def living_hex(state: TcsState, company: str) -> str | None:
    """The hex of a company's first counter on the map."""
    return next((h for i in state.in_pile(company, Pile.MAP)
                 if (h := state.counters[i].hex) is not None), None)


def _pending(state: TcsState) -> list[str]:
    return sorted(k for k, s in state.sheets.items() if s.status is SheetStatus.PENDING)


def draw_command(data: st.DataObject, c: Campaign) -> tuple[str, Command | None]:
    """A random command for the campaign's state, mostly legal (refusals change nothing)."""
    s: TcsState = tcs_state(c)
    v = c.version
    kind = data.draw(st.sampled_from(KINDS))
    steer: bool = data.draw(st.booleans())
    if steer and s.pending_recoveries():
        kind = "distribute"
    companies = sorted(s.oob.companies)
    if kind == "loss":
        on_map = sorted(i for i, x in s.counters.items() if x.pile is Pile.MAP)
        return kind, RecordLoss(
            expected_version=v, counter=data.draw(st.sampled_from(on_map or ["ghost"])),
            steps=data.draw(st.none() | st.integers(1, 3)),
            cause=data.draw(st.sampled_from(["combat", "surrender", "doubles"])))
    if kind == "turn":
        fired = data.draw(st.lists(st.sampled_from(_pending(s) or ["ghost"]), max_size=1))
        return kind, AdvanceTurn(expected_version=v, fired=tuple(fired),
                                 skip_fo=data.draw(st.integers(0, 4)) > 0)
    if kind == "sheet":
        formation = data.draw(st.sampled_from(sorted(s.oob.formations)))
        mine = list(s.oob.companies_under(formation))
        members = data.draw(st.lists(st.sampled_from([formation, *mine]), min_size=1,
                                     max_size=2, unique=True))
        centers = {co: living_hex(s, co) or "20.20" for m in members
                   for co in s.oob.companies_under(m)}
        return kind, WriteSheet(
            expected_version=v, sheet=data.draw(st.sampled_from(["a", "b", "c", "d"])),
            members=tuple(members), centers=centers, size=data.draw(st.integers(0, 1)),
            other_sheet=tuple(data.draw(st.lists(st.sampled_from(members), max_size=1))),
            vehicle=data.draw(st.booleans()), attest=True)
    if kind == "check":
        return kind, CheckImplementation(
            expected_version=v, sheet=data.draw(st.sampled_from(_pending(s) or ["ghost"])))
    if kind == "distribute":
        decisions = TCS.pending(s)
        if not decisions:
            return kind, None
        policy = data.draw(st.sampled_from(list(TCS.policies())))
        return kind, policy.decide(s, data.draw(st.sampled_from(decisions)), v)
    if kind == "morale":
        return kind, SetMorale(expected_version=v, formation=data.draw(
            st.sampled_from(sorted(s.morale))), value=data.draw(st.integers(0, 5)))
    if kind == "move":
        counter = data.draw(st.sampled_from(sorted(s.counters)))
        here = s.counters[counter].hex or "20.20"
        col, row = (int(x) for x in here.split("."))
        far = data.draw(st.integers(0, 4))
        return kind, MoveCounter(expected_version=v, counter=counter,
                                 hex=f"{col + far}.{row:02d}",
                                 leave_center=data.draw(st.booleans()))
    if kind == "leave":
        return kind, LeaveCenter(expected_version=v,
                                 company=data.draw(st.sampled_from(companies)))
    if kind == "fo":
        return kind, RollFos(expected_version=v)
    if kind in ("reassign", "attack"):
        who = (data.draw(st.sampled_from(companies)),)
        if kind == "attack":
            return kind, Attack(expected_version=v, members=who)
        return kind, Reassign(expected_version=v, members=who,
                              other_sheet=data.draw(st.booleans()))
    return kind, None  # undo


def play(data: st.DataObject, steps: int) -> Campaign:
    """A random campaign of up to ``steps`` recorded commands."""
    c = fresh()
    for _ in range(steps):
        kind, command = draw_command(data, c)
        faces = data.draw(st.lists(st.integers(1, 6), max_size=8), label="dice")
        if kind == "check" and data.draw(st.booleans()):
            faces = [6, 6, *faces]  # implements wherever the cell is not '–'
        try:
            if kind == "undo":
                c = c.undo()
            elif command is not None:
                c = record(c, command, faces)
        except RallypointError:
            continue
    return c


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_side_sees_the_same_of_the_partial_fold_as_of_the_whole(
        data: st.DataObject) -> None:
    c = play(data, data.draw(st.integers(5, 45), label="length"))
    assert mismatches(c.events) == []


# --- a fixed game that reaches every kind of redacted event ----------------------------------


def _run(c: Campaign, command: Any, faces: Sequence[int] = ()) -> Campaign:
    return record(c, type(command).model_validate(
        {**command.model_dump(), "expected_version": c.version}), faces)


def _v(model: type[Command], **fields: Any) -> Command:
    return model.model_validate({"expected_version": 0, **fields})


@pytest.fixture(scope="module")
def game() -> Campaign:
    """Both sides write sheets; turns accrue; Finland's implements (morale rolled at its last
    distribution), a Soviet company is attacked, reassigned, and leaves its center."""
    c = fresh()
    c = _run(c, _v(WriteSheet, sheet="F", members=["ErP112"], size=0, attest=True,
                   centers={"1/ErP112": "23.15", "2/ErP112": "17.21", "MG/ErP112": "8.21"}))
    c = _run(c, _v(WriteSheet, sheet="S", members=["1/609", "T/609"], size=0, attest=True,
                   centers={"1/609": "30.10", "T/609": "32.12"}, vehicle=True))
    c = _run(c, _v(AdvanceTurn, skip_fo=True))
    c = _run(c, _v(Attack, members=["1/609"]))
    c = _run(c, _v(AdvanceTurn, fired=["F"]))
    c = _run(c, _v(Reassign, members=["T/609"], other_sheet=True))
    c = _run(c, _v(AdvanceTurn))
    c = _run(c, _v(RecordLoss, counter="1/ErP112-1", steps=1))
    c = _run(c, _v(CheckImplementation, sheet="F"), [6, 6, 3, 4, 5])
    while TCS.pending(tcs_state(c)):
        decision = TCS.pending(tcs_state(c))[0]
        c = record(c, TCS.policies()[0].decide(tcs_state(c), decision, c.version), [6])
    c = _run(c, _v(MoveCounter, counter="T/609-1", hex="40.12", leave_center=True))
    c = _run(c, _v(AdvanceTurn, skip_fo=True))
    c = _run(c, _v(RollFos), [6, 6])
    c = _run(c, _v(SetMorale, formation="609RR", value=3))
    c = _run(c, _v(LeaveCenter, company="1/609"))
    return c


def test_the_fixed_game_reaches_every_redacted_kind(game: Campaign) -> None:
    kinds = {r.type for side in SIDES for r in redact_events(game.events, Viewer.of_side(side))
             if WITHHELD in r.payload}
    assert kinds >= {"sheet_written", "turn_advanced", "attacked", "reassigned",
                     "implementation_checked", "distributed", "moved", "left_center"}
    assert tcs_state(game).morale["ErP112"] < 4  # Finland's battalion recovered morale
    assert mismatches(game.events) == []


def test_a_partial_log_stored_in_the_old_format_still_folds(game: Campaign) -> None:
    # Before issue 18 a redaction left ``{"$withheld": owner}`` markers and a ``$redacted``
    # list of paths; a database holding such a partial log must fold it the same.
    old = redact_events(game.events, Viewer.of_side("soviet"), like=old_format(game.events))
    assert any("$redacted" in r.payload for r in old)
    assert not any(isinstance(r.payload.get(WITHHELD), dict) for r in old)
    assert mismatches(game.events, old=True) == []
    undone = game.undo().undo()
    assert mismatches(undone.events, old=True) == []


def test_every_type_that_hides_something_is_declared_so(game: Campaign) -> None:
    # ``may_hide`` lets an import refuse a public event sent as redacted (issue 18): it must
    # hold for every type the declaration hides something of, and for no other.
    from rallypoint.core.visibility import event_secrets

    hiding = {r.type for r, h in zip(game.events, event_secrets(game.events), strict=True)
              if h.secret and r.type not in ("created", "undone")}
    assert hiding == {t for t in {r.type for r in game.events} if TCS_SECRETS.may_hide(t)}
    assert hiding >= {"sheet_written", "turn_advanced", "implementation_checked", "moved"}


def test_the_fixed_game_after_undoing_its_tail(game: Campaign) -> None:
    c = game
    for _ in range(4):
        c = c.undo()
        assert mismatches(c.events) == []


def test_redacted_payloads_of_an_old_schema_fold_too(game: Campaign) -> None:
    # A campaign begun before schema versions: no ``v`` in its ruleset payloads (version 1).
    old = [r if r.type in ("created", "undone") else r.model_copy(update={"payload": {
        k: v for k, v in r.payload.items() if k != "v"}}) for r in game.events]
    assert all("v" not in r.payload for r in old[1:])
    assert mismatches(old) == []


def _skips(kind: str) -> Any:
    def broken(state: TcsState, event_type: str, payload: Mapping[str, Any]) -> TcsState:
        if event_type == kind:
            return state
        return apply_redacted(state, event_type, payload)
    return broken


def _no_morale(state: TcsState, event_type: str, payload: Mapping[str, Any]) -> TcsState:
    return apply_redacted(state, event_type, {k: v for k, v in payload.items() if k != "morale"})


def _no_own_accruals(state: TcsState, event_type: str, payload: Mapping[str, Any]) -> TcsState:
    return apply_redacted(state, event_type, {**payload, "accruals": []}
                          if event_type == "turn_advanced" else payload)


@pytest.mark.parametrize("broken", [_skips("turn_advanced"), _skips("moved"),
                                    _skips("distributed"), _skips("left_center"),
                                    _no_morale, _no_own_accruals],
                         ids=["no-turns", "no-moves", "no-distributions", "no-leaving",
                              "no-morale", "no-own-accruals"])
def test_a_broken_partial_fold_fails_the_oracle(game: Campaign, broken: Any) -> None:
    assert mismatches(game.events, broken) != []


# --- what a redacted event shows --------------------------------------------------------------


def test_a_redacted_check_shows_its_proofs_numbering_and_its_morale(game: Campaign) -> None:
    shown = redact_events(game.events, Viewer.of_side("soviet"))
    distributions = [r for r in shown if r.type == "distributed"]
    last = distributions[-1].payload
    assert last["morale"] and last["morale"][0]["formation"] == "ErP112"  # public state
    check = next(r for r in shown if r.type == "implementation_checked").payload
    proof = check["dice_proof"]
    assert not {"command", "tape", "links", "nonce"} & set(proof)
    assert proof["mode"] == "pair" and proof["seat"] == "finland"
    assert isinstance(proof["round"], int) and isinstance(proof["position"], int)
    assert check["morale"] == []  # it waited for the distributions
    assert "sheet" not in check and check[WITHHELD] == {"finland": None}


def test_the_own_turn_is_sealed_but_shows_the_own_accruals(game: Campaign) -> None:
    turns = [r for r in redact_events(game.events, Viewer.of_side("finland"))
             if r.type == "turn_advanced"]
    assert all(t.payload[WITHHELD] == {"@referee": None, "soviet": None} for t in turns)
    assert [[a["sheet"] for a in t.payload["accruals"]] for t in turns][:3] == [["F"]] * 3


def test_a_public_part_that_does_not_read_is_refused() -> None:
    state = tcs_state(fresh())
    with pytest.raises(IntegrityError, match="counters do not read"):
        apply_redacted(state, "moved", {"v": 3, "counter": "T/609-1", "hex": "1.01",
                                        "counters": {"T/609-1": {"steps": "many"}},
                                        WITHHELD: {"soviet": None}})
    with pytest.raises(IntegrityError, match="does not fold from its public parts"):
        apply_redacted(state, "turn_advanced", {"v": 3, "clock": "1939-12-13T15:20:00",
                                                "night": False, "accruals": [],
                                                WITHHELD: {"soviet": None}})
    # The old format: a marker where a part the fold needs was.
    with pytest.raises(IntegrityError, match="does not fold from its public parts"):
        apply_redacted(state, "turn_advanced", {"v": 3, "turn": {WITHHELD: "finland"},
                                                "clock": "1939-12-13T15:20:00",
                                                "night": False, "accruals": [],
                                                "$redacted": []})


def test_only_tcs_declares_that_it_hides_secrets() -> None:
    # The sealed pair rounds read this flag: a TCS campaign's request carries no command.
    assert getattr(declaration_of("tcs"), "hides_secrets", False) is True
    for name in ("squares", "platoon"):
        assert getattr(declaration_of(name), "hides_secrets", False) is False
    assert not hasattr(OPEN, "hides_secrets")
