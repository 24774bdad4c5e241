"""Who may see what: per-viewer filtering of a campaign's views, log, decisions and exports.

Rules never branch on who is looking. Each ruleset *declares* (in its plugin's ``secrets`` part,
a :class:`~rallypoint.core.declarations.Declaration`) which parts of its state view and of each
event payload belong to which side, which side a command or a decision belongs to, and what a
withheld event says in public. Everything filters at the edge, after the rules have run, from
those declarations (boardgame.io's ``playerView``, but the ``created`` event is filtered like any
other, so the initial state cannot leak a secret: its issue #1159). The parts:

- :mod:`rallypoint.core.viewers`: who is looking (:class:`Viewer`);
- :mod:`rallypoint.core.declarations`: what a ruleset declares secret, and the open fallback;
- :mod:`rallypoint.core.redaction`: what each event hides, the log as a viewer sees it, and the
  checks of what was shown (the chain of a redacted log, the reveal);
- this module: the state view and pending decisions as a viewer sees them, and which commands a
  viewer may make. It re-exports the names of the others, the one place front ends and the
  session import them from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rallypoint.core.declarations import (
    NOTHING,
    OPEN,
    REFEREE_ONLY,
    Declaration,
    EventSecrets,
    OpenDeclaration,
    Owners,
    Secret,
    declaration_of,
)
from rallypoint.core.errors import RallypointError
from rallypoint.core.jsonpaths import redact_value
from rallypoint.core.redaction import (
    BLIND,
    COMMAND,
    REDACTED,
    WITHHELD,
    check_reveal,
    event_secrets,
    is_redacted,
    redact_events,
    verify_visible_chain,
)
from rallypoint.core.viewers import EVERYTHING, PUBLIC, REFEREE, Role, Viewer

__all__ = [
    "BLIND",
    "COMMAND",
    "EVERYTHING",
    "NOTHING",
    "OPEN",
    "PUBLIC",
    "REDACTED",
    "REFEREE",
    "REFEREE_ONLY",
    "WITHHELD",
    "Declaration",
    "EventSecrets",
    "NotYourSeatError",
    "OpenDeclaration",
    "Owners",
    "Role",
    "Secret",
    "Viewer",
    "authorize_command",
    "check_reveal",
    "declaration_of",
    "event_secrets",
    "is_redacted",
    "redact_events",
    "redact_state",
    "redact_view",
    "verify_visible_chain",
    "visible_decisions",
]


class NotYourSeatError(RallypointError):
    """A command or decision that belongs to another seat."""

    code = "not-your-seat"


def redact_view(view: Mapping[str, Any], scenario: Mapping[str, Any], viewer: Viewer,
                declaration: Declaration) -> dict[str, Any]:
    """A campaign view (``campaign_view``: ``state`` and ``pending``) as ``viewer`` may see it:
    secret parts of the state left out, and only the pending decisions the viewer owns or that
    belong to no side."""
    if _hides_nothing_from(viewer, scenario, declaration):
        return dict(view)
    out = dict(view)
    state = view.get("state") or {}
    out["state"] = redact_state(state, scenario, viewer, declaration)
    out["pending"] = [d for d in view.get("pending") or []
                      if _sees_owned(viewer, declaration.decision_owner(scenario, state, d))]
    return out


def redact_state(state: Mapping[str, Any], scenario: Mapping[str, Any], viewer: Viewer,
                 declaration: Declaration) -> dict[str, Any]:
    """A ruleset's state view (``state_json``) without what ``viewer`` may not see."""
    if _hides_nothing_from(viewer, scenario, declaration):
        return dict(state)
    hidden = [s for s in declaration.view_secrets(scenario, state) if not viewer.sees(s.owner)]
    return redact_value(state, hidden, marker=False)


def visible_decisions(decisions: Sequence[Mapping[str, Any]], state: Mapping[str, Any],
                      scenario: Mapping[str, Any], viewer: Viewer,
                      declaration: Declaration) -> list[int]:
    """Indexes of the decisions ``viewer`` sees (their own, and those of no side)."""
    if _hides_nothing_from(viewer, scenario, declaration):
        return list(range(len(decisions)))
    return [n for n, d in enumerate(decisions)
            if _sees_owned(viewer, declaration.decision_owner(scenario, state, d))]


def _hides_nothing_from(viewer: Viewer, scenario: Mapping[str, Any],
                        declaration: Declaration) -> bool:
    """Whether nothing is filtered for ``viewer``: they see every secret, or the campaign has
    fewer than two sides (one player has no one to hide from)."""
    return viewer.sees_all() or len(declaration.sides(scenario)) < 2


def _sees_owned(viewer: Viewer, owner: str | None) -> bool:
    """Whether ``viewer`` sees a thing owned by ``owner`` (``None``: no side's, so anyone's)."""
    return owner is None or viewer.sees(owner)


def authorize_command(command: Mapping[str, Any], state: Mapping[str, Any],
                      scenario: Mapping[str, Any], viewer: Viewer,
                      declaration: Declaration) -> None:
    """Refuse a command ``viewer`` may not make (it acts for another side).

    Raises:
        NotYourSeatError: The command belongs to another seat, or the viewer has no seat.
    """
    if viewer.role in (Role.ALL, Role.REFEREE):
        return
    if viewer.role is Role.PUBLIC:
        raise NotYourSeatError("only a seated player can change this campaign",
                               fix="Join a seat with its invite, then log in.")
    owner = declaration.command_owner(scenario, state, command)
    if not viewer.may_act_for(owner):
        # The message never names the owner: a guess must not learn whose (or whether) a thing
        # it names is.
        raise NotYourSeatError(
            f"this {command.get('kind', 'command')!r} is not yours to make as {viewer.name}: it "
            "acts for another side, or names nothing of yours",
            fix="Make commands for your own side's units and sheets; the referee may make any.")
