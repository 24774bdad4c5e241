"""Whose commands a seat's database may decide: its own side's, and public ones (issue 18).

Each ruleset declares whose each command is (its plugin's ``secrets`` part,
:meth:`rallypoint.core.visibility.Declaration.command_owner`). The web refuses a command for the
other side's units at its edge; a database that holds a seat key (play by e-mail) refuses it
here, in the session, so no front end can act for the other side: the CLI, the library, the web
alike. The one exception is answering the other seat's open dice request: that database decides
the requester's command, exactly as the request named it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.core.visibility import (
    NotYourSeatError,
    Role,
    Viewer,
    authorize_command,
    declaration_of,
)
from rallypoint.dice.sealed import parse_request
from rallypoint.dice.v1 import command_json
from rallypoint.store import EventStore


def held_seats(store: EventStore, created: Mapping[str, Any]) -> tuple[str, ...]:
    """The seats of a campaign's ``created`` payload whose private keys ``store`` holds."""
    from rallypoint.store.signing import seat_cards

    return tuple(s for s, c in seat_cards(dict(created)).items()
                 if store.seat_key(c.key) is not None)


def deciding_seat(store: EventStore, campaign: Campaign) -> str | None:
    """The seat this database decides for: the one seat key it holds (``None``: no seats, or a
    database that holds every seat, which may act for any)."""
    held = held_seats(store, campaign.events[0].payload)
    return held[0] if len(held) == 1 else None


def check_owner(store: EventStore, campaign: Campaign, command: Mapping[str, Any],
                seat: str | None) -> None:
    """Refuse a command for another side's units in a database that holds one seat.

    Args:
        store: The database (its kept dice requests name what may be answered).
        campaign: The campaign as the command is decided against it.
        command: The command's JSON.
        seat: :func:`deciding_seat`.

    Raises:
        NotYourSeatError: The command acts for another side, and answers no dice request of
            that side waiting here.
    """
    if seat is None or _answers_request(store, campaign.campaign_id, command, seat):
        return
    declaration = declaration_of(campaign.ruleset.name)
    authorize_command(command, campaign.ruleset.state_json(campaign.state),
                      campaign.created.scenario, Viewer.of_side(seat), declaration)


def offered(campaign: Campaign, viewer: Viewer, kind: str, field: str,
            values: Iterable[str], *, many: bool = False,
            state: Mapping[str, Any] | None = None) -> list[str]:
    """The values of one command field that ``viewer`` may make a ``kind`` command with.

    A front end lists only these in a form (issue 22: a seat's forms offer its own side's
    units), asking the ruleset's ownership declaration exactly as the check of a sent command
    does (:func:`~rallypoint.core.visibility.authorize_command`), so the form and the check
    never disagree and no front end reads a unit's side from text.

    Args:
        campaign: The campaign as it stands.
        viewer: Who the form is for (the local player and the referee: every value).
        kind: The command's kind (``"loss"``, ``"activate"``).
        field: The command field the values fill (``"counter"``, ``"who"``).
        values: Every value the form could offer, in the order to keep.
        many: The field is a list (``members``): each value is asked about alone.
        state: The campaign's whole state view (``state_json``), if the caller has it.
    """
    if viewer.role in (Role.ALL, Role.REFEREE):
        return list(values)
    declaration = declaration_of(campaign.ruleset.name)
    state = campaign.ruleset.state_json(campaign.state) if state is None else state
    kept: list[str] = []
    for value in values:
        command = {"kind": kind, field: [value] if many else value}
        try:
            authorize_command(command, state, campaign.created.scenario, viewer, declaration)
        except NotYourSeatError:
            continue
        kept.append(value)
    return kept


def _answers_request(store: EventStore, campaign_id: str, command: Mapping[str, Any],
                     seat: str) -> bool:
    """Whether ``command`` is exactly the command of another seat's open request kept here
    (``rallypoint dice answer`` decides it in this database)."""
    wanted = command_json(command)
    for _, asker, text in store.dice_requests(campaign_id):
        if asker == seat:
            continue
        asked = getattr(parse_request(text), "command", None)
        if asked is not None and command_json(asked) == wanted:
            return True
    return False
