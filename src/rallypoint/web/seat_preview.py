"""A live preview as one seat may see it: the preview's state and summary filtered at the edge.

:func:`rallypoint.session.preview.preview` decides a command in memory against the whole campaign
and answers with the whole state after it, which on a shared server holds the other side's
secrets (a TCS turn accrues every side's sheets). What leaves the server is this: the state before
and after filtered by the ruleset's declaration exactly as a view is
(:func:`~rallypoint.core.visibility.redact_state`), and the summary and rolls the seat's log
would show once the event is recorded (a withheld event says only its public summary, without
rolls). A preview thus never shows a seat more than recording the command would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rallypoint.core.errors import RallypointError
from rallypoint.core.events import EventRecord
from rallypoint.core.ruleset import Command
from rallypoint.core.visibility import (
    Declaration,
    Viewer,
    is_redacted,
    redact_events,
    redact_state,
)
from rallypoint.session import Campaign
from rallypoint.session.preview import PendingRoll, Preview


@dataclass(frozen=True)
class SeatPreview:
    """What a previewed command would do, as the seat asking may see it.

    Attributes:
        command: The parsed command (``None`` if it did not parse).
        error: Why the rules refuse it (``None`` if it is legal now).
        before: The state view now, filtered for the seat.
        after: The state view after the event, filtered for the seat (``None`` if refused; its
            parts the pending rolls decide are placeholders).
        summary: What the seat's log would say of the event (``None`` if refused or if it
            rolls).
        rolls: Rolls still to be made when the command is recorded (none shown when the event
            is withheld from the seat, as in its log).
    """

    command: Command | None
    error: RallypointError | None
    before: dict[str, Any]
    after: dict[str, Any] | None
    summary: str | None
    rolls: tuple[PendingRoll, ...]

    @property
    def legal(self) -> bool:
        """Whether the command would be accepted now."""
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        """JSON form (as :meth:`Preview.to_json`, filtered): legality, the refusal, the summary,
        the rolls to come, the state after (none while a roll is to come)."""
        return {
            "legal": self.legal,
            "error": self.error.to_dict() | {"message": self.error.message}
            if self.error else None,
            "summary": self.summary,
            "rolls": [r.to_json() for r in self.rolls],
            "state": self.after if self.after is not None and not self.rolls else None,
        }


def shown_preview(campaign: Campaign, log: Sequence[EventRecord], found: Preview,
                  viewer: Viewer, declared: Declaration,
                  public_summary: Callable[[EventRecord, Declaration], str]) -> SeatPreview:
    """``found`` (a preview of a command against ``campaign``) as ``viewer`` may see it.

    Args:
        campaign: The campaign the preview was decided against.
        log: Its whole stored log (a declaration learns who owns what from every event).
        found: The preview, whole.
        viewer: The seat asking.
        declared: The ruleset's secrets declaration.
        public_summary: What a withheld event says in the seat's log (the service's rule).
    """
    scenario = campaign.created.scenario
    before = redact_state(campaign.ruleset.state_json(campaign.state), scenario, viewer,
                          declared)
    after = found.after
    if after is None:
        return SeatPreview(found.command, found.error, before, None, None, ())
    state = redact_state(after.ruleset.state_json(after.state), scenario, viewer, declared)
    # The events the command (and what this seat owes first) would append, redacted in the
    # context of the whole log, exactly as the log will show them once stored.
    new = [e for e in after.events if e.seq > campaign.version]
    shown = redact_events([*log, *new], viewer, declared)[len(log):]
    if not any(is_redacted(e) for e in shown):
        return SeatPreview(found.command, None, before, state, found.summary, found.rolls)
    return SeatPreview(found.command, None, before, state,
                       None if found.rolls else public_summary(shown[-1], declared), ())
