"""What a TCS player types for each kind of due command (the plugin's ``words`` part)."""

from rallypoint.core.parts import CommandWords

WORDS: CommandWords = {
    "check": "rallypoint tcs check {subject}",
    "fo": "rallypoint tcs fo",
}
"""Command kind → what to type (``{subject}``: the due item's subject, a sheet)."""
