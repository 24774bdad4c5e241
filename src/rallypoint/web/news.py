"""Whose move, and what changed since you last looked (issue 22, shared play).

Both are read from what the viewer may see, so they tell no secret: whose move from the page's
own filtered "what next" (the pending decisions and due items its view context lists for the
viewer), each item's side from the ruleset's ownership declaration (never from its text); what
changed from the viewer's own log (a withheld event says only its public summary). What each
account last saw is kept by the session API (:meth:`rallypoint.session.seats.SeatBook.seen`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rallypoint.core.due import Due
from rallypoint.core.ruleset import Decision
from rallypoint.core.visibility import Role, Viewer, declaration_of
from rallypoint.session import Campaign, LogEntry

SHOWN = 8
"""Most events the "since you last looked" list shows (the newest; the log has the rest)."""


class Turn(StrEnum):
    """Whose move it is, as the viewer may tell."""

    YOURS = "yours"
    """Something due is the viewer's own (a decision, a check of their sheet, their FO roll)."""
    THEIRS = "theirs"
    """Only other sides have something of their own due: waiting for them."""
    ANYONE = "anyone"
    """What is due is no one side's (the next turn): either side may go on."""
    NOTHING = "nothing"
    """Nothing is due that the viewer can see."""


@dataclass(frozen=True)
class Move:
    """Whose move: the turn, and the sides waited for (side ids, sorted)."""

    turn: Turn
    waiting_for: tuple[str, ...] = ()

    @property
    def words(self) -> str:
        """One line for a page."""
        if self.turn is Turn.YOURS:
            return "your move"
        if self.turn is Turn.THEIRS:
            return f"waiting for {', '.join(self.waiting_for)}"
        if self.turn is Turn.ANYONE:
            return "either side may go on"
        return "nothing due"

    def to_json(self) -> dict[str, Any]:
        """The JSON form the API answers."""
        return {"turn": self.turn.value, "waiting_for": list(self.waiting_for),
                "words": self.words}


def whose_move(campaign: Campaign, viewer: Viewer, context: Mapping[str, Any],
               subject_fields: Mapping[str, str]) -> Move:
    """Whose move it is, from a page's view context as ``viewer`` sees it.

    Args:
        campaign: The campaign.
        viewer: Who asks (the referee and the local player: everything due is theirs).
        context: The ruleset page's context for ``viewer``: its ``pending`` decisions and
            ``due_next`` items, already filtered for the viewer.
        subject_fields: Command kind → the command field a due item's subject fills (from the
            page's ``DUE_ACTIONS``), so the item's side is asked of the declaration.
    """
    pending: Sequence[Decision] = context.get("pending", ())
    due: Sequence[Due] = context.get("due_next") or ()
    if not pending and not due:
        return Move(Turn.NOTHING)
    if viewer.role in (Role.ALL, Role.REFEREE):
        return Move(Turn.YOURS)
    owners = _owners(campaign, pending, due, subject_fields)
    if viewer.side in owners:
        return Move(Turn.YOURS)
    sides = tuple(sorted(o for o in owners if o is not None))
    return Move(Turn.THEIRS, sides) if sides else Move(Turn.ANYONE)


def _owners(campaign: Campaign, pending: Sequence[Decision], due: Sequence[Due],
            subject_fields: Mapping[str, str]) -> set[str | None]:
    """The side each pending decision and due item belongs to (``None``: no one side's; an
    owner that is no seat, e.g. an unknown subject, counts as no one side's)."""
    declared = declaration_of(campaign.ruleset.name)
    scenario = campaign.created.scenario
    state = campaign.ruleset.state_json(campaign.state)
    seats = set(declared.sides(scenario))
    found: set[str | None] = set()
    for decision in pending:
        found.add(declared.decision_owner(scenario, state, decision.model_dump()))
    for item in due:
        if item.command is None:
            continue
        command: dict[str, Any] = {"kind": item.command}
        field = subject_fields.get(item.command)
        if field is not None and item.subject is not None:
            command[field] = item.subject
        found.add(declared.command_owner(scenario, state, command))
    return {o if o in seats else None for o in found}


@dataclass(frozen=True)
class News:
    """What changed since a mark: the newest events after it (as the viewer's log shows them)
    and how many older ones the list leaves out."""

    since: int | None
    version: int
    events: tuple[LogEntry, ...]
    older: int

    def to_json(self) -> dict[str, Any]:
        """The JSON form the API answers."""
        return {"since": self.since, "version": self.version, "older": self.older,
                "events": [e.to_json() for e in self.events]}


def news(log: Sequence[LogEntry], since: int | None, version: int) -> News:
    """The events of ``log`` (the viewer's, oldest first) after ``since``, newest first
    (``since`` ``None``: never looked, so nothing is news but the campaign itself)."""
    if since is None:
        return News(None, version, (), 0)
    after = [e for e in log if e.seq > since]
    shown = tuple(reversed(after[-SHOWN:]))
    return News(since, version, shown, len(after) - len(shown))
