"""Issue 19, TCS: the seed's rule without an extra step, and every open reading made visible.

Source: ../shared/seeds/000_1f347753f65212b7.txt and ../shared/reference/tcs-core-facts.md. The
expected numbers are worked out by hand from those texts (the comments show the sums), never
read back from the code. Each rule here has a switch for the other reading, and a campaign
created before the switch existed (its ``created`` event lacks the key) plays as it was played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import run, tcs_campaign
from rallypoint.core.campaign import Campaign, start
from rallypoint.core.errors import DataFileError, IllegalNowError, MalformedInputError
from rallypoint.core.events import Created, NewEvent
from rallypoint.core.readings import readings_of
from rallypoint.core.registry import get_ruleset
from rallypoint.rulesets.tcs.commands import (
    CheckImplementation,
    LeaveCenter,
    MoveCounter,
    RecordLoss,
)
from rallypoint.rulesets.tcs.data import default_data, resolve_data
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import SheetStatus
from test_tcs_cli import EX1, SHEET, flat, rp
from test_tcs_data import DEFAULTS
from test_tcs_rules import (
    EX1_CENTERS,
    coy,
    ctr,
    ex1_sheet,
    implement,
    last,
    make,
    recovery_roll,
    refuse,
    sheet,
    turns,
    write_scenario,
)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh database for the command-line tests."""
    path = tmp_path / "cli.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    return path


SOVIET_FO = coy("FOs", ctr("FO", kind="fo", steps=1, morale=None))


def fo_pile_after_death(c: Campaign) -> Pile:
    """Where the FO goes when it dies in combat."""
    pile: Pile = tcs_state(run(c, RecordLoss(expected_version=c.version, counter="FO"))).counters[
        "FO"].pile
    return pile


# -- Soviet FOs: 'as soon as an FO dies, put it aside in a pile of its own' ------------------------


def test_a_soviet_sides_fo_goes_to_its_own_pile_without_asking(tmp_path: Path) -> None:
    c = make(tmp_path, SOVIET_FO, nationality="soviet", fo_pile=None)
    assert fo_pile_after_death(c) is Pile.FO
    # Written with an alias of the nationality, too.
    c = make(tmp_path, SOVIET_FO, nationality="Red Army", fo_pile=None, name="alias.toml")
    assert fo_pile_after_death(c) is Pile.FO


@pytest.mark.parametrize(("nationality", "fo_pile", "parameters"), [
    ("soviet", False, None),                       # the scenario turns it off on the side
    ("soviet", None, {"soviet_fo_pile": False}),   # or with the switch
    ("german", None, None),                        # the seed's exception is for Soviet FOs only
])
def test_the_fo_pile_is_off_where_the_scenario_or_the_seed_says(
    tmp_path: Path, nationality: str, fo_pile: bool | None, parameters: dict[str, Any] | None,
) -> None:
    c = make(tmp_path, SOVIET_FO, nationality=nationality, fo_pile=fo_pile, parameters=parameters)
    assert fo_pile_after_death(c) is Pile.DEAD


def test_the_decided_fo_pile_is_stored_with_the_campaign(tmp_path: Path) -> None:
    # A later change of the default cannot change a campaign: the scenario is stored decided.
    c = make(tmp_path, SOVIET_FO, nationality="soviet", fo_pile=None)
    assert c.created.scenario["sides"][0]["fo_pile"] is True


# -- leaving the center: 'Should the recovering formation be forced or moved off its center' -------


def two_formations(tmp_path: Path, **parameters: Any) -> Campaign:
    """``Bn`` (company A, no dead) and ``Bn2`` (company B, two dead) listed separately on one
    sheet, both with their center at 10.10."""
    other = {"id": "Bn2", "side": "blue", "command_prep": 2, "morale": 0,
             "companies": [coy("B", ctr("B-1"), ctr("B-d", pile="dead"),
                               ctr("B-e", pile="dead"))]}
    c = make(tmp_path, coy("A", ctr("A-1"), ctr("A-d", pile="dead")),
             extra_formations=(other,), parameters=parameters or None)
    return sheet(c, members=("Bn", "Bn2"), centers={"Bn": "10.10", "Bn2": "10.10"})


