"""How the session gives a command its dice: dice-v1 from the store's secret, typed-in dice marked
as such, or (campaigns from before dice-v1) the public seed. See docs/dice.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.core.events import NewEvent
from rallypoint.core.ruleset import Command
from rallypoint.dice import Roller, ScriptedRoller
from rallypoint.dice.audit import DiceReport
from rallypoint.dice.play import roller_for, scheme_of, with_proof
from rallypoint.store import EventStore


def secret_of(store: EventStore, campaign: Campaign) -> bytes | None:
    """The campaign's server-mode dice secret, if this store keeps it."""
    if scheme_of(campaign.events[0].payload) is None:
        return None
    kept = store.dice_secret(campaign.campaign_id)
    return None if kept is None else bytes.fromhex(kept[0])


def decide(campaign: Campaign, command: Command, dice: str | Sequence[int] | None,
           roller: Callable[[Campaign], Roller] | None, secret: bytes | None,
           seeded_roller: Callable[[Campaign], Roller]) -> NewEvent:
    """The event for ``command``, checking that scripted dice were all used.

    In a ``dice-v1`` campaign the dice come from the committed secret (or, typed in, are marked
    so) and the event carries their proof; older campaigns roll from their public seed.
    """
    v1 = scheme_of(campaign.events[0].payload) is not None
    if dice is not None:
        scripted = ScriptedRoller.parse(dice) if isinstance(dice, str) else ScriptedRoller(dice)
        used: Roller = scripted
        if v1:
            used = roller_for(campaign.events, command.model_dump(mode="json"), secret=None,
                              script=scripted)
        event = campaign.decide(command, used)
        if scripted.remaining:
            raise MalformedInputError(
                f"--dice gave {scripted.used + scripted.remaining} value(s) but the command used "
                f"{scripted.used}", fix="Drop the extra values (nothing was recorded).")
        return with_proof(event, used)
    if roller is not None:
        return campaign.decide(command, roller(campaign))
    if not v1:
        return campaign.decide(command, seeded_roller(campaign))
    proven = _v1_roller(campaign, command, secret)
    return with_proof(campaign.decide(command, proven), proven)


def _v1_roller(campaign: Campaign, command: Command, secret: bytes | None) -> Roller:
    """The dice-v1 roller of a command; a command that rolls nothing needs no secret."""
    if secret is None:
        # Decide once with no dice at all: a command that rolls nothing may go ahead anywhere.
        return roller_for(campaign.events, command.model_dump(mode="json"), secret=None,
                          script=_NoDice())
    return roller_for(campaign.events, command.model_dump(mode="json"), secret=secret)


class _NoDice:
    """A roller for a store without the campaign's secret: any roll is refused, with the fix."""

    def faces(self, node: Any) -> tuple[int, ...]:
        raise IllegalNowError(
            f"{node.purpose!r} needs dice, and this database does not hold this campaign's "
            "dice secret", fix="roll where the campaign was created, or type in physical dice "
            "with --dice (marked as typed in the log)")




def verify_file(path: Path) -> tuple[int, DiceReport]:
    """Re-check an export file offline: header and head, chain, a fold of every event (as
    ``import`` does), then every roll (``rallypoint verify FILE``).

    Returns:
        The number of events and the dice audit.

    Raises:
        DataFileError: The file is not a readable export.
        IntegrityError: The header, chain, head or a fold fails.
    """
    from rallypoint.core.campaign import stored_rolls
    from rallypoint.core.ruleset import get_ruleset
    from rallypoint.dice.audit import audit
    from rallypoint.store.exchange import _check_importable, check_header, read_export
    from rallypoint.store.foldcheck import check_import

    exported = read_export(path)
    header = exported.campaign
    _check_importable(header.id, exported.events)
    check_header(exported)
    check_import(header, exported.events)
    return len(exported.events), audit(exported.events, stored_rolls(get_ruleset(header.ruleset)))
