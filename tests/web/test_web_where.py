"""A refusal's typed location (``error.at``) drives the web's field; its ``where`` text is never
split (issue 21: front ends parse no text the rules wrote).

The rules say where a problem is twice: as text for the command line (``where``, unchanged) and as
a path of names (``at``). The web marks a form field and picks a field's own words from the path
only, so these tests give errors whose text and path disagree: a reader of the text fails them.
"""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from platoon_kit import campaign, refuse, report, tank
from rallypoint.core.errors import Hint, IllegalNowError, MalformedInputError
from rallypoint.rulesets.platoon.front import web as platoon
from rallypoint.rulesets.tcs.front import web as tcs
from rallypoint.web.words import field_of, web_message
from web.conftest import token_of

DAYS = ("report", "tanks", "3", "ordnance_days")


def test_a_typed_location_keeps_the_command_lines_text() -> None:
    error = MalformedInputError("crew 3: ordnance_days goes with knocked_out only", at=DAYS,
                                fix="Give ordnance_days for a knocked-out tank, else none.")
    assert error.where == "report.tanks.3.ordnance_days"
    assert str(error) == ("crew 3: ordnance_days goes with knocked_out only "
                          "(at report.tanks.3.ordnance_days). Give ordnance_days for a "
                          "knocked-out tank, else none.")
    assert MalformedInputError("x").at == ()
    assert MalformedInputError("x").where is None


def test_the_rules_refusal_carries_its_typed_location() -> None:
    c = campaign(("1", "2", "3"), action_days=(1,))
    error = refuse(c, report(c, [tank("1"), tank("2"), tank("3", result="knocked_out")]),
                   MalformedInputError, "ordnance_days")
    assert error.at == DAYS
    assert error.where == "report.tanks.3.ordnance_days"


def test_the_typed_location_names_the_field_not_the_text() -> None:
    # Text and path disagree: only a reader of the path finds crew 3's box.
    error = MalformedInputError("no days", where="crew 3's days at ordnance", at=DAYS)
    assert field_of(error, platoon.field_for)[0] == "tank.3.ordnance_days"
    # A crew id holding a dot: splitting the text would cut it in two.
    dotted = MalformedInputError("no days", at=("report", "tanks", "3.b", "ordnance_days"))
    assert dotted.where == "report.tanks.3.b.ordnance_days"
    assert field_of(dotted, platoon.field_for)[0] == "tank.3.b.ordnance_days"
    assert field_of(MalformedInputError("x", at=("report", "men", "m011")),
                    platoon.field_for)[0] == "man.m011"


def test_text_alone_is_not_read_for_a_ruleset_field() -> None:
    error = MalformedInputError("no days", where="report.tanks.3.ordnance_days")
    names = field_of(error, platoon.field_for)
    assert "tank.3.ordnance_days" not in names
    assert names[0] == "report.tanks.3.ordnance_days"  # the generic form's own name, whole


def test_a_fields_own_words_come_from_the_typed_location() -> None:
    error = IllegalNowError("1/ErP112 has no center", where="the sheet's centers",
                            at=("centers", "1/ErP112"), instead=Hint.FIX_FIELD)
    assert web_message(error, tcs.COMMANDS, tcs.FIELDS) == (
        "1/ErP112 has no center. Give its center (a hex such as 23.15) under Centers.")
    untyped = IllegalNowError("1/ErP112 has no center", where="centers.1/ErP112",
                              instead=Hint.FIX_FIELD)
    assert web_message(untyped, tcs.COMMANDS, tcs.FIELDS) == (
        "1/ErP112 has no center. Correct the marked field, then send the form again.")


def test_a_refused_platoon_report_marks_the_typed_field(client: TestClient) -> None:
    cid = client.post("/api/campaigns", json={"scenario": "italy_1944", "name": "it",
                                              "seed": "italy-1944"}).json()["id"]
    page = client.get(f"/c/{cid}").text
    form = {"csrf_token": token_of(page), "expected_version": "1", "kind": "report",
            "form": "report", "day": "1", "dice": "2,1"}
    for crew in "12345":  # every tank on the page: crew 3 knocked out, its days left empty
        form |= {f"tank.{crew}.result": "knocked_out" if crew == "3" else "unhit",
                 f"tank.{crew}.ordnance_days": "", f"tank.{crew}.cohesion": "45"}
    r = client.post(f"/c/{cid}/do", data=form, follow_redirects=False)
    assert r.status_code == 400, r.text[:500]
    marked = re.findall(r'<[^>]*aria-invalid="true"[^>]*>', r.text)
    assert len(marked) == 1, marked
    assert 'name="tank.3.ordnance_days"' in marked[0]