def test_a_formation_leaves_when_it_leaves_not_its_neighbour_at_the_same_hex(
        tmp_path: Path) -> None:
    c = two_formations(tmp_path)
    # The refusal names only the formation that would leave, and half of its own Dead Pile
    # (A has one dead: half of 1, rounded down, is 0).
    refuse(c, MoveCounter(expected_version=c.version, counter="A-1", hex="10.14"),
           IllegalNowError, "the company would leave Recovery Op Sheet s and send 0 Dead Pile")
    c = run(c, MoveCounter(expected_version=c.version, counter="A-1", hex="10.14",
                           leave_center=True))
    s = tcs_state(c).sheets["s"]
    assert (s.companies, s.left, s.status) == (("B",), ("A",), SheetStatus.PENDING)
    assert [tcs_state(c).counters[i].pile for i in ("A-d", "B-d", "B-e")] == [Pile.DEAD] * 3


def test_everyone_at_the_hex_leaves_under_the_other_reading(tmp_path: Path) -> None:
    c = two_formations(tmp_path, shared_center="everyone")
    c = run(c, MoveCounter(expected_version=c.version, counter="A-1", hex="10.14",
                           leave_center=True))
    # Both leave; half of the combined pile of 3 (A-d, B-d, B-e), rounded down, is 1.
    assert tcs_state(c).sheets["s"].status is SheetStatus.CANCELLED
    assert sum(tcs_state(c).counters[i].pile is Pile.VERY_DEAD for i in ("A-d", "B-d", "B-e")) == 1


def test_one_formation_with_companies_at_one_center_still_leaves_together(
        example1: Campaign) -> None:
    # Example #1: '3/112th ErP + the Bn MG go to 8.21' — one formation on the sheet (ErP112),
    # both at 8.21: they leave together; 3/ErP's 4 dead make 2 Very Dead.
    c = ex1_sheet(example1)
    c = run(c, LeaveCenter(expected_version=c.version, company="MG/ErP112"))
    assert tcs_state(c).sheets["rest"].companies == ("1/ErP112", "2/ErP112")
    assert sum(tcs_state(c).counters[f"3/ErP112-d-{n}"].pile is Pile.VERY_DEAD
               for n in (1, 2, 3, 4)) == 2


# -- leave-center --very-dead naming a counter that is not in the pile ---------------------------


@pytest.mark.parametrize(("named", "message"), [
    (("3/ErP112-d-1", "1/ErP112-1"),
     "1/ErP112-1 is not in 3/ErP112 \\+ MG/ErP112's Dead Pile \\(it is on the map and "
     "belongs to 1/ErP112, not 3/ErP112 \\+ MG/ErP112\\)"),
    (("3/ErP112-d-1", "1/ErP112-d-1"),
     "1/ErP112-d-1 is not in 3/ErP112 \\+ MG/ErP112's Dead Pile \\(it is in the Dead Pile and "
     "belongs to 1/ErP112"),
    (("3/ErP112-d-1", "3/ErP112-d-1"), "3/ErP112-d-1 is named twice"),
    (("3/ErP112-d-1",), "sends 2 of 3/ErP112 \\+ MG/ErP112's 4 Dead Pile counter\\(s\\) to the "
                        "Very Dead Pile; 1 named"),
])
def test_leave_center_says_which_named_counter_is_wrong(
    example1: Campaign, named: tuple[str, ...], message: str,
) -> None:
    c = ex1_sheet(example1)
    error = refuse(c, LeaveCenter(expected_version=c.version, company="3/ErP112",
                                  very_dead=named), IllegalNowError, message)
    assert "3/ErP112-d-1, 3/ErP112-d-2, 3/ErP112-d-3, 3/ErP112-d-4" in (error.fix or "")


def test_a_counter_already_very_dead_is_named_as_such(example1: Campaign) -> None:
    c = ex1_sheet(example1)
    refuse(c, LeaveCenter(expected_version=c.version, company="3/ErP112",
                          very_dead=("2/ErP112-vd", "3/ErP112-d-1")), IllegalNowError,
           "2/ErP112-vd is not in .*'s Dead Pile \\(it is in the Very Dead Pile already")


# -- Implementation Table rows 9 and up ------------------------------------------------------------


