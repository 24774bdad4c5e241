"""A hidden game's log checked one event at a time: what each event hides and the withheld
digest, with memory that does not follow the log.

The whole checks take a hidden log as a list: :func:`rallypoint.core.redaction.event_secrets`
over all of it (a seat's view, ``rederive._SeatView``, is redacted whole before it is folded),
:func:`rallypoint.store.visibility.redacted_digest` over its redacted events. The streamed import
(:mod:`rallypoint.session.turn_stream`) and reveal (:mod:`rallypoint.session.reveal_stream`)
take the same answers here one event at a time. What cannot be answered from what is kept (an
undo of an event that hid something, so far back that its secrets were let go) raises
:class:`Forgotten`: the streamed pass then leaves the file to the whole check.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any, Final

from rallypoint.core.declarations import NOTHING, Declaration, EventSecrets, Owners
from rallypoint.core.events import CREATED, UNDONE, EventRecord, canonical_json
from rallypoint.core.redaction import _created_secrets, _undone_secrets
from rallypoint.core.visibility import declaration_of, is_redacted

KEPT: Final = 1024
"""The secrets of this many of the latest events that hid anything are kept for their undos (an
undo cancels the latest event in effect: a run of undos longer than this is checked whole)."""


class Forgotten(Exception):
    """What an event hides depends on an event whose secrets were not kept: check it whole."""


def kept_only(first: int, stop: int) -> Iterator[EventRecord]:
    """A fold's source that has nothing to read again: an undo reaching back past what the fold
    keeps (a long run of undos) is decided by the whole check."""
    raise Forgotten
    yield  # a generator, as a fold's source is


class Secrets:
    """:func:`rallypoint.core.redaction.event_secrets` one event at a time.

    Args:
        created: The ``created`` event.
    """

    def __init__(self, created: EventRecord) -> None:
        self._scenario: dict[str, Any] = created.payload.get("scenario") or {}
        self.declared: Declaration = declaration_of(str(created.payload.get("ruleset", "")))
        self._shared = len(self.declared.sides(self._scenario)) > 1
        self._owners: Owners = MappingProxyType({})
        self._by_seq: dict[int, EventSecrets] = {}  # the latest KEPT events that hide something
        self._floor = 0  # every event below this seq that hid something was let go

    def of(self, record: EventRecord) -> EventSecrets:
        """What ``record`` hides (the next event of the log).

        Raises:
            Forgotten: It is an undo of an event whose secrets were let go.
        """
        if record.type == CREATED:
            hides = _created_secrets(record, shared=self._shared)
        elif record.type == UNDONE:
            target = record.payload.get("target")
            if isinstance(target, int) and target < self._floor:
                raise Forgotten
            hides = _undone_secrets(record, self._by_seq)
        elif self._shared:
            hides, self._owners = self.declared.event_secrets(
                self._scenario, self._owners, record.type, record.payload)
        else:
            hides = NOTHING
        if hides.secret:  # an undo reads only its target's secret (NOTHING when absent)
            self._by_seq[record.seq] = hides
            if len(self._by_seq) > KEPT:
                self._floor = next(iter(self._by_seq)) + 1
                del self._by_seq[self._floor - 1]
        return hides


class RedactedDigest:
    """:func:`rallypoint.store.visibility.redacted_digest` one event at a time."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256(b"[")
        self._count = 0

    @property
    def count(self) -> int:
        """The redacted events added so far."""
        return self._count

    def add(self, record: EventRecord) -> None:
        """Sum the next event (one redacted for the file's reader; others add nothing)."""
        if is_redacted(record):
            text = ("," if self._count else "") + canonical_json([record.seq, record.payload])
            self._hash.update(text.encode("utf-8"))
            self._count += 1

    def value(self) -> str | None:
        """The digest of the events added (``None``: none was redacted)."""
        if not self._count:
            return None
        done = self._hash.copy()
        done.update(b"]")
        return done.hexdigest()
