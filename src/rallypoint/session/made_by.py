"""The command an event records (:class:`rallypoint.core.events.MadeBy`): whether it must carry
one, and whether the command is the deciding seat's to make (issue 18; used by
:mod:`rallypoint.session.rederive` on every foreign event)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import CREATED, MADE_BY, UNDONE, EventRecord
from rallypoint.core.inputs import shorten
from rallypoint.core.visibility import declaration_of, is_redacted
from rallypoint.dice.audit import PROOF_KEY

DISTRUST = "Do not trust this file: the sender's events are not what their commands decide " \
           "(nothing was written)"
"""The fix of every refusal over a foreign event."""


def made_by(record: EventRecord) -> Mapping[str, Any] | None:
    """The command envelope of an event shown whole, if it carries one."""
    made = record.payload.get(MADE_BY)
    return made if isinstance(made, Mapping) else None


def commands_required(created: Mapping[str, Any]) -> bool:
    """Whether every ruleset event of the campaign must carry its command (it was created by a
    version that records them: stripping one would only hide it from re-derivation)."""
    return created.get("commands") is not None


def check_carried(record: EventRecord, required: bool) -> Mapping[str, Any] | None:
    """The event's command envelope; refuses a ruleset event shown whole without one where the
    campaign records them (``required``, or once an earlier event carried one)."""
    if record.type in (CREATED, UNDONE) or is_redacted(record):
        return None
    made = made_by(record)
    if made is None and required:
        raise IntegrityError(
            f"#{record.seq} ({shorten(record.type, 40)}) carries no command, and this campaign "
            "records the command of every event", where=f"seq {record.seq}", fix=DISTRUST)
    return made


def check_owner(campaign: Campaign, record: EventRecord, made: Mapping[str, Any],
                mine: Sequence[str] = ()) -> None:
    """The event's command belongs to the seat that decided it, or to no side; or it resolves
    a dice round of its owner (its proof names that seat: an answered open request, which the
    import's dice checks hold to the command that seat asked for).

    Raises:
        IntegrityError: The command acts for another side.
    """
    seat = made.get("seat")
    body = made.get("command")
    if seat is None or not isinstance(body, Mapping):
        return
    declaration = declaration_of(campaign.ruleset.name)
    owner = declaration.command_owner(campaign.created.scenario, _StateView(campaign), body)
    proof = record.payload.get(PROOF_KEY)
    resolved = proof.get("seat") if isinstance(proof, Mapping) else None
    if owner is None or owner == seat or (owner == resolved and (not mine or owner in mine)):
        return
    raise IntegrityError(
        f"#{record.seq} ({shorten(record.type, 40)}) is a {shorten(str(body.get('kind')), 30)!r} "
        f"command for another side's units, decided by {seat}'s database",
        where=f"seq {record.seq}", fix="Do not trust this file: a seat may act only for its own "
        "side (nothing was written)")


class _StateView(Mapping[str, Any]):
    """A campaign's state view (``state_json``), built only if a declaration reads it: most
    commands' owners follow from the scenario alone."""

    def __init__(self, campaign: Campaign) -> None:
        self._campaign = campaign
        self._view: dict[str, Any] | None = None

    def _built(self) -> dict[str, Any]:
        if self._view is None:
            self._view = self._campaign.ruleset.state_json(self._campaign.state)
        return self._view

    def __getitem__(self, key: str) -> Any:
        return self._built()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())