def test_a_sheet_that_can_never_implement_is_written_with_a_warning(example1: Campaign) -> None:
    # Row 9 = command prep 2 + size 7; facts: rows 9 and up 'cannot implement'.
    c = sheet(example1, members=("ErP112",), name="huge", size=7, centers=EX1_CENTERS)
    assert last(c)["row"] == 9 and last(c)["never_implements"] is True
    assert "warning: row 9 has no cell that implements" in c.ruleset.describe(c.typed[-1])
    small = sheet(example1, members=("ErP112",), name="small", size=6, centers=EX1_CENTERS)
    assert last(small)["never_implements"] is False
    assert "warning" not in small.ruleset.describe(small.typed[-1])


def test_the_check_says_no_number_of_turns_helps(example1: Campaign) -> None:
    c = turns(sheet(example1, members=("ErP112",), name="huge", size=7, centers=EX1_CENTERS), 24)
    error = refuse(c, CheckImplementation(expected_version=c.version, sheet="huge"),
                   IllegalNowError, "no number of weighted turns will implement it")
    assert "[implementation] table" in (error.fix or "")
    assert "Keep accruing" not in (error.fix or "")


def test_a_dash_cell_says_when_accruing_helps(example1: Campaign) -> None:
    # Row 6 (prep 2 + size 4), column 1 is '–'; column 2 (12 weighted turns) needs 65.
    c = turns(sheet(example1, members=("ErP112",), name="big", size=4, centers=EX1_CENTERS))
    error = refuse(c, CheckImplementation(expected_version=c.version, sheet="big"),
                   IllegalNowError, "column 1 of the Implementation Table is '–'")
    assert error.fix == "Keep accruing: at 12 weighted turns (column 2) it needs 65."


ROW_9 = [0, 0, 0, 0, 65, 65, 64, 63, 62, 56, 53]


def with_rows(path: Path, rows: str, source: str = "my TCS 4.01 Tables") -> Path:
    """The scenario at ``path`` with an ``[implementation]`` table appended."""
    text = path.read_text(encoding="utf-8")
    path.write_text(f'{text}\n[implementation]\nsource = "{source}"\n{rows}\n', encoding="utf-8")
    return path


def test_a_scenario_supplies_row_9(tmp_path: Path) -> None:
    path = with_rows(write_scenario(tmp_path, coy("A", ctr("A-1", lost=1))), f"rows.9 = {ROW_9}")
    c = tcs_campaign(path)
    table = tcs_state(c).rules.implementation
    assert table.rows[9] == tuple(ROW_9) and table.rows[8] == default_data().implementation.rows[8]
    assert table.source.endswith("row(s) 9 from the scenario: my TCS 4.01 Tables")
    # Row 9 = prep 2 + size 7. 30 weighted turns reach column 5 (facts: Prep. Defense 30),
    # whose cell on the supplied row is 65: 6,5 implements.
    c = sheet(c, size=7)
    assert last(c)["never_implements"] is False
    c = turns(c, 10)
    assert tcs_state(c).sheets["s"].weighted_turns == 30
    c = run(c, CheckImplementation(expected_version=c.version, sheet="s"), (6, 5, 1))
    assert (last(c)["row"], last(c)["column"], last(c)["needed"], last(c)["implemented"]) == (
        9, 5, 65, True)


@pytest.mark.parametrize(("rows", "message"), [
    ("rows.9 = [0, 0, 65]", "row 9 has 3 cells, expected 11"),
    ("rows.9 = [0, 0, 0, 0, 65, 65, 64, 63, 62, 57, 53]", "57 is not a d66 roll"),
    ("rows.0 = [0, 0, 0, 0, 65, 65, 64, 63, 62, 56, 53]", "row 0"),
])
def test_supplied_rows_are_checked_where_they_are_written(
    tmp_path: Path, rows: str, message: str,
) -> None:
    path = with_rows(write_scenario(tmp_path, coy("A", ctr("A-1"))), rows)
    with pytest.raises(DataFileError, match=message) as info:
        get_ruleset("tcs").load_scenario(path)
    assert "scenario.toml" in (info.value.where or "")


def test_supplied_rows_need_a_source(tmp_path: Path) -> None:
    path = with_rows(write_scenario(tmp_path, coy("A", ctr("A-1"))), f"rows.9 = {ROW_9}",
                     source="")
    with pytest.raises(DataFileError, match="source"):
        get_ruleset("tcs").load_scenario(path)


