"""What a platoon player types for each kind of due command (the plugin's ``words`` part)."""

from rallypoint.core.parts import CommandWords

WORDS: CommandWords = {
    "report": "rallypoint platoon report FILE",
    "rest": "rallypoint platoon rest",
    "year_end": "rallypoint platoon year-end",
}
"""Command kind → what to type."""
