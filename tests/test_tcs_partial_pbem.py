"""Hidden Op Sheets by e-mail, end to end through the session: two databases, turn files filtered
for their reader, each database folding the other's events by their public parts and settling
its owed accruals on import, then the reveal merging both into one whole log whose fold is the
game's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from json_kit import at, obj
from rallypoint.core.campaign import Campaign
from rallypoint.core.events import EventRecord
from rallypoint.core.registry import get_ruleset
from rallypoint.core.visibility import Viewer, declaration_of, redact_state
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.session import Session
from rallypoint.session.pbem import create_seated, export_turn, import_turn, new_seat
from rallypoint.session.reveal import reveal
from seats_kit import SCENARIO, SECRET_OF, SHEETS, execute, scrub

TURN = {"kind": "turn", "skip_fo": True}
TCS = declaration_of("tcs")


def _sheets(session: Session, ref: str) -> dict[str, Any]:
    sheets = obj(session.view(ref)["state"], "sheets")
    return {k: at(v, "weighted_turns") for k, v in sheets.items()}


def test_hidden_sheets_by_mail_from_the_first_sheet_to_the_reveal(tmp_path: Path) -> None:
    finland, soviet = Session(tmp_path / "fi.sqlite3"), Session(tmp_path / "su.sqlite3")
    cards = [new_seat(finland, "finland"), new_seat(soviet, "soviet")]
    ref = create_seated(finland, SCENARIO, cards, name="mail").id
    mail = tmp_path / "mail.json"

    execute(finland, ref, SHEETS[0])  # F-hideout, turn 1
    for _ in range(2):
        execute(finland, ref, TURN)  # turns 2, 3: F +3 each
    export_turn(finland, ref, mail, for_seat="soviet")
    got = import_turn(soviet, mail)
    # The Soviets hold no sheet yet, but owe an (empty) accrual for Finland's turns all the
    # same: its arrival must not tell Finland whether a Soviet sheet accrues (issue 18).
    assert got.withheld > 0 and got.owed == 1
    assert not any(s in scrub(mail.read_text(encoding="utf-8")) for s in SECRET_OF["finland"])

    execute(soviet, ref, SHEETS[1])  # S-lair, turn 3
    execute(soviet, ref, TURN)  # turn 4 in the Soviet database: S +3, F not known there
    export_turn(soviet, ref, mail, for_seat="finland")
    got = import_turn(finland, mail)
    assert got.owed == 1  # F is owed turn 4, accrued on import
    assert _sheets(finland, ref) == {"F-hideout": 9}

    for _ in range(2):
        execute(finland, ref, TURN)  # turns 5, 6: F +3 each; S not known here
    export_turn(finland, ref, mail, for_seat="soviet")
    assert import_turn(soviet, mail).owed == 1  # S is owed turns 5 and 6, in one event
    assert _sheets(soviet, ref) == {"S-lair": 9}
    assert _sheets(finland, ref) == {"F-hideout": 15}

    # The Soviets' owed event goes to Finland like any other (the reveal needs one head).
    export_turn(soviet, ref, mail, for_seat="finland")
    assert import_turn(finland, mail).owed == 0
    # The reveal: Finland's whole export, merged in the Soviet database.
    whole_fi = tmp_path / "fi-whole.json"
    export_turn(finland, ref, whole_fi)
    merged = tmp_path / "merged.json"
    done = reveal(soviet, whole_fi, merged)
    assert done.revealed > 0 and done.other == "finland"
    data = json.loads(merged.read_text(encoding="utf-8"))
    records = [EventRecord.model_validate(e) for e in data["events"]]
    assert not any({"$redacted", "$withheld"} & set(r.payload) for r in records)
    state = tcs_state(Campaign.from_events(records))
    assert {k: s.weighted_turns for k, s in state.sheets.items()} == {"F-hideout": 15,
                                                                     "S-lair": 9}
    assert [r.type for r in records].count("accrued") == 3  # one per turn run, empty or not
    # Each database shows its seat what the whole game shows it.
    scenario = records[0].payload["scenario"]
    for side, session in (("finland", finland), ("soviet", soviet)):
        viewer = Viewer.of_side(side)
        assert redact_state(session.view(ref)["state"], scenario, viewer, TCS) == redact_state(
            get_ruleset("tcs").state_json(state), scenario, viewer, TCS)
    # The Soviet log names Finland's withheld events by their public summaries.
    lines = [e.summary for e in soviet.log(ref)]
    assert "a Recovery Op Sheet was written (withheld)" in lines
    assert not any(s in "\n".join(lines) for s in SECRET_OF["finland"])