# -- a company mixing morale units and no-morale units ---------------------------------------------


def mixed(tmp_path: Path, **parameters: Any) -> Campaign:
    """Two rifle platoons of morale 3 and a Soviet tank (no morale), one platoon hurt."""
    company = coy("M", ctr("M-1", morale=3, lost=1), ctr("M-2", morale=3),
                  ctr("M-T", type="tank", steps=1, morale=None), column="inf")
    c = make(tmp_path, company, nationality="soviet", parameters=parameters or None)
    return implement(turns(sheet(c)), (2,))


def test_a_mixed_company_counts_each_tank_as_its_modifier(tmp_path: Path) -> None:
    # 'Units with no morale (tanks and such) have a morale of "0" but use the following
    # modifiers instead': the tank counts 0 + 3 (everyone else). Average of 3, 3, 3 = 3; no
    # second +3. Roll 2 + 3 + battalion 0 = 5.
    roll = recovery_roll(mixed(tmp_path), "M")
    assert [(m.name, m.value) for m in roll.modifiers] == [
        ("average raw morale (3,3,0+3; no-morale units, soviet)", 3), ("battalion morale Bn", 0)]
    assert roll.total == 5


def test_a_mixed_company_per_company_under_the_other_reading(tmp_path: Path) -> None:
    # Average of 3, 3, 0 = 2 (half up), and +3 once: 2 + 2 + 0 + 3 = 7.
    roll = recovery_roll(mixed(tmp_path, no_morale_mix="per_company"), "M")
    assert [(m.name, m.value) for m in roll.modifiers] == [
        ("average raw morale (3,3,0)", 2), ("battalion morale Bn", 0),
        ("no-morale units, soviet", 3)]
    assert roll.total == 7


@pytest.mark.parametrize("reading", ["per_counter", "per_company"])
def test_a_company_of_tanks_reads_the_same_either_way(tmp_path: Path, reading: str) -> None:
    # Example #2's Soviet tank companies add 3 (0 + 'everyone else' +3) under both readings.
    c = make(tmp_path, coy("T", ctr("T-1", type="tank", steps=1, morale=None),
                           ctr("T-d", type="tank", steps=1, morale=None, pile="dead")),
             nationality="soviet", parameters={"no_morale_mix": reading})
    roll = recovery_roll(implement(turns(sheet(c)), (2,)), "T")
    assert [(m.name, m.value) for m in roll.modifiers] == [
        ("average raw morale (0,0)", 0), ("battalion morale Bn", 0),
        ("no-morale units, soviet", 3)]


# -- 'if the enemy has broken into the formation's idea of "the rear"', at check time -------------


def test_the_rear_modifier_is_given_at_check_time(example1: Campaign) -> None:
    # Example #1 at battalion morale 4: each roll adds company morale 1 + battalion 4 = 5; the
    # enemy in the rear of the whole sheet adds 2 more: a die of 1 is 1 + 5 + 2 = 8 (8-10 row).
    base = turns(ex1_sheet(example1), 6)
    c = implement(base, (1, 1, 1), name="rest")
    check = run(base, CheckImplementation(
        expected_version=base.version, sheet="rest", rear_broken={"rest": 2}), (6, 6, 1, 1, 1))
    for company in ("1/ErP112", "2/ErP112", "3/ErP112"):
        assert recovery_roll(c, company).total == 6
        roll = recovery_roll(check, company)
        assert roll.modifiers[-1].name == "the enemy has broken into the rear"
        assert (roll.modifiers[-1].value, roll.total) == (2, 8)


def test_the_rear_modifier_for_one_company_or_formation(example1: Campaign) -> None:
    c = turns(ex1_sheet(example1), 6)
    one = run(c, CheckImplementation(expected_version=c.version, sheet="rest",
                                     rear_broken={"2/erp112": 1}), (6, 6, 1, 1, 1))
    assert [recovery_roll(one, k).total for k in ("1/ErP112", "2/ErP112", "3/ErP112")] == [
        6, 7, 6]
    # A formation and a company of it add up for that company.
    both = run(c, CheckImplementation(expected_version=c.version, sheet="rest",
                                      rear_broken={"ErP112": 1, "3/ErP112": 2}), (6, 6, 1, 1, 1))
    assert [recovery_roll(both, k).total for k in ("1/ErP112", "2/ErP112", "3/ErP112")] == [
        7, 7, 9]


