"""The game words a player meets in the commands, explained where they appear: every command
whose help or options use one of them gets an epilog saying what it means (``--help``).

The explanations are taken from docs/rules and the core TCS facts they rest on; docs/glossary.md
holds the same text (a test keeps them equal), for the web to link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Term:
    """One word: how it is spotted in a command's help, and what it means."""

    word: str
    pattern: str
    meaning: str

    def found_in(self, text: str) -> bool:
        return re.search(self.pattern, text) is not None


TERMS = (
    Term("row", r"(?i)\brow\b|--row",
         "the Implementation Table row of a Recovery Op Sheet: its command prep plus the sheet's "
         "size; lower is better, and rows 9 and up cannot implement unless the scenario "
         "supplies them."),
    Term("prep", r"(?i)\bprep\b",
         "command prep, a formation's Command Prep rating (from the game or the scenario; lower "
         "is better). A sheet takes the worst of its companies' ratings."),
    Term("d66", r"(?i)\bd66\b",
         "two dice read as tens and units, 11 to 66 (36 outcomes): a 3 then a 5 reads 35. An "
         "implementation check needs at least the number in the table's cell."),
    Term("weighted turns", r"(?i)weighted[ -]turns?",
         "what an Op Sheet accrues each turn until it implements: 3 while its units are "
         "unassigned, 2 on another sheet or at night, 1 if they fired or were fired upon (the "
         "lowest applies). The total picks the Implementation Table column."),
    Term("cohesion", r"(?i)\bcohesion\b",
         "how well a tank crew works together, 0 to 100: a little more each day the crew stays "
         "together (up to a cap), less when a stranger joins it (section 9.6)."),
    Term("SP", r"(?i)\bsp\b|\bstamina\b",
         "stamina points, a unit's strength. A unit at 1 SP is shaken, at 0 it is destroyed; "
         "each SP lost from its starting stamina is -1 on its rally test."),
)
"""Every explained word, in the order an epilog lists them."""


def epilog(text: str) -> str | None:
    """The epilog for a command whose help reads ``text``: each word it uses, explained."""
    found = [t for t in TERMS if t.found_in(text)]
    if not found:
        return None
    lines = [f"{t.word}: {t.meaning}" for t in found]
    return "\n\n".join(["Words used here (docs/glossary.md):", *lines])


def annotate(command: Any) -> None:
    """Give ``command`` (a click command or group, and every command under it) its epilog,
    unless it has one already."""
    subcommands = getattr(command, "commands", None)
    if subcommands:
        for sub in subcommands.values():
            annotate(sub)
        return
    text = " ".join([command.help or "", *(getattr(p, "help", None) or "" for p in command.params),
                     *(name for p in command.params for name in getattr(p, "opts", ()))])
    if command.epilog is None:
        command.epilog = epilog(text)
