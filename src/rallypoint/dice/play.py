"""How a command gets its dice in a ``dice-v1`` campaign, and how the proof joins its event.

The front end (the session) calls :func:`roller_for` with what it knows — the log, the command,
the server secret the store keeps, any typed-in script — decides the command with the roller it
gets back, and passes the event through :func:`with_proof`. Rule code never sees any of this.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rallypoint.dice.audit import DICE_KEY, PROOF_KEY, LoggedEvent, logical_position
from rallypoint.dice.rollers import Roller
from rallypoint.dice.v1 import (
    SECRET_BYTES,
    DiceMode,
    ProvenRoller,
    ServerCommitment,
    commitment,
    server_roller,
    typed_roller,
)
from rallypoint.errors import Hint, IllegalNowError

if TYPE_CHECKING:  # an annotation only: dice imports nothing of core at run time
    from rallypoint.core.events import NewEvent


def commit_server_dice(created: Mapping[str, Any]) -> tuple[dict[str, Any], bytes]:
    """A ``created`` payload made a server-mode ``dice-v1`` campaign's, and its fresh secret.

    The public ``seed`` (if any) is dropped and the commitment to a new 32-byte secret from the
    operating system takes its place; the caller keeps the secret in the store, out of the log.
    """
    secret = os.urandom(SECRET_BYTES)
    payload = {k: v for k, v in created.items() if k != "seed"}
    payload[DICE_KEY] = ServerCommitment(commitment=commitment(secret)).model_dump(mode="json")
    return payload, secret


def scheme_of(created: Mapping[str, Any]) -> DiceMode | None:
    """The ``dice-v1`` mode a campaign was created with, or ``None`` for a pre-dice-v1 one."""
    spec = created.get(DICE_KEY)
    if not isinstance(spec, Mapping):
        return None
    return DiceMode(str(spec.get("mode")))


def roller_for(events: Sequence[LoggedEvent], command: Mapping[str, Any], *,
               secret: bytes | None, script: Roller | None = None,
               agreed: Sequence[str] = (), position: int | None = None,
               seat: str | None = None) -> ProvenRoller:
    """The roller for ``command`` decided now, at the log's logical position.

    Args:
        events: The campaign's whole log.
        command: The command's JSON.
        secret: The campaign's server secret (from the store), for a server-mode campaign.
        script: Typed-in physical dice, if the players rolled them by hand.
        agreed: The seats that agreed to typed-in dice.
        position: The logical position, if the caller knows it better than ``events`` (a
            snapshot-resumed campaign holds only the tail of its log).
        seat: Two-seat play: the seat whose command it is.

    Raises:
        IllegalNowError: No script and no secret: this store does not hold the campaign's dice
            (an imported pair-mode campaign rolls by rounds, not here).
    """
    if position is None:
        position = logical_position(events)
    if script is not None:
        return typed_roller(script, position, command, agreed, seat=seat)
    if secret is None:
        raise IllegalNowError(
            "this database does not hold the dice secret of this campaign",
            fix="roll where the campaign was created, or type in physical dice with --dice",
            instead=Hint.DICE)
    return server_roller(secret, position, command)


def with_proof(event: NewEvent, roller: Roller) -> NewEvent:
    """``event`` with the proof of its dice under ``dice_proof`` (unchanged if none rolled)."""
    if not isinstance(roller, ProvenRoller):
        return event
    proof = roller.proof()
    if proof is None:
        return event
    dumped = proof.model_dump(mode="json")
    for optional in ("seat", "commitment", "nonce"):
        if dumped.get(optional) is None:
            dumped.pop(optional, None)  # older proofs keep the shape they always had
    return event.model_copy(update={"payload": {**event.payload, PROOF_KEY: dumped}})
