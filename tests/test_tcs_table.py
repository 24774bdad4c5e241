"""TCS at the table (issue 10): rules a player could skip or misread, pinned in the library.

A dead FO's hourly roll cannot be passed silently; a recovering formation can be reassigned to
or off another Op Sheet and attacked (treated as No Orders), both as typed events; an attested
seam count is kept in its event; ids in any case, with "did you mean". Expected values come from
the seed (000_1f347753f65212b7.txt) and the core facts (weighted-turn rates 3 / 2 / 1).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import last_event, run
from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import (
    Fix,
    IllegalNowError,
    MalformedInputError,
    RallypointError,
    UnknownIdError,
)
from rallypoint.rulesets.tcs.commands import (
    AdvanceTurn,
    Attack,
    Distribute,
    MoveCounter,
    Reassign,
    RecordLoss,
    RollFos,
    WriteSheet,
)
from rallypoint.rulesets.tcs.events import READER, Accrual, SheetWritten, TurnAdvanced
from rallypoint.rulesets.tcs.fixes import PLAIN, FixKind
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.outlook import DueKind, due_now, sheet_outlook
from rallypoint.rulesets.tcs.scenario import Pile
from test_tcs_rules import (
    coy,
    ctr,
    fo_campaign,
    implement,
    last,
    make,
    refuse,
    sheet,
    turns,
)

# -- the dead FOs' hourly roll ---------------------------------------------------------------------


def test_a_turn_cannot_leave_an_hour_whose_fo_roll_is_due(tmp_path: Path) -> None:
    # Seed: "on every whole hour, roll two dice for each dead FO." At 08:00 the FO is dead and
    # not rolled: moving on to 08:20 would lose the roll, so it is refused until rolled.
    c = fo_campaign(tmp_path)
    assert [d.kind for d in due_now(tcs_state(c))] == [DueKind.FO]
    error = refuse(c, AdvanceTurn(expected_version=c.version), IllegalNowError, "is due")
    # The rules name the fix by kind and say it in plain words; the CLI words it with its
    # commands (test_tcs_cli: `rallypoint tcs fo`, --skip-fo).
    assert error.typed_fix == Fix("tcs", "roll_fo_first", PLAIN[FixKind.ROLL_FO_FIRST])
    assert str(error).endswith("leaving the hour would lose it. Roll it first, or let the hour "
                               "pass without it.")
    rolled = run(c, RollFos(expected_version=c.version), (1, 1))
    assert due_now(tcs_state(rolled)) == ()
    assert tcs_state(turns(rolled)).clock.minute == 20


def test_skipping_a_due_fo_roll_is_logged(tmp_path: Path) -> None:
    c = fo_campaign(tmp_path)
    c = run(c, AdvanceTurn(expected_version=c.version, skip_fo=True))
    assert last(c)["fo_skipped"] == ["FO"]
    assert "the due FO roll was skipped: FO stay dead this hour" in c.describe(c.version)
    # 08:20 and 08:40 are not whole hours: nothing is due, turns go on.
    c = turns(c, 2)
    assert tcs_state(c).clock.hour == 9 and [d.kind for d in due_now(tcs_state(c))] == [DueKind.FO]


# -- reassignment (another Op Sheet) ---------------------------------------------------------------


def two_company_sheet(tmp_path: Path) -> Campaign:
    c = make(tmp_path, coy("A", ctr("A-1", lost=1)), coy("B", ctr("B-1", lost=1)))
    return sheet(c)


def test_reassignment_onto_another_sheet_changes_the_accrual(tmp_path: Path) -> None:
    c = turns(two_company_sheet(tmp_path))
    assert tcs_state(c).sheets["s"].weighted_turns == 3  # unassigned: 3
    c = run(c, Reassign(expected_version=c.version, members=("a",), other_sheet=True,
                        reason="holds the ridge"))
    assert last(c) == {"v": 3, "counters": {}, "sheet": "s", "companies": ["A"],
                       "other_sheet": True, "turn": 2, "reason": "holds the ridge"}
    assert tcs_state(c).sheets["s"].other_sheet == ("A",)
    assert c.describe(c.version) == "A (s) now also on another Op Sheet — holds the ridge"
    c = turns(c)
    assert last_event(c, TurnAdvanced).accruals[0] == Accrual(
        sheet="s", added=2, reason="on another Op Sheet", total=5)
    # On implementation A stays on its other sheet, B becomes unassigned (seed).
    c = implement(c, (6, 6))
    assert (last(c)["unassigned"], last(c)["stays_assigned"]) == (["B"], ["A"])


def test_reassignment_off_the_other_sheet_and_refusals(tmp_path: Path) -> None:
    c = two_company_sheet(tmp_path)
    refuse(c, Reassign(expected_version=c.version, members=("A",), other_sheet=False),
           IllegalNowError, "not on another Op Sheet")
    c = run(c, Reassign(expected_version=c.version, members=("Bn",), other_sheet=True))
    assert tcs_state(c).sheets["s"].other_sheet == ("A", "B")
    c = run(c, Reassign(expected_version=c.version, members=("B",), other_sheet=False))
    assert tcs_state(c).sheets["s"].other_sheet == ("A",)
    free = make(tmp_path, coy("C", ctr("C-1")), name="free.toml")
    refuse(free, Reassign(expected_version=free.version, members=("C",), other_sheet=True),
           IllegalNowError, "not recovering")


# -- attacked: treated as No Orders ----------------------------------------------------------------


def test_an_attacked_recovering_formation_is_no_orders_and_fired_upon(tmp_path: Path) -> None:
    c = two_company_sheet(tmp_path)
    c = turns(c)
    c = run(c, Attack(expected_version=c.version, members=("B",), note="Soviet raid"))
    assert last(c)["companies"] == ["B"] and last(c)["sheets"] == ["s"]
    assert c.describe(c.version) == ("B attacked while recovering (s): treated as No Orders, "
                                     "fired upon this turn — Soviet raid")
    assert [(d.kind, d.text) for d in due_now(tcs_state(c)) if d.kind is DueKind.NO_ORDERS] == [
        (DueKind.NO_ORDERS, "B was attacked this turn: treat it as a formation with No Orders")]
    # The outlook plans the coming accrual at the fired-upon rate, as the turn then gives.
    assert sheet_outlook(tcs_state(c), "s", 1).checks[-1].weighted_turns == 4
    c = turns(c)
    assert last_event(c, TurnAdvanced).accruals[0] == Accrual(
        sheet="s", added=1, reason="attacked: fired upon", total=4)
    # The attack was that turn's: the next one accrues 3 again, and no one is No Orders.
    assert not [d for d in due_now(tcs_state(c)) if d.kind is DueKind.NO_ORDERS]
    assert last_event(turns(c), TurnAdvanced).accruals[0].added == 3


def test_only_a_recovering_formation_can_be_recorded_attacked(tmp_path: Path) -> None:
    c = make(tmp_path, coy("A", ctr("A-1")))
    refuse(c, Attack(expected_version=c.version, members=("A",)), IllegalNowError,
           "not recovering")
    refuse(c, Attack(expected_version=c.version, members=("Z",)), UnknownIdError, "no formation")


def test_old_events_read_at_the_new_schema() -> None:
    # A v2 turn (before fo_skipped) and a v1 sheet (no version, before attest_distance) read.
    turn = READER.read("turn_advanced", {"v": 2, "counters": {}, "turn": 2,
                                         "clock": "1940-01-10T08:20:00", "night": False,
                                         "accruals": []})
    assert isinstance(turn, TurnAdvanced) and turn.v == 3 and turn.fo_skipped == ()
    written = READER.read("sheet_written", {
        "counters": {}, "sheet": "s", "members": ["Bn"], "companies": ["A"],
        "centers": {"A": "10.10"}, "other_sheet": [], "size": 0, "command_prep": 2, "row": 2,
        "vehicle": False, "turn": 1})
    assert isinstance(written, SheetWritten)
    assert written.v == 3 and written.attest_distance is None


# -- attested seam counts --------------------------------------------------------------------------


def seam(tmp_path: Path) -> Campaign:
    """S-1 at B1.10 on section B; its center A10.10 across the seam; two dead platoons."""
    return make(tmp_path, coy("S", ctr("S-1", hex="B1.10"), ctr("S-d", pile="dead"),
                              ctr("S-e", pile="dead")))


def test_the_attested_seam_count_is_stored_in_its_event(tmp_path: Path) -> None:
    c = sheet(seam(tmp_path), centers={"Bn": "A10.10"}, attest_distance=2)
    assert last(c)["attest_distance"] == 2
    assert c.describe(c.version).endswith("; attested 2 hex(es) across a map seam")
    c = run(c, MoveCounter(expected_version=c.version, counter="S-1", hex="B2.10",
                           attest_distance=1))
    assert last(c)["attest_distance"] == 1
    assert c.describe(c.version) == "S-1 moves to B2.10 (attested 1 hex(es) across a map seam)"
    # No count attested: the event says so with null.
    plain = make(tmp_path, coy("P", ctr("P-1")), name="plain.toml")
    plain = sheet(plain)
    assert last(plain)["attest_distance"] is None


def test_a_counter_resurrected_across_a_seam_needs_an_attested_placement(tmp_path: Path) -> None:
    # Seed: a resurrected counter "is placed in any protected or partly protected hex in or
    # adjacent to the center hex". B1.10 may be next to A10.10 across the seam: the player
    # counts it; the engine cannot.
    c = sheet(seam(tmp_path), centers={"Bn": "A10.10"}, attest_distance=2)
    c = implement(turns(c), (6,))  # 6 + 1 = 7: four steps
    back = Distribute(expected_version=c.version, company="S", resurrect={"S-d": 4},
                      very_dead=("S-e",), place={"S-d": "B1.11"})
    error = refuse(c, back, IllegalNowError, "different map sections")
    assert error.typed_fix is not None and error.typed_fix.key == FixKind.ATTEST_PLACEMENT
    assert "attest the count across the seam (0 or 1)" in str(error)
    with pytest.raises(ValueError):
        Distribute.model_validate({**back.model_dump(), "attest_distance": 2})
    c = run(c, back.model_copy(update={"attest_distance": 1}))
    state = tcs_state(c)
    assert (state.counters["S-d"].pile, state.counters["S-d"].hex) == (Pile.MAP, "B1.11")
    assert last(c)["attest_distance"] == 1
    assert "attested 1 hex(es) across a map seam" in c.describe(c.version)


def test_a_resurrection_on_the_centers_section_needs_no_attestation(tmp_path: Path) -> None:
    c = sheet(seam(tmp_path), centers={"Bn": "A10.10"}, attest_distance=2)
    c = implement(turns(c), (6,))
    c = run(c, Distribute(expected_version=c.version, company="S", resurrect={"S-d": 4},
                          very_dead=("S-e",), place={"S-d": "a10.11"}))
    assert tcs_state(c).counters["S-d"].hex == "A10.11" and last(c)["attest_distance"] is None


# -- ids in any case, with suggestions -------------------------------------------------------------


def test_ids_match_in_any_case_and_events_keep_the_scenarios_spelling(
        example1: Campaign) -> None:
    c = run(example1, RecordLoss(expected_version=example1.version, counter="1/erp112-1",
                                 steps=1))
    assert last(c)["counter"] == "1/ErP112-1" and tcs_state(c).counters["1/ErP112-1"].steps == 2
    c = sheet(c, members=("erp112",), name="rest", centers={
        "erp112": "8.21", "1/ERP112": "23.15", "2/erp112": "17.21"})
    assert last(c)["companies"] == ["1/ErP112", "2/ErP112", "3/ErP112", "MG/ErP112"]
    assert last(c)["centers"]["1/ErP112"] == "23.15"
    c = run(c, AdvanceTurn(expected_version=c.version, fired=("REST",)))
    assert last_event(c, TurnAdvanced).accruals[0].reason == "fired or fired upon"


@pytest.mark.parametrize(("command", "message"), [
    (lambda v: RecordLoss(expected_version=v, counter="1/ErP112-l"),
     "no counter '1/ErP112-l' in this scenario. Did you mean 1/ErP112-1"),
    (lambda v: WriteSheet(expected_version=v, sheet="s", members=("ErP113",),
                          centers={"ErP113": "8.21"}, size=0, attest=True),
     "no formation or company 'ErP113' in this scenario. Did you mean ErP112"),
    (lambda v: Attack(expected_version=v, members=("3/ErP12",)),
     "Did you mean 3/ErP112"),
])
def test_an_unknown_id_suggests_the_nearest(example1: Campaign, command: object,
                                            message: str) -> None:
    error = refuse(example1, command(example1.version), UnknownIdError)  # type: ignore[operator]
    assert message in str(error)
    assert error.typed_fix is not None and error.typed_fix.lead.startswith("Did you mean ")
    assert str(error).endswith("ids the campaign shows.") or str(error).endswith(
        "id the campaign shows.")


def test_ids_that_differ_only_by_case_are_refused_not_guessed(tmp_path: Path) -> None:
    c = make(tmp_path, coy("A", ctr("ab-1"), ctr("AB-1")))
    c = run(c, RecordLoss(expected_version=c.version, counter="AB-1", steps=1))
    assert last(c)["counter"] == "AB-1"
    error = refuse(c, RecordLoss(expected_version=c.version, counter="Ab-1"),
                   MalformedInputError)
    assert "'Ab-1' could be ab-1 or AB-1" in str(error)


def test_scenario_problems_name_types_and_parameters_in_words(tmp_path: Path) -> None:
    # Issue 10: no Python reprs ("[<CounterType.INF: 'inf'>, …]") in what a player reads.
    with pytest.raises(RallypointError) as mixed:
        make(tmp_path, coy("M", ctr("M-1"), ctr("M-t", type="tank", steps=1, morale=None)))
    assert "company 'M' mixes inf, tank: set column = one of inf, hwy, to, tank" in str(mixed.value)
    with pytest.raises(RallypointError) as param:
        make(tmp_path, coy("A", ctr("A-1")), parameters={"pairing_scope": "army"},
             name="p.toml")
    assert str(param.value).endswith("Use one of: company, formation.")
