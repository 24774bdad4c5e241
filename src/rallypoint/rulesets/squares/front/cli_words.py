"""The command line's words for the squares rules' typed fixes
(:mod:`rallypoint.rulesets.squares.fixes`).

The rules name a fix by its kind; here each becomes the sentence a player at the terminal reads,
naming the commands and options to type. The plugin publishes this table as its ``fixes`` part,
and :func:`rallypoint.cli.session.fail` words a refusal with it.
"""

from __future__ import annotations

from rallypoint.rulesets.squares.fixes import FixKind

_BOARD = "`rallypoint squares board`"

FIXES: dict[str, str] = {
    FixKind.PICK_ID: f"Use an id from {_BOARD}.",
    FixKind.PICK_KIND_OF_ID: f"Use a {{what}} id from {_BOARD}.",
    FixKind.SQUARES_COMMAND: "Use one of the `rallypoint squares` commands.",
    FixKind.ADVANCE_TURN: "Advance the turn (`rallypoint squares turn`) first.",
    FixKind.ACTIVATE_FIRST: "Activate the leader first (`rallypoint squares activate {who}`).",
    FixKind.RULE_SIGHT: "Give --set clear or --set blocked to make one.",
    FixKind.RALLY_SP_INSTEAD: "Rally for SP (--kind sp) instead, if it has lost {lost} or more.",
    FixKind.RALLY_DISORDER_OR_WAIT: "Rally for disorder (--kind disorder) if it is disordered, "
                                    "or wait.",
    FixKind.RALLY_DISORDER_INSTEAD: "Rally for disorder (--kind disorder) instead.",
    FixKind.CHOOSE_RALLY_KIND: "Choose one: --kind disorder ({disorder}); --kind sp ({sp}).",
}
"""Fix kind → what the command line says (``{who}``, ``{what}``...: the fix's values)."""
