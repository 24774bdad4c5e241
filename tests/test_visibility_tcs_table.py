"""The TCS table commands added for issue 10 (reassign, attacked, attested seam counts) keep
Op Sheets secret (issue 12): a reassignment or an attack on recovering companies says which
companies recover on which sheet, so only their side (and the referee) sees it."""

from __future__ import annotations

import json
from pathlib import Path

from rallypoint.core.json_types import JsonObject
from rallypoint.core.visibility import (
    PUBLIC,
    REFEREE,
    NotYourSeatError,
    Viewer,
    authorize_command,
    declaration_of,
    redact_events,
)
from rallypoint.session import Session
from seats_kit import SCENARIO, SHEETS, execute

FINLAND, SOVIET = Viewer.of_side("finland"), Viewer.of_side("soviet")
TCS = declaration_of("tcs")
REASON = "moved-up-to-the-ridge"
NOTE = "shelled-from-the-lake"


def _played(tmp_path: Path) -> tuple[Session, str]:
    session = Session(tmp_path / "c.sqlite3")
    ref = session.create(SCENARIO, name="table").id
    for command in SHEETS:
        execute(session, ref, command)
    execute(session, ref, {"kind": "reassign", "members": ["ErP112"], "other_sheet": True,
                           "reason": REASON})
    execute(session, ref, {"kind": "attack", "members": ["1/ErP112"], "note": NOTE})
    return session, ref


def _event(session: Session, ref: str, viewer: Viewer, kind: str) -> str:
    records = redact_events(list(session.load(ref, whole=True).events), viewer)
    (found,) = [r for r in records if r.type == kind]
    return json.dumps(found.payload)


def test_reassignment_and_attack_are_their_sides_secret(tmp_path: Path) -> None:
    session, ref = _played(tmp_path)
    for kind, secret in (("reassigned", REASON), ("attacked", NOTE)):
        mine = _event(session, ref, FINLAND, kind)
        assert secret in mine and "1/ErP112" in mine
        for viewer in (SOVIET, PUBLIC):
            theirs = _event(session, ref, viewer, kind)
            assert secret not in theirs
            assert "1/ErP112" not in theirs and "F-hideout" not in theirs
            assert "$withheld" in theirs
        assert secret in _event(session, ref, REFEREE, kind)


def test_a_reassign_or_attack_is_for_its_members_side_in_any_case(tmp_path: Path) -> None:
    session, ref = _played(tmp_path)
    campaign = session.load(ref)
    state = campaign.ruleset.state_json(campaign.state)
    scenario = campaign.created.scenario
    for command in ({"kind": "reassign", "members": ["erp112"], "other_sheet": False},
                    {"kind": "attack", "members": ["1/erp112"]}):
        authorize_command(command, state, scenario, FINLAND, TCS)
        try:
            authorize_command(command, state, scenario, SOVIET, TCS)
        except NotYourSeatError:
            pass
        else:
            raise AssertionError(f"the Soviet seat may not {command['kind']} for Finland")


def test_an_attested_seam_count_on_a_sheet_is_withheld(tmp_path: Path) -> None:
    sheet: JsonObject = {"sheet": "S", "members": ["ErP112"], "attest_distance": 2}
    scenario = session_scenario(tmp_path)
    secrets, _ = TCS.event_secrets(scenario, {}, "sheet_written", sheet)
    assert ("attest_distance",) in {s.path for s in secrets.parts}
    moved: JsonObject = {"counter": "1/ErP112-1", "hex": "A1.01", "left_center": None,
                         "attest_distance": 1}
    secrets, _ = TCS.event_secrets(scenario, {}, "moved", moved)
    assert [(s.path, s.owner) for s in secrets.parts] == [(("attest_distance",), "finland")]


def session_scenario(tmp_path: Path) -> JsonObject:
    session = Session(tmp_path / "s.sqlite3")
    ref = session.create(SCENARIO, name="s").id
    return dict(session.load(ref).created.scenario)
