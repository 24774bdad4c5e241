"""What a squares player types for each kind of due command (the plugin's ``words`` part)."""

from rallypoint.core.parts import CommandWords

WORDS: CommandWords = {
    "rally": "rallypoint squares rally LEADER {subject}",
    "activate": "rallypoint squares activate WHO",
    "turn": "rallypoint squares turn",
}
"""Command kind → what to type (``{subject}``: the due item's subject, a unit)."""
