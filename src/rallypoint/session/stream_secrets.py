"""A hidden game's log checked one event at a time: what each event hides and the withheld
digest, with memory that does not follow the log.

The whole checks take a hidden log as a list: :func:`rallypoint.core.redaction.event_secrets`
over all of it (a seat's view, ``rederive._SeatView``, is redacted whole before it is folded).
The streamed import (:mod:`rallypoint.session.turn_stream`) and reveal
(:mod:`rallypoint.session.reveal_stream`) take the same answers one event at a time
(:class:`rallypoint.core.redaction.SecretsWalk`, here with a window; the withheld digest:
:class:`rallypoint.store.visibility.RedactedDigest`). What cannot be answered from what is kept (an
undo of an event that hid something, so far back that its secrets were let go) raises
:class:`Forgotten`: the streamed pass then leaves the file to the whole check.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from rallypoint.core.events import EventRecord
from rallypoint.core.redaction import Forgotten, SecretsWalk

__all__ = ["KEPT", "Forgotten", "Secrets", "kept_only"]

KEPT: Final = 1024
"""The secrets of this many of the latest events that hid anything are kept for their undos (an
undo cancels the latest event in effect: a run of undos longer than this is checked whole)."""


def kept_only(first: int, stop: int) -> Iterator[EventRecord]:
    """A fold's source that has nothing to read again: an undo reaching back past what the fold
    keeps (a long run of undos) is decided by the whole check."""
    raise Forgotten
    yield  # a generator, as a fold's source is


class Secrets(SecretsWalk):
    """:func:`rallypoint.core.redaction.event_secrets` one event at a time, keeping the secrets
    of the latest :data:`KEPT` events that hid anything.

    Args:
        created: The ``created`` event.
    """

    def __init__(self, created: EventRecord) -> None:
        super().__init__(created, keep=KEPT)
