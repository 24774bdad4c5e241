"""The fixes a platoon refusal ends with, as typed values: each front end words them its own way.

The rules name a fix by its :class:`FixKind` and say it in plain words (:data:`PLAIN`, what the
library and its API say); the command line's words, which name its commands, are the platoon
front part's (``front/cli_words.py``), and a web page's are its buttons and forms (the error's
``instead`` or :class:`~rallypoint.errors.Hint`). So the rules hold no CLI words (issue 21).
"""

from __future__ import annotations

from enum import StrEnum

from rallypoint.errors import Fix


class FixKind(StrEnum):
    """What a refusal asks the player to do instead."""

    PLAY_NEW_YEAR = "play_new_year"
    """The year began today: play its days before it can end (14.9)."""
    REST_NO_ACTION = "rest_no_action"
    """The day holds no action: it passes as rest."""
    REST_WITHDRAWN = "rest_withdrawn"
    """The platoon is withdrawn to refit: the day passes as rest."""
    REST = "rest"
    """There is no battle today: rest."""
    REPORT_OR_STANDIN = "report_or_standin"
    """The day holds an action: report its battle, or fight the STAND-IN battle."""
    PLATOON_COMMAND = "platoon_command"
    """Send one of the platoon's commands."""
    PICK_NAME_OR_ID = "pick_name_or_id"
    """Name a man, crew or tank by a name or id the roster shows."""
    PICK_MAN = "pick_man"
    """Use a man id the roster shows."""
    PLACE_FIRST = "place_first"
    """The man has no seat: place him first, or choose a serving man."""


PLAIN: dict[FixKind, str] = {
    FixKind.PLAY_NEW_YEAR: "Play the new year's days first.",
    FixKind.REST_NO_ACTION: "Rest instead: a day out of action.",
    FixKind.REST_WITHDRAWN: "Rest instead (the day passes as rest).",
    FixKind.REST: "Rest instead.",
    FixKind.REPORT_OR_STANDIN: "Report the battle or fight a stand-in battle.",
    FixKind.PLATOON_COMMAND: "Send one of the platoon's commands.",
    FixKind.PICK_NAME_OR_ID: "Use a name or id the roster shows.",
    FixKind.PICK_MAN: "Use a man id the roster shows.",
    FixKind.PLACE_FIRST: "Place an unassigned man first, or choose a serving man.",
}
"""Each fix in words no front end owns."""


def fix(kind: FixKind, **values: str) -> Fix:
    """The typed fix ``kind``, naming ``values``."""
    return Fix("platoon", kind.value, PLAIN[kind], tuple(values.items()))
