"""The shipped two-sided TCS scenario (``tolvajarvi_two_sides``): listed by ``rallypoint
scenarios``, started by its short name, both sides with formations and sheets to write, the
Soviet FOs on the seed's FO rule, each side's sheet prefix enforced.

Oracles: the Finnish side is compared with the shipped Example #1 file (the seed's example), and
the FO rule with the seed's text (a dead FO goes to its own pile and rolls every whole hour).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from json_kit import at, items, obj
from rallypoint.cli.main import app
from rallypoint.core.errors import RallypointError
from rallypoint.core.registry import get_ruleset
from rallypoint.rulesets.tcs.commands import WriteSheet
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.outlook import due_now
from rallypoint.session import Session

TCS = get_ruleset("tcs")
SHIPPED = {p.stem: p for p in TCS.example_scenarios()}
TWO = SHIPPED["tolvajarvi_two_sides"]


def test_it_is_listed_with_its_short_name_and_title(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RALLYPOINT_DB", str(tmp_path / "x.db"))
    monkeypatch.setenv("COLUMNS", "80")
    listed = CliRunner().invoke(app, ["scenarios"])
    assert listed.exit_code == 0, listed.output
    row = " ".join(listed.output.split())
    assert ("tolvajarvi_two_sides tcs Tolvajärvi, both sides: the ErP 112th against a Soviet "
            "rifle battalion") in row
    assert all(len(line) <= 80 for line in listed.output.splitlines())
    made = CliRunner().invoke(app, ["new", "tolvajarvi_two", "--name", "two"])
    assert made.exit_code == 0, made.output
    assert re.match(r"created campaign two \(tcs, id [0-9a-f]{8}\)", made.output)


def test_the_finnish_side_is_example_one_and_every_soviet_number_is_marked_assumed() -> None:
    two, ex1 = TCS.load_scenario(TWO), TCS.load_scenario(SHIPPED["example1_tolvajarvi"])
    formations = items(two, "formations")
    assert [f for f in formations if at(f, "side") == "finland"] == ex1["formations"]
    soviet = [f for f in formations if at(f, "side") == "soviet"]
    assert [at(f, "id") for f in soviet] == ["609RR"]
    assert at(two, "scenario", "fo_recovery_number") == 12  # the seed's A Frozen Hell guideline
    # What the seed does not give is marked, as in the seed's examples, with its source.
    assert "the Soviet side is ASSUMED" in str(at(two, "scenario", "source"))
    assert "Every Soviet number is ASSUMED" in str(at(two, "scenario", "notes"))
    text = TWO.read_text(encoding="utf-8")
    assert "# --- the Soviet side: ASSUMED throughout" in text


def test_both_sides_write_sheets_with_their_prefix_and_the_soviet_fos_use_their_pile(
        tmp_path: Path) -> None:
    session = Session(tmp_path / "two.db")
    info = session.create(TWO, name="two")
    c = session.load(info.id)
    state = TCS.state_json(c.state)
    fo = obj(state, "companies", "FO/609", "counters")
    assert (at(fo, "FO/609-1", "pile"), at(fo, "FO/609-2", "pile")) == ("fo", "map")
    due = " ".join(d.text for d in due_now(tcs_state(c)))
    assert "the dead FOs roll at 08:00 (FO/609-1)" in due
    sheets = [("F-rest", ("ErP112",), {"ErP112": "8.21", "1/ErP112": "23.15",
                                      "2/ErP112": "17.21"}),
              ("S-rest", ("609RR",), {"609RR": "31.11", "1/609": "30.10", "2/609": "31.12"})]
    for version, (name, members, centers) in enumerate(sheets, start=1):
        done = session.execute(info.id, WriteSheet(expected_version=version, sheet=name,
                                                   members=members, centers=centers, size=1,
                                                   attest=True))
        assert f"Recovery Op Sheet {name} written" in done.summary
    # A Soviet formation on a sheet named with Finland's prefix is refused, nothing written.
    with pytest.raises(RallypointError, match="S-"):
        session.execute(info.id, WriteSheet(expected_version=3, sheet="F-lair",
                                            members=("1/609",), centers={"1/609": "30.10"},
                                            size=0, attest=True))
    assert session.load(info.id).version == 3


def test_the_lab_rests_the_first_side_under_its_prefix_past_the_fo_hours() -> None:
    """The lab (and the web lab page) simulate a shipped scenario's first side: here Finland's
    sheet is F-rest, and the Soviet FOs' whole-hour roll is let pass, not refused."""
    from rallypoint.lab.backend import Backend
    from rallypoint.rulesets.tcs.front import lab_sim as tcs_sim

    spec = tcs_sim.RestSpec(str(TWO), turns=12)
    begin = tcs_sim.prepared(spec)
    assert list(tcs_state(begin).sheets) == ["F-rest"]
    result = tcs_sim.simulate_rest(spec, 4, 1, 1, Backend(workers=1))
    assert len(result.metrics["implemented"]) == 4
