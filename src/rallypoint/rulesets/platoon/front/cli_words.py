"""The command line's words for the platoon rules' typed fixes (:mod:`..fixes`).

The rules name a fix by its kind; here each becomes the sentence a player at the terminal reads,
naming the commands to type, byte for byte what the rules said before they held no CLI words.
The plugin publishes this table as its ``fixes`` part, and the CLI words a refusal with it.
"""

from __future__ import annotations

from rallypoint.rulesets.platoon.fixes import FixKind

_REST = "`rallypoint platoon rest`"
_ROSTER = "`rallypoint platoon roster`"

FIXES: dict[str, str] = {
    # A day is played by resting, fighting (`battle`, `report`) or `autoplay`; no verb is "day".
    FixKind.PLAY_NEW_YEAR: "Play the new year's days first (`rallypoint platoon rest`, "
                           "`battle` or `report`).",
    FixKind.REST_NO_ACTION: f"Use {_REST} for a day out of action.",
    FixKind.REST_WITHDRAWN: f"Use {_REST} (the day passes as rest).",
    FixKind.REST: f"Use {_REST}.",
    FixKind.REPORT_OR_STANDIN: "Ingest the battle's report (`platoon report`) or fight a stand-in "
                               "battle.",
    FixKind.PLATOON_COMMAND: "Use one of the `rallypoint platoon` commands.",
    FixKind.PICK_NAME_OR_ID: f"Use a name or id from {_ROSTER}.",
    FixKind.PICK_MAN: f"Use a man id from {_ROSTER}.",
    FixKind.PLACE_FIRST: "Place an unassigned man with `platoon place`, or choose a serving man.",
}
"""Fix kind → what the command line says."""
