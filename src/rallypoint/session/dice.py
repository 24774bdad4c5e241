"""How the session gives a command its dice: dice-v1 from the store's secret, a pair round of both
seats' links, typed-in dice marked as such, or (campaigns from before dice-v1) the public seed.
See docs/dice.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.core.events import NewEvent
from rallypoint.core.ruleset import Command
from rallypoint.dice import Roller, ScriptedRoller
from rallypoint.dice.audit import DICE_KEY, LoggedEvent, logical_position
from rallypoint.dice.play import roller_for, scheme_of, with_proof
from rallypoint.dice.v1 import DiceMode, ProvenRoller
from rallypoint.errors import Hint
from rallypoint.session import pair, sealed
from rallypoint.store import EventStore

AwaitingDice = pair.AwaitingDice


@dataclass
class DiceKeys:
    """What the store holds for one command's dice, read once before it is decided.

    Attributes:
        position: The logical position the command is decided at (from the whole log when the
            snapshot-resumed tail cannot say, e.g. right after an undo).
        secret: The server-mode secret, if this store keeps it.
        revealed: The secret was revealed: its dice are public, so no new roll may use it.
        pair: Pair mode: this player's seats and the campaign's rounds.
        seats: Two-seat play: every seat, and which of them this store holds keys for.
    """

    position: int
    secret: bytes | None = None
    revealed: bool = False
    pair: pair.PairSeat | None = None
    seats: tuple[str, ...] = ()
    mine: tuple[str, ...] = field(default_factory=tuple)
    physical_dice: bool = False


Keys = DiceKeys | None


def secret_of(store: EventStore, campaign: Campaign) -> Keys:
    """What this store holds for the next command's dice (``None``: a pre-dice-v1 campaign)."""
    created = campaign.events[0].payload
    mode = scheme_of(created)
    if mode is None:
        return None
    from rallypoint.store.signing import seat_cards  # only campaigns with seats need it

    cards = seat_cards(created)
    mine = tuple(s for s, c in cards.items() if store.seat_key(c.key) is not None)
    log: Sequence[LoggedEvent] = campaign.events
    if not _position_known(campaign):
        log = store.events(campaign.campaign_id)
    keys = DiceKeys(position=logical_position(log), seats=tuple(sorted(cards)), mine=mine,
                    physical_dice=bool(cards) and all(c.physical_dice for c in cards.values()))
    if mode is DiceMode.PAIR:
        # The rounds are read from the whole log only if the command rolls (lazily).
        keys.pair = pair.PairSeat.read(store, campaign.campaign_id, created.get(DICE_KEY, {}),
                                       cards, sealed=sealed.is_sealed(campaign.ruleset.name,
                                                                      cards))
        return keys
    kept = store.dice_secret(campaign.campaign_id)
    if kept is not None:
        keys.secret, keys.revealed = bytes.fromhex(kept[0]), kept[1] is not None
    return keys


def _position_known(campaign: Campaign) -> bool:
    """Whether the events a campaign holds (after a snapshot, only the tail) fix its position:
    a tail whose effective events were all undone reaches back before the snapshot."""
    events = campaign.events
    return len(events) == campaign.version or logical_position(events) != 1


def decide(campaign: Campaign, command: Command, dice: str | Sequence[int] | None,
           roller: Callable[[Campaign], Roller] | None, secret: Keys,
           seeded_roller: Callable[[Campaign], Roller]) -> NewEvent:
    """The event for ``command``, checking that scripted dice were all used.

    In a ``dice-v1`` campaign the dice come from the committed secret or a pair round (or, typed
    in, are marked so) and the event carries their proof; older campaigns roll from their public
    seed.
    """
    v1 = scheme_of(campaign.events[0].payload) is not None
    if secret is not None and secret.pair is not None and secret.pair.sealed:
        # A sealed round open here (answered, or this seat's request waiting) holds the log.
        seats = secret.pair
        sealed.hold(seats.store, seats.campaign_id, tuple(seats.seeds), secret.position,
                    command.model_dump(mode="json"))
    if dice is not None:
        return _typed(campaign, command, dice, secret if v1 else None, v1)
    if roller is not None:
        given = roller(campaign)
        return with_proof(campaign.decide(command, given), given)
    if not v1:
        return campaign.decide(command, seeded_roller(campaign))
    keys = secret or DiceKeys(position=logical_position(campaign.events))
    lazy = _Lazy(campaign, command, keys)
    event = campaign.decide(command, lazy)
    return event if lazy.inner is None else with_proof(event, lazy.inner)


