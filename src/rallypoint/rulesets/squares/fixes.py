"""The fixes a squares refusal ends with, as typed values: each front end words them its own way.

The rules name a fix by its :class:`FixKind` and say it in plain words (:data:`PLAIN`, what the
library and its API say); the command line's words, which name its commands and options, are the
squares front part's (``front/cli_words.py``), and a web page's are its boxes and buttons (the
error's :class:`~rallypoint.errors.Hint` or command kind). So the rules hold no CLI words
(issue 21).
"""

from __future__ import annotations

from enum import StrEnum

from rallypoint.errors import Fix


class FixKind(StrEnum):
    """What a refusal asks the player to do instead."""

    PICK_ID = "pick_id"
    """Use a unit or leader id the board shows."""
    PICK_KIND_OF_ID = "pick_kind_of_id"
    """Use an id of the kind asked for (``{what}``: unit, leader, or unit or leader)."""
    SQUARES_COMMAND = "squares_command"
    """Send one of the ruleset's commands."""
    ADVANCE_TURN = "advance_turn"
    """Start the next turn first."""
    ACTIVATE_FIRST = "activate_first"
    """Activate the leader (``{who}``) first, which ends its attachment."""
    RULE_SIGHT = "rule_sight"
    """Make a ruling (clear or blocked) before removing one."""
    RALLY_SP_INSTEAD = "rally_sp_instead"
    """Rally for SP instead, if the unit has lost enough (``{lost}``: the SP a rally needs)."""
    RALLY_DISORDER_OR_WAIT = "rally_disorder_or_wait"
    """Rally for disorder if the unit is disordered, or wait."""
    RALLY_DISORDER_INSTEAD = "rally_disorder_instead"
    """Rally for disorder instead."""
    CHOOSE_RALLY_KIND = "choose_rally_kind"
    """Say which rally it is (``{disorder}``, ``{sp}``: each one's chances)."""


PLAIN: dict[FixKind, str] = {
    FixKind.PICK_ID: "Use an id the board shows.",
    FixKind.PICK_KIND_OF_ID: "Use a {what} id the board shows.",
    FixKind.SQUARES_COMMAND: "Send one of the squares commands.",
    FixKind.ADVANCE_TURN: "Start the next turn first.",
    FixKind.ACTIVATE_FIRST: "Activate the leader ({who}) first.",
    FixKind.RULE_SIGHT: "Rule the sight clear or blocked to make one.",
    FixKind.RALLY_SP_INSTEAD: "Rally for SP instead, if it has lost {lost} or more.",
    FixKind.RALLY_DISORDER_OR_WAIT: "Rally for disorder if it is disordered, or wait.",
    FixKind.RALLY_DISORDER_INSTEAD: "Rally for disorder instead.",
    FixKind.CHOOSE_RALLY_KIND: "Choose one: a disorder rally ({disorder}) or an SP rally ({sp}).",
}
"""Each fix in words no front end owns."""


def fix(kind: FixKind, **values: str) -> Fix:
    """The typed fix ``kind``, naming ``values`` (``who="kempt"``)."""
    return Fix("squares", kind.value, PLAIN[kind], tuple(values.items()))
