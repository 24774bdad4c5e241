"""The fixes a TCS refusal ends with, as typed values: each front end words them its own way.

The rules name a fix by its :class:`FixKind` and say it in plain words (:data:`PLAIN`, what the
library and its API say); the command line's words, which name its commands and options, are the
tcs front part's (``front/cli_words.py``), and a web page's are its boxes and buttons (the
error's :class:`~rallypoint.errors.Hint`). So the rules hold no CLI words (issue 21).
"""

from __future__ import annotations

from enum import StrEnum

from rallypoint.errors import Fix


class FixKind(StrEnum):
    """What a refusal asks the player to do instead."""

    PICK_COUNTER = "pick_counter"
    """Use a counter id the campaign shows."""
    PICK_COMPANY = "pick_company"
    """Use a company id the campaign shows."""
    PICK_MEMBERS = "pick_members"
    """Use formation or company ids the campaign shows."""
    PICK_RECOVERING = "pick_recovering"
    """Name formations or companies on a pending sheet."""
    PICK_PENDING_SHEET = "pick_pending_sheet"
    """Check a sheet that is pending."""
    PICK_CHOICE = "pick_choice"
    """Use a counter the pending distribution offers."""
    TCS_COMMAND = "tcs_command"
    """Send one of the ruleset's commands."""
    LEAVE_CENTER = "leave_center"
    """Say the counter leaves its recovery center, or move it closer."""
    GIVE_CENTER = "give_center"
    """Give the company's recovery center (``{company}``)."""
    ATTEST_CENTERS = "attest_centers"
    """Attest the centers after checking them on the map."""
    ATTEST_SEAM = "attest_seam"
    """Attest a distance across a map-section seam."""
    ATTEST_PLACEMENT = "attest_placement"
    """Place a counter on the center's section, or attest the distance across the seam."""
    CHOOSE_COLUMN = "choose_column"
    """Choose the Hwy or TO column for a company with both (``{company}``)."""
    RESOLVE_FIRST = "resolve_first"
    """Resolve the pending distribution first."""
    ADVANCE_TURN = "advance_turn"
    """Advance the turn, then check again."""
    ROLL_FO_FIRST = "roll_fo_first"
    """Roll for the dead FOs first, or let the hour pass without the roll."""
    ACCRUE_OWED = "accrue_owed"
    """Accrue what the other database's turns owe first."""
    MARK_NOW = "mark_now"
    """Mark fire during the turn it happens, or without naming a turn."""


PLAIN: dict[FixKind, str] = {
    FixKind.PICK_COUNTER: "Use a counter id the campaign shows.",
    FixKind.PICK_COMPANY: "Use a company id the campaign shows.",
    FixKind.PICK_MEMBERS: "Use formation or company ids the campaign shows.",
    FixKind.PICK_RECOVERING: "Name formations or companies on a pending sheet.",
    FixKind.PICK_PENDING_SHEET: "Check a sheet the campaign lists as pending.",
    FixKind.PICK_CHOICE: "Use the counter ids the pending distribution offers.",
    FixKind.TCS_COMMAND: "Send one of the TCS commands.",
    FixKind.LEAVE_CENTER: "Say that it leaves its recovery center, or move within 2 hexes of "
                          "the center.",
    FixKind.GIVE_CENTER: "Give a center for {company}, e.g. 23.15.",
    FixKind.ATTEST_CENTERS: "Check the centers on the map, then attest them.",
    FixKind.ATTEST_SEAM: "Count them across the seam and attest the count.",
    FixKind.ATTEST_PLACEMENT: "Place it on the center's section, or attest the count across the "
                              "seam (0 or 1).",
    FixKind.CHOOSE_COLUMN: "Choose the hwy or the to column for {company}.",
    FixKind.RESOLVE_FIRST: "Resolve its distribution first.",
    FixKind.ADVANCE_TURN: "Advance the turn and check again.",
    FixKind.ROLL_FO_FIRST: "Roll it first, or let the hour pass without it.",
    FixKind.ACCRUE_OWED: "Accrue what is owed first (the session does it before your next "
                         "command).",
    FixKind.MARK_NOW: "Mark it during that turn, or leave the turn out.",
}
"""Each fix in words no front end owns."""


def fix(kind: FixKind, **values: str) -> Fix:
    """The typed fix ``kind``, naming ``values`` (``company="1-A"``)."""
    return Fix("tcs", kind.value, PLAIN[kind], tuple(values.items()))
