"""What is due next: a typed value each ruleset returns and each front end words its own way.

A ruleset may define ``due(state) -> tuple[Due, ...]`` (looked up by name, like the optional
parts of :class:`~rallypoint.core.ruleset.PartialKnowledge`): what the rules expect the players to
do next, in the rules' words, each with the kind of command that does it. The CLI turns the kind
into the words to type (``rallypoint platoon rest``), the web into a button or a link to the form;
no front end reads the text to find the command. Pending decisions are listed apart
(``Ruleset.pending``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rallypoint.core.erased import rules_of


@dataclass(frozen=True)
class Due:
    """One thing due next.

    Attributes:
        kind: What sort of thing it is, in the ruleset's terms (``"report"``, ``"year_end"``,
            ``"check"``, ``"activate"``).
        text: One line for the player, in the rules' words (no command to type).
        command: The kind of command that does it (a command's JSON ``kind``), or ``None`` when
            it is for the table, not the engine.
        subject: The id it concerns (a sheet, a company, a unit), if any: the command's
            argument.
    """

    kind: str
    text: str
    command: str | None = None
    subject: str | None = None


def due_of(ruleset: Any, state: Any) -> tuple[Due, ...]:
    """What the ruleset says is due next in ``state`` (nothing if it has no ``due`` hook)."""
    hook = getattr(rules_of(ruleset), "due", None)
    return tuple(hook(state)) if hook is not None else ()