def test_a_rear_modifier_for_something_not_on_the_sheet_is_refused(example1: Campaign) -> None:
    c = turns(sheet(example1, members=("1/ErP112",), centers={"1/ErP112": "23.15"},
                    name="one"), 6)
    refuse(c, CheckImplementation(expected_version=c.version, sheet="one",
                                  rear_broken={"2/ErP112": 1}), MalformedInputError,
           "rear modifier given for '2/ErP112', which is not one nor on it")


# -- 'The units immediately become unassigned (… stay on that one)' in the log --------------------


def test_the_log_says_which_units_became_unassigned(example1: Campaign) -> None:
    c = ex1_sheet(example1, other_sheet=("2/ErP112",))
    c = implement(turns(c, 6), (1, 1, 1), name="rest")
    text = c.ruleset.describe(c.typed[-1])
    assert "  unassigned now: 1/ErP112, 3/ErP112, MG/ErP112" in text.splitlines()
    assert "  stay on their other Op Sheet: 2/ErP112" in text.splitlines()


# -- whose Command Prep rating a sheet of several formations takes -------------------------------


@pytest.mark.parametrize(("reading", "prep"), [("worst", 4), ("best", 2)])
def test_a_sheet_of_two_formations_takes_the_worst_rating_or_the_best(
    tmp_path: Path, reading: str, prep: int,
) -> None:
    # Bn has command prep 2, Bn2 has 4; size 1: row 5 (worst) or row 3 (best).
    c = make(tmp_path, coy("A", ctr("A-1", lost=1)), parameters={"sheet_command_prep": reading},
             extra_formations=({"id": "Bn2", "side": "blue", "command_prep": 4,
                                "companies": [coy("B", ctr("B-1", lost=1))]},))
    c = sheet(c, members=("Bn", "Bn2"), centers={"Bn": "10.10", "Bn2": "10.10"}, size=1)
    assert (last(c)["command_prep"], tcs_state(c).sheets["s"].row) == (prep, prep + 1)


# -- a campaign created before these switches keeps its behaviour ---------------------------------

NEW_KEYS = ("shared_center", "no_morale_mix", "soviet_fo_pile", "sheet_command_prep")


def as_created_before(c: Campaign) -> Campaign:
    """The same campaign as if created before issue 19: its stored rules data lacks the new
    parameters, and its scenario lacks the new fields (the sides' ``fo_pile`` as unset)."""
    created = c.created
    stored = created.model_dump(mode="json")
    data, scenario = stored["rules_data"], stored["scenario"]
    for key in NEW_KEYS:
        del data["parameters"][key]
    scenario.pop("implementation", None)
    for side in scenario["sides"]:
        side.pop("fo_pile")
    return start(NewEvent.of(Created(ruleset="tcs", name=created.name, scenario=scenario,
                                     rules_data=data, seed=created.seed)))


def test_a_campaign_created_before_plays_as_it_was_played(tmp_path: Path) -> None:
    old = as_created_before(two_formations(tmp_path))
    params = tcs_state(old).rules.params
    assert (params.shared_center, params.no_morale_mix, params.soviet_fo_pile) == (
        "everyone", "per_company", False)
    old = sheet(old, members=("Bn", "Bn2"), centers={"Bn": "10.10", "Bn2": "10.10"})
    old = run(old, MoveCounter(expected_version=old.version, counter="A-1", hex="10.14",
                               leave_center=True))
    assert tcs_state(old).sheets["s"].status is SheetStatus.CANCELLED  # both left, as before
    fo = as_created_before(make(tmp_path, SOVIET_FO, nationality="soviet", fo_pile=None,
                                name="fo.toml"))
    assert fo_pile_after_death(fo) is Pile.DEAD  # the Dead Pile, as before the default
    morale = as_created_before(make(tmp_path, coy(
        "M", ctr("M-1", morale=3, lost=1), ctr("M-2", morale=3),
        ctr("M-T", type="tank", steps=1, morale=None), column="inf"), nationality="soviet",
        name="mixed.toml"))
    assert recovery_roll(implement(turns(sheet(morale)), (2,)), "M").total == 7


