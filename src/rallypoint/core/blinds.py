"""Blinds: a random value joined to every event that hides a secret from a seat (issue 18).

A redacted event's hash commits its owner to the whole event (checked at the reveal), but a
secret with few possible values (a sheet's name, center and size, its row, a seed typed as a
word) could be recovered from that hash by hashing every guess until one matches. A 128-bit
random ``blind`` in the payload, never shown to a seat it hides from, makes that hopeless. The
front ends draw it (rules never call an RNG); this module says which events need one, from the
ruleset's secrets declaration (:mod:`rallypoint.core.visibility`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from rallypoint.core.events import CREATED, UNDONE, EventRecord, NewEvent
from rallypoint.core.visibility import BLIND, Declaration, declaration_of, is_redacted


def with_blind(records: Sequence[EventRecord], event: NewEvent, blind: str,
               declaration: Declaration | None = None) -> NewEvent:
    """``event`` with ``blind`` (the front end's fresh random value, e.g. 128 bits in hex) if it
    would hide anything from a seat of its campaign, else unchanged.

    Without it, an opponent could recover a secret with few possible values (a sheet's name,
    center and size, its row, its weighted turns) by hashing every guess until one matches the
    event's hash. Every kind of event is covered: a ruleset's, an ``undone`` whose target hid
    anything (it withholds the target's summary), and a ``created`` with a plain dice seed in a
    campaign of two or more sides.

    Args:
        records: The campaign's log so far, ``created`` first (empty for a ``created`` event);
            for an ``undone``, a log that holds its target (else it is blinded anyway).
        event: The event about to be recorded.
        blind: The random value.
        declaration: The ruleset's secrets declaration (default: the campaign's ruleset's).
    """
    created = records[0].payload if records else event.payload
    if not records and event.type != CREATED:
        return event
    declared = declaration or declaration_of(str(created.get("ruleset", "")))
    scenario = created.get("scenario") or {}
    if len(declared.sides(scenario)) < 2 or not _hides(records, event, declared, scenario):
        return event
    return event.model_copy(update={"payload": {**event.payload, BLIND: blind}})


def _hides(records: Sequence[EventRecord], event: NewEvent, declared: Declaration,
           scenario: Mapping[str, Any]) -> bool:
    """Whether ``event`` (of a campaign with two or more sides) hides anything from a seat."""
    if event.type == CREATED:
        return event.payload.get("seed") is not None
    if event.type == UNDONE:
        wanted = event.payload.get("target")
        target = next((r for r in records if r.seq == wanted), None)
        if target is None or is_redacted(target):
            return True  # not in hand, or a redacted event: it hid something (it may, at least)
        if target.type in (CREATED, UNDONE):
            return False
        event_type, payload = target.type, target.payload
    else:
        event_type, payload = event.type, event.payload
    # Owners do not matter here: only whether the event hides anything at all.
    hides, _ = declared.event_secrets(scenario, MappingProxyType({}), event_type, payload)
    return hides.secret
