"""The per-viewer filter of a turn file's log: the one call :func:`export_turn` makes.

``rallypoint export --for SIDE`` writes the log as SIDE may see it, through the library's filter
(:func:`rallypoint.core.visibility.redact_events`, from the ruleset's secrets declaration), so the
export never branches on a ruleset's secrets itself. A redacted event keeps its hashes (the chain
still links) but its hash can no longer be recomputed by the reader, so the turn file's signed
header also carries :func:`redacted_digest`: a hash of every redacted payload, which binds what
the reader was shown to the sender's signature, and every redacted event must look like an
honest redaction (:func:`dishonest_redaction`): else a sender could mark any of its events
redacted, and the reader, who cannot check a redacted event's hash, would take it on trust.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence

from rallypoint.core.events import CREATED, UNDONE, EventRecord, canonical_json
from rallypoint.core.visibility import (
    REDACTED,
    REFEREE_ONLY,
    WITHHELD,
    Viewer,
    declaration_of,
    is_redacted,
    redact_events,
)


def visible_records(records: Sequence[EventRecord], viewer: str | None) -> list[EventRecord]:
    """The log as seat ``viewer`` may receive it (``None``: a backup, everything)."""
    if viewer is None:
        return list(records)
    return redact_events(records, Viewer.of_side(viewer))


def withheld(records: Sequence[EventRecord]) -> list[int]:
    """The seqs of the events redacted for the file's reader."""
    return [r.seq for r in records if is_redacted(r)]


def redacted_digest(records: Sequence[EventRecord]) -> str | None:
    """SHA-256 of the canonical JSON of ``[[seq, payload], ...]`` of every redacted event, or
    ``None`` when nothing is withheld."""
    digest = RedactedDigest()
    for record in records:
        digest.add(record)
    return digest.value()


class RedactedDigest:
    """:func:`redacted_digest` one event at a time (a streamed import or reveal): the canonical
    JSON of the list written out item by item, so the log is never held."""

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


def dishonest_redaction(records: Sequence[EventRecord]) -> tuple[int, str] | None:
    """The first redacted event that no honest redaction could make, as (seq, why), or ``None``.

    An event arrives redacted only if its type can hide something (the ruleset's ``may_hide``;
    an ``undone`` only if its target can, a ``created`` only its plain seed), and its withheld
    part names only the campaign's sides or the referee, each as an opaque ``null``.
    """
    if not records:
        return None
    created = records[0].payload
    declared = declaration_of(str(created.get("ruleset", "")))
    parties = {*declared.sides(created.get("scenario") or {}), REFEREE_ONLY}
    by_seq = {r.seq: r for r in records}
    for record in records:
        if not is_redacted(record):
            continue
        why = _kind_problem(record, by_seq, declared.may_hide) or _part_problem(record, parties)
        if why is not None:
            return record.seq, why
    return None


class HonestRedactions:
    """:func:`dishonest_redaction` one event at a time (a streamed import or reveal): what it
    keeps of each event is one byte, whether an undo of it may arrive redacted (it arrived
    redacted itself, or its type can hide something), so memory does not hold the log.

    Args:
        created: The log's ``created`` event.
    """

    def __init__(self, created: EventRecord) -> None:
        payload = created.payload
        self._declared = declaration_of(str(payload.get("ruleset", "")))
        self._parties = {*self._declared.sides(payload.get("scenario") or {}), REFEREE_ONLY}
        self._undoable = bytearray()  # by seq - 1: an undo of it may arrive redacted

    def honest(self, record: EventRecord) -> bool:
        """Whether the next event (seqs in order from 1, ``created`` first) is shown whole or
        redacted as an honest redaction could make it, as :func:`dishonest_redaction` decides.

        Raises:
            LookupError: Its seq is not the next, or it is a redacted undo of no earlier event
                (what the whole function makes of it is left to it).
        """
        if record.seq != len(self._undoable) + 1:
            raise LookupError(record.seq)
        hidden = is_redacted(record)
        self._undoable.append(hidden or self._declared.may_hide(record.type))
        if not hidden:
            return True
        if record.type == UNDONE:
            target = record.payload.get("target")
            if type(target) is not int or not 1 <= target < record.seq:
                raise LookupError(target)
            kind_ok = bool(self._undoable[target - 1])
        else:
            kind_ok = _kind_problem(record, {}, self._declared.may_hide) is None
        return kind_ok and _part_problem(record, self._parties) is None


def _kind_problem(record: EventRecord, by_seq: Mapping[int, EventRecord],
                  may_hide: Callable[[str], bool]) -> str | None:
    """Why an event of this type cannot arrive redacted (``None``: it can)."""
    if record.type == CREATED:
        return None  # its seed, checked as a part below
    if record.type == UNDONE:
        target = by_seq.get(int(record.payload.get("target") or 0))
        if target is None or is_redacted(target) or may_hide(target.type):
            return None
        return f"it undoes #{target.seq}, a {target.type!r} that hides nothing"
    if not may_hide(record.type):
        return f"a {record.type!r} event never hides anything"
    return None


def _part_problem(record: EventRecord, parties: set[str]) -> str | None:
    """Why the withheld part is not one an honest redaction makes (``None``: it is)."""
    if REDACTED in record.payload:
        return None  # the format stored before issue 18: its markers name their owners
    part = record.payload[WITHHELD]
    if not part or not set(part) <= parties or any(v is not None for v in part.values()):
        return "its withheld part is not one opaque part per side of the campaign"
    if record.type == CREATED and set(part) != {REFEREE_ONLY}:
        return "a 'created' event withholds only a plain dice seed, the referee's"
    return None
