"""What a ruleset's web front part may use of the web app (``rulesets/<name>/front/``).

A ruleset's front part imports the session API, the core, the dice, its own rules and this kit,
nothing else of the web: the kit is the web's published surface for rulesets (its view contract,
forms and due helpers), so the web can change behind it (tests/test_architecture.py enforces it).
Each name is a plain re-export; add one here when a ruleset's front part needs it.
"""

from __future__ import annotations

from rallypoint.web.builder_part import BuilderPart
from rallypoint.web.due import Action
from rallypoint.web.forms import command_from_form, whole_number
from rallypoint.web.rulesets import View
from rallypoint.web.seat_preview import SeatPreview

__all__ = [
    "Action",
    "BuilderPart",
    "SeatPreview",
    "View",
    "command_from_form",
    "whole_number",
]
