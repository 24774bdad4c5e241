"""What a command would do, decided in memory and never stored: the live preview of a choice.

A front end shows a player the result of a decision (a TCS distribution) while they edit it. The
preview decides the command exactly as :meth:`Session.execute` would, against the campaign as it
is, and folds the event in memory. It never touches the campaign's dice: a command that rolls is
decided with a roller that only notes what would be rolled (purpose, dice, named modifiers), so a
preview can neither reveal nor use up a future seeded roll. What such a command's state looks like
after the roll is therefore not shown as a fact: :attr:`Preview.rolls` says a roll is still to come.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import RallypointError
from rallypoint.core.ruleset import Command
from rallypoint.dice import ChanceNode, Modifier
from rallypoint.session.owed import owed_events


@dataclass(frozen=True)
class PendingRoll:
    """A roll the command would make when recorded.

    Attributes:
        purpose: Why it is rolled.
        dice: The dice label (``1d6``).
        modifiers: Named modifiers that would be added.
    """

    purpose: str
    dice: str
    modifiers: tuple[Modifier, ...]

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"purpose": self.purpose, "dice": self.dice,
                "modifiers": [m.model_dump() for m in self.modifiers]}


@dataclass(frozen=True)
class Preview:
    """The outcome of deciding a command without storing it.

    Attributes:
        command: The parsed command (``None`` if it did not parse).
        error: Why the rules refuse it (``None`` if it is legal now).
        after: The campaign after the event, in memory (``None`` if refused). When
            :attr:`rolls` is not empty, the parts of it those rolls decide are placeholders.
        summary: What the event would do, in the log's words (``None`` if refused or if it
            rolls, since the roll's result is not known yet).
        rolls: Rolls still to be made when the command is recorded.
    """

    command: Command | None
    error: RallypointError | None
    after: Campaign | None
    summary: str | None
    rolls: tuple[PendingRoll, ...]

    @property
    def legal(self) -> bool:
        """Whether the command would be accepted now."""
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        """JSON form: legality, the refusal, the summary, the rolls to come, the state after."""
        after = self.after
        return {
            "legal": self.legal,
            "error": self.error.to_dict() | {"message": self.error.message}
            if self.error else None,
            "summary": self.summary,
            "rolls": [r.to_json() for r in self.rolls],
            "state": after.ruleset.state_json(after.state) if after and not self.rolls else None,
        }


class _NotingRoller:
    """Notes each chance node asked for and answers with its lowest faces (a placeholder)."""

    def __init__(self) -> None:
        self.nodes: list[ChanceNode] = []

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        self.nodes.append(node)
        return (1,) * node.dice.count


def preview(campaign: Campaign, command: Command | Mapping[str, Any]) -> Preview:
    """Decide ``command`` against ``campaign`` in memory; nothing is stored or rolled.

    The command's ``expected_version`` is ignored: a preview is always of the campaign as given.

    Args:
        campaign: The campaign as loaded (e.g. ``Session.load``).
        command: A command model or its JSON form.
    """
    # What this seat owes first (a partial log's bookkeeping), as ``execute`` would store it.
    owed = owed_events(campaign)
    campaign = owed[-1] if owed else campaign
    try:
        parsed = (command if isinstance(command, Command)
                  else campaign.ruleset.parse_command(
                      {**command, "expected_version": campaign.version}))
        parsed = parsed.model_copy(update={"expected_version": campaign.version})
    except RallypointError as exc:
        return Preview(None, exc, None, None, ())
    roller = _NotingRoller()
    try:
        after = campaign.execute(parsed, roller)
    except RallypointError as exc:
        return Preview(parsed, exc, None, None, ())
    rolls = tuple(PendingRoll(n.purpose, n.dice.label, n.modifiers) for n in roller.nodes)
    summary = None if rolls else after.describe(after.version)
    return Preview(parsed, None, after, summary, rolls)
