"""The command line's words for the tcs rules' typed fixes (:mod:`rallypoint.rulesets.tcs.fixes`).

The rules name a fix by its kind; here each becomes the sentence a player at the terminal reads,
naming the commands and options to type. The plugin publishes this table as its ``fixes`` part,
and :func:`rallypoint.cli.session.fail` words a refusal with it.
"""

from __future__ import annotations

from rallypoint.rulesets.tcs.fixes import FixKind

_SHOW = "`rallypoint show`"

FIXES: dict[str, str] = {
    FixKind.PICK_COUNTER: f"Use a counter id from {_SHOW}.",
    FixKind.PICK_COMPANY: f"Use a company id from {_SHOW}.",
    FixKind.PICK_MEMBERS: f"Use formation or company ids from {_SHOW}.",
    FixKind.PICK_RECOVERING: f"Name formations or companies on a pending sheet ({_SHOW}).",
    FixKind.PICK_PENDING_SHEET: f"Check a sheet listed as pending by {_SHOW}.",
    FixKind.PICK_CHOICE: "Use the counter ids shown by `rallypoint tcs choices`.",
    FixKind.TCS_COMMAND: "Use one of the `rallypoint tcs` commands.",
    FixKind.LEAVE_CENTER: "Add --leave-center to do that, or move within 2 hexes of the center.",
    FixKind.GIVE_CENTER: "Give a center for it, e.g. --center {company}=23.15.",
    FixKind.ATTEST_CENTERS: "Check the centers on the map, then attest (--attest).",
    FixKind.ATTEST_SEAM: "Count them across the seam and attest it: --within-2, or "
                         "--attest-distance N.",
    FixKind.ATTEST_PLACEMENT: "Place it on the center's section, or attest the count across the "
                              "seam (--attest-distance 0 or 1).",
    FixKind.CHOOSE_COLUMN: "Give --column {company}=hwy or --column {company}=to.",
    FixKind.RESOLVE_FIRST: "Resolve its distribution first (`rallypoint tcs resolve`).",
    FixKind.ADVANCE_TURN: "Advance the turn (`rallypoint tcs turn`) and check again.",
    FixKind.ROLL_FO_FIRST: "Roll it first (`rallypoint tcs fo`), or add --skip-fo to let it pass.",
    # The same words as the library's: the CLI has no verb of its own for it (the session
    # accrues before the next command).
    FixKind.ACCRUE_OWED: "Accrue what is owed first (the session does it before your next "
                         "command).",
    FixKind.MARK_NOW: "Mark it during that turn, or leave --turn out.",
}
"""Fix kind → what the command line says (``{company}``: the fix's value)."""
