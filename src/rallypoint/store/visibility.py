"""The per-viewer filter of a turn file's log: the one call :func:`export_turn` makes.

``rallypoint export --for SIDE`` writes the log as SIDE may see it, through the library's filter
(:func:`rallypoint.core.visibility.redact_events`, from the ruleset's secrets declaration), so the
export never branches on a ruleset's secrets itself. A redacted event keeps its hashes (the chain
still links) but its hash can no longer be recomputed by the reader, so the turn file's signed
header also carries :func:`redacted_digest`: a hash of every redacted payload, which binds what
the reader was shown to the sender's signature.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from rallypoint.core.events import EventRecord, canonical_json
from rallypoint.core.visibility import Viewer, is_redacted, redact_events


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
    shown = [[r.seq, r.payload] for r in records if is_redacted(r)]
    if not shown:
        return None
    return hashlib.sha256(canonical_json(shown).encode("utf-8")).hexdigest()