def _typed(campaign: Campaign, command: Command, dice: str | Sequence[int], keys: Keys,
           v1: bool) -> NewEvent:
    """Physical dice typed in: in two-seat play only when every seat's signed card agreed."""
    scripted = ScriptedRoller.parse(dice) if isinstance(dice, str) else ScriptedRoller(dice)
    used: Roller = scripted
    if not v1:
        # A plain-seed campaign's typed dice are marked too, so its own `verify` tells them
        # from seeded dice that fail to reproduce (before, nothing told them apart).
        used = roller_for(campaign.events, command.model_dump(mode="json"), secret=None,
                          script=scripted)
    else:
        seats = keys.seats if keys else ()
        if seats and not keys.physical_dice:  # type: ignore[union-attr]
            raise IllegalNowError(
                "typed-in dice (--dice) need every seat's agreement, and this campaign's seat "
                "cards do not all allow physical dice", fix="Roll with the campaign's dice-v1 "
                "dice (leave out --dice), or start a campaign from cards made with "
                "`rallypoint seat new SIDE --physical-dice`", instead=Hint.DICE)
        mine = keys.mine if keys else ()
        used = roller_for(campaign.events, command.model_dump(mode="json"), secret=None,
                          script=scripted, agreed=seats,
                          position=keys.position if keys else None,
                          seat=mine[0] if len(mine) == 1 else None)
    event = campaign.decide(command, used)
    if scripted.remaining:
        raise MalformedInputError(
            f"the dice typed gave {scripted.used + scripted.remaining} value(s) but the command "
            f"used {scripted.used}", fix="Drop the extra values (nothing was recorded).")
    return with_proof(event, used)


class _Lazy:
    """The dice-v1 roller of a command, chosen at its first die: a command that rolls nothing
    needs no secret and no round, and goes ahead anywhere."""

    def __init__(self, campaign: Campaign, command: Command, keys: DiceKeys) -> None:
        self._campaign, self._command, self._keys = campaign, command, keys
        self.inner: ProvenRoller | None = None

    def faces(self, node: Any) -> tuple[int, ...]:
        if self.inner is None:
            self.inner = self._choose(node)
        return self.inner.faces(node)

    def _choose(self, node: Any) -> ProvenRoller:
        keys = self._keys
        command = self._command.model_dump(mode="json")
        if keys.pair is not None:
            return keys.pair.roller(keys.position, command)
        if keys.revealed:
            raise IllegalNowError(
                f"{node.purpose!r} needs dice, and this campaign's dice secret has been revealed "
                "(its dice are public now)", fix="The campaign is over for dice-v1; start a new "
                "campaign to keep playing with secret dice")
        if keys.secret is None:
            raise IllegalNowError(
                f"{node.purpose!r} needs dice, and this database does not hold this campaign's "
                "dice secret", fix="Roll where the campaign was created, or type in physical "
                "dice with --dice (marked as typed in the log)", instead=Hint.DICE)
        return roller_for(self._campaign.events, command, secret=keys.secret,
                          position=keys.position)


def check_undo(store: EventStore, campaign: Campaign, target: int) -> None:
    """In two-seat play, undoing a resolved roll needs the other seat: only a seat other than
    the one whose command it was may append the undo (docs/dice.md).

    Raises:
        IllegalNowError: This store holds only the acting seat's key.
    """
    pair.check_undo(store, campaign, target)
    from rallypoint.store.signing import seat_cards

    cards = seat_cards(campaign.events[0].payload)
    if sealed.is_sealed(campaign.ruleset.name, cards):  # an open sealed round holds undo too
        mine = tuple(s for s, c in cards.items() if store.seat_key(c.key) is not None)
        sealed.hold(store, campaign.campaign_id, mine,
                    logical_position(store.events(campaign.campaign_id)), None)