def test_old_stored_data_still_resolves_and_new_data_stores_every_key() -> None:
    data = resolve_data({})
    assert set(NEW_KEYS) <= set(data["parameters"])
    assert data["parameters"]["shared_center"]["value"] == "own_formation"


# -- through the command line and the web form ----------------------------------------------------


def test_new_says_which_sides_fos_use_their_own_pile(db: Path, tmp_path: Path) -> None:
    path = write_scenario(tmp_path, SOVIET_FO, coy("A", ctr("A-1")), nationality="soviet",
                          fo_pile=None, fo_number=11)
    out = flat(rp("new", str(path), "--name", "fo"))
    assert ("note: blue: a dead FO (FO) goes to its own pile, not the Dead Pile, and rolls 2d6 "
            "every whole hour, back on 11+") in out
    assert "fo_pile = false on the side turns this off" in out
    assert "note" not in rp("new", EX1, "--name", "ex1")


def test_show_and_the_check_through_the_command_line(db: Path) -> None:
    rp("new", EX1, "--name", "t")
    rp(*SHEET[:-3], "--size", "7", "--attest", "--campaign", "t")  # row 9 = prep 2 + size 7
    assert ("warning: rest is on row 9 of the Implementation Table, which has no cell that "
            "implements") in flat(rp("show", "--campaign", "t"))
    out = flat(rp("tcs", "turn", "--count", "3", "--campaign", "t"))
    assert "stopped" not in out  # a warning, not a stop
    assert "warning: rest is on row 9 of the Implementation Table" in out
    rp("new", EX1, "--name", "u")
    rp(*SHEET, "--campaign", "u")
    rp("tcs", "turn", "--count", "6", "--no-stop", "--campaign", "u")
    out = flat(rp("tcs", "check", "rest", "--rear-broken", "2/ErP112=+2", "--dice", "6,6,1,1,1",
                  "--campaign", "u"))
    assert "+2 the enemy has broken into the rear" in out
    assert "unassigned now: 1/ErP112, 2/ErP112, 3/ErP112, MG/ErP112" in out
    assert ("sheet rest: implemented, 18 weighted turns, row 3; centers 1/ErP112@23.15, "
            "2/ErP112@17.21, 3/ErP112@8.21, MG/ErP112@8.21; unassigned now: 1/ErP112, "
            "2/ErP112, 3/ErP112, MG/ErP112") in flat(rp("show", "--campaign", "u"))
    out = rp("tcs", "check", "rest", "--rear-broken", "2/ErP112=two", "--campaign", "u", code=2)
    assert "--rear-broken 2/ErP112='two': not a whole number" in flat(out)


# -- the readings as data a front end prints -------------------------------------------------------


def test_the_readings_are_the_parameters_with_the_campaigns_values(tmp_path: Path) -> None:
    shipped = {r.switch: r for r in readings_of("tcs")}
    assert set(shipped) == set(DEFAULTS)
    mix = shipped["no_morale_mix"]
    assert mix.clause.startswith("seed: ") and mix.value is None
    assert mix.reading.startswith("each no-morale counter counts in the average as 0 plus")
    assert mix.default.startswith('"per_counter" (other choices: "per_company": no-morale '
                                  "counters count 0 in the average")
    assert all(r.reading and r.why for r in shipped.values())
    # A campaign's own values: a scenario's override, and an old campaign's missing keys.
    c = two_formations(tmp_path, shared_center="everyone")
    mine = {r.switch: r.value for r in readings_of("tcs", c.created.model_dump(
        mode="json")["rules_data"])}
    assert (mine["shared_center"], mine["pairing_scope"]) == ('"everyone"', '"company"')
    old = as_created_before(make(tmp_path, coy("A", ctr("A-1")), name="old.toml"))
    before = {r.switch: r.value for r in readings_of("tcs", old.created.model_dump(
        mode="json")["rules_data"])}
    assert before["soviet_fo_pile"] == (
        "false (created before this switch: only a side that sets fo_pile = true uses the FO "
        "pile (how campaigns created before this parameter played))")
    assert str(before["shared_center"]).startswith('"everyone" (created before this switch')
    assert str(before["no_morale_mix"]).startswith('"per_company" (created before this switch')
