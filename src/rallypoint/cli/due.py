"""What is due next, in the CLI's words: each ruleset's typed ``Due`` with the command to type.

The rules return :class:`rallypoint.core.due.Due` values (a kind of command, a subject); here each
command kind becomes the words a player types, as the ruleset's plugin ``words`` part says them
(none: the generic ``rallypoint play KIND``). The web words the same values as buttons.
"""

from __future__ import annotations

from rich.markup import escape

from rallypoint.cli.session import console
from rallypoint.core.due import Due, due_of
from rallypoint.core.parts import CommandWords, is_word_map
from rallypoint.core.registry import plugin
from rallypoint.session import Campaign


def command_words(ruleset: str, item: Due) -> str:
    """What to type for ``item`` (``""`` when it is for the table, not the engine)."""
    if item.command is None:
        return ""
    found = plugin(ruleset)
    known: CommandWords = found.load("words", is_word_map) if found.words is not None else {}
    words = known.get(item.command)
    if words is None and found.cli is None:
        return f"rallypoint play {item.command}"  # a ruleset without verbs: the generic one
    if words is None:
        return f"rallypoint {ruleset} {item.command.replace('_', '-')}"
    return words.format(subject=item.subject or "")


def due_line(ruleset: str, item: Due) -> str:
    """``due: TEXT (`COMMAND`)``, as ``tcs turn`` and ``show`` say it."""
    how = command_words(ruleset, item)
    return f"due: {item.text}" + (f" (`{how}`)" if how else "")


def print_due(campaign: Campaign, first_only: bool = False) -> None:
    """Print what is due next once the pending decisions are answered (none while any is
    pending: they come first and are listed apart). ``first_only``: the next thing alone, as
    the end of a write says it."""
    if campaign.ruleset.pending(campaign.state):
        return
    items = due_of(campaign.ruleset, campaign.state)
    for item in items[:1] if first_only else items:
        console.print("[yellow]due[/]" + escape(due_line(campaign.ruleset.name, item)[3:]),
                      highlight=False)
