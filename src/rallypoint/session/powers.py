"""Who may do what to a shared campaign beyond playing their own side (docs/web.md).

Declared once, here, as a table from what an account is to a campaign (:class:`Standing`) to
what it may do (:class:`Power`); :class:`~rallypoint.session.seats.SeatBook` works out the
standings from its tables and refuses what the table does not grant. Playing a side (commands,
decisions, undoing its own events) is not here: the ruleset's declaration says whose each command
is (:mod:`rallypoint.core.visibility`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from rallypoint.core.visibility import NotYourSeatError


class Power(StrEnum):
    """What an account may do to a shared campaign beyond playing its own side."""

    INVITE = "invite"
    """Make a new invite for a free seat (the seat's old invite stops working)."""
    RENAME = "rename"
    """Give the campaign a new name."""
    DELETE = "delete"
    """Delete the campaign (a backup export is written first)."""
    REVEAL = "reveal"
    """Reveal everything to every seat by its word alone (otherwise every side must ask)."""
    TYPE_DICE = "type dice"
    """Type in the dice of a command (they choose its outcome)."""
    UNDO_ANY = "undo any"
    """Undo any seat's latest event without asking the other sides."""


class Standing(StrEnum):
    """What an account is to a shared campaign (it may be several: a creator holding a seat)."""

    CREATOR = "creator"
    """Opened the campaign (a seat of it or not)."""
    REFEREE = "referee"
    """Holds the referee's seat (one exists only if the creator opened it)."""
    SIDE = "side"
    """Holds a side's seat: plays that side, and has no power over the campaign."""


POWERS: Final[Mapping[Standing, frozenset[Power]]] = MappingProxyType({
    Standing.CREATOR: frozenset({Power.INVITE, Power.RENAME, Power.DELETE}),
    Standing.REFEREE: frozenset(Power),
    Standing.SIDE: frozenset(),
})
"""Who may do what (docs/web.md has the same table). The creator's :attr:`Power.DELETE` holds
only while no one else holds a seat, or once the campaign is revealed (it has ended), so that a
creator cannot wipe a game in play; the referee's holds always. Typed dice, the reveal by one
word and undoing any event are the referee's alone: a campaign without a referee has no dice
typed in, is revealed when every side asks, and undoes an event only by its maker with the
other sides' consent."""


def granted(standings: Iterable[Standing], *, others_seated: bool, revealed: bool
            ) -> frozenset[Power]:
    """Every power of an account with these standings (:data:`POWERS`).

    Args:
        standings: What the account is to the campaign.
        others_seated: Whether another account holds a seat of it.
        revealed: Whether it is revealed (its end).
    """
    found = set(standings)
    powers = frozenset().union(*(POWERS[s] for s in found))
    if Standing.REFEREE not in found and others_seated and not revealed:
        # A creator may not wipe a game another player is in the middle of.
        powers -= {Power.DELETE}
    return powers


def refusal(power: Power) -> NotYourSeatError:
    """The refusal of ``power`` to an account without it (saying who has it)."""
    what, fix = _REFUSALS[power]
    return NotYourSeatError(f"{what}, not you", fix=fix)


_REFUSALS: Final[Mapping[Power, tuple[str, str]]] = MappingProxyType({
    # power: (what is wrong, how to fix it)
    Power.INVITE: ("only the campaign's creator or its referee makes invites",
                   "Ask the campaign's creator (or its referee) for a new invite."),
    Power.RENAME: ("only the campaign's creator or its referee renames it",
                   "Ask the campaign's creator (or its referee) to rename it."),
    Power.DELETE: ("only the referee deletes a campaign in play (its creator: before anyone "
                   "else has joined, or once all is revealed)",
                   "Ask the referee, or ask every side for the reveal first (the game's end)."),
    Power.REVEAL: ("only the referee reveals everything alone",
                   "Every side asks for the reveal instead."),
    Power.TYPE_DICE: ("only the referee types dice in",
                      "Leave the dice empty to roll dice-v1 dice."),
    Power.UNDO_ANY: ("only the referee undoes another seat's event",
                     "Ask the seat that made the event to undo it."),
})
