"""Whose commands a seat's database may decide: its own side's, and public ones (issue 18).

Each ruleset declares whose each command is (its plugin's ``secrets`` part,
:meth:`rallypoint.core.visibility.Declaration.command_owner`). The web refuses a command for the
other side's units at its edge; a database that holds a seat key (play by e-mail) refuses it
here, in the session, so no front end can act for the other side: the CLI, the library, the web
alike. The one exception is answering the other seat's open dice request: that database decides
the requester's command, exactly as the request named it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.core.visibility import Viewer, authorize_command, declaration_of
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
