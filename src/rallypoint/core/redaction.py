"""The redaction of events: what each event of a log hides, and the log as a viewer may see it.

A redacted event keeps its ``seq``, ``type``, ``recorded_at``, ``prev_hash`` and ``hash``. Its
payload is the event's public projection: every withheld value left out (a key dropped, a list
item dropped), its ``blind`` and recorded ``command`` left out, and one ``"$withheld"`` mapping
with one opaque part per owner the event's *type* can hide something for, ``{"soviet": null}``,
whether that owner hid anything this time or not (issue 18). So the redacted shape names no
path and counts nothing: a turn with none, one or two of the other side's sheets accruing looks
the same. The chain still links (each event names the previous hash), every event shown whole is
checked against its hash, and a redacted event's hash stays a commitment the owner cannot
change: at the reveal the whole event must hash to it and redact again to exactly what was shown
(:func:`check_reveal`). Every event that hides anything carries a random ``blind``
(:func:`rallypoint.core.blinds.with_blind`, ``undone`` and ``created`` included) so that its
hash cannot be brute-forced from the few values a secret can take.

Partial logs stored before issue 18 hold the old format (each withheld value replaced by a
``{"$withheld": owner}`` marker, and ``"$redacted"`` listing the withheld paths): they are still
read, folded and checked at the reveal (:func:`redact_events` ``like=``), never written anew.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from rallypoint.core.declarations import (
    NOTHING,
    REFEREE_ONLY,
    Declaration,
    EventSecrets,
    Owners,
    Secret,
    declaration_of,
)
from rallypoint.core.events import (
    CREATED,
    GENESIS_HASH,
    MADE_BY,
    REDACTED_KEY,
    UNDONE,
    WITHHELD_KEY,
    ChainProblem,
    EventRecord,
    is_redacted_payload,
    verify_chain,
)
from rallypoint.core.jsonpaths import redact_value
from rallypoint.core.viewers import Viewer

WITHHELD = WITHHELD_KEY
"""The key of a redacted event's withheld parts, ``{"$withheld": {owner: null}}`` (and, in the
old format, of the marker that replaced each withheld value: ``{"$withheld": owner}``)."""
REDACTED = REDACTED_KEY
"""The old format's payload key listing the withheld paths (read, never written)."""
BLIND = "blind"
"""The payload key of an event's random blinding value (withheld from anyone it hides from)."""
COMMAND = MADE_BY
"""The payload key of an event's recorded command (issue 18, a
:class:`rallypoint.core.events.MadeBy`): withheld whenever anything of the event is, since a
command names what its event hides (a check names its sheet)."""
_ENVELOPE_SECRETS = (BLIND, COMMAND)
"""Envelope keys a redacted event never shows: they belong to the whole event, not to an owner."""


# --- what each event hides ---------------------------------------------------------------------


def event_secrets(records: Sequence[EventRecord],
                  declaration: Declaration | None = None) -> list[EventSecrets]:
    """What each event of a log hides (same order).

    Ruleset events hide what the ruleset declares, and only in a campaign of two or more sides
    (one player has no one to hide from). Core events: see :func:`_created_secrets` and
    :func:`_undone_secrets`.
    """
    if not records:
        return []
    walk = SecretsWalk(records[0], declaration)
    return [walk.of(record) for record in records]


class Forgotten(Exception):
    """What an event hides depends on an event whose secrets a :class:`SecretsWalk` let go."""


class SecretsWalk:
    """:func:`event_secrets` one event at a time (a streamed import or reveal), with memory
    that need not follow the log.

    Args:
        created: The log's ``created`` event (its scenario and ruleset).
        declaration: The secrets declaration (default: the ruleset's).
        keep: Keep the secrets of this many of the latest events that hid anything, for their
            undos (``None``: every one). An undo cancels the latest event in effect, so only a
            run of undos longer than this reaches one let go.
    """

    def __init__(self, created: EventRecord, declaration: Declaration | None = None,
                 keep: int | None = None) -> None:
        self._scenario: Mapping[str, Any] = created.payload.get("scenario") or {}
        self._declared = declaration or declaration_of(str(created.payload.get("ruleset", "")))
        self._shared = len(self._declared.sides(self._scenario)) > 1
        self._owners: Owners = MappingProxyType({})
        self._by_seq: dict[int, EventSecrets] = {}  # the latest events that hid something
        self._keep = keep
        self._floor = 0  # every event below this seq that hid something was let go

    def of(self, record: EventRecord) -> EventSecrets:
        """What ``record``, the next event of the log, hides.

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
            hides, self._owners = self._declared.event_secrets(
                self._scenario, self._owners, record.type, record.payload)
        else:
            hides = NOTHING
        if hides.secret:  # an undo reads only its target's secret (NOTHING when absent)
            self._by_seq[record.seq] = hides
            if self._keep is not None and len(self._by_seq) > self._keep:
                self._floor = next(iter(self._by_seq)) + 1
                del self._by_seq[self._floor - 1]
        return hides


def _created_secrets(created: EventRecord, *, shared: bool) -> EventSecrets:
    """``created`` hides a legacy plain dice seed from every side of a shared campaign: it would
    let its holder compute every roll (dice-v1 campaigns log only a commitment)."""
    if shared and created.payload.get("seed") is not None:
        return EventSecrets((Secret(("seed",), REFEREE_ONLY),))
    return NOTHING


def _undone_secrets(undone: EventRecord, by_seq: Mapping[int, EventSecrets]) -> EventSecrets:
    """``undone`` hides its summary from whoever its target hid anything from, sealed and with
    the same parties as its target, so an undone turn tells no more than the turn did."""
    target = by_seq.get(int(undone.payload.get("target", 0)), NOTHING)
    if not target.secret:
        return NOTHING
    summary = tuple(Secret(("summary",), owner) for owner in sorted(target.owners()))
    return EventSecrets(summary, target.sealed, target.parties)


# --- the log as a viewer sees it ----------------------------------------------------------------


def redact_events(records: Sequence[EventRecord], viewer: Viewer,
                  declaration: Declaration | None = None, *,
                  like: Sequence[EventRecord] = ()) -> list[EventRecord]:
    """The log as ``viewer`` may see it: filter(events, viewer) → redacted events.

    Events that hide nothing from the viewer come back unchanged (the same objects). The others
    keep seq, type, time and both hashes; their payload is the public projection (withheld
    values, list items, the ``blind`` and the recorded ``command`` left out) plus
    ``{"$withheld": {owner: null, ...}}``, one opaque part per owner the event's type can hide
    something for. Check the result with :func:`verify_visible_chain`.

    Args:
        records: The log (``created`` first).
        viewer: Who is looking.
        declaration: The ruleset's secrets declaration (default: the log's ruleset's).
        like: What the viewer was shown of these events, when that is known (at the reveal):
            an event shown in the format stored before issue 18 (``"$redacted"``) is redacted
            in that format again, so that an old partial log can still be checked.
    """
    if viewer.sees_all():
        return list(records)
    hidden = event_secrets(records, declaration)
    old = {r.seq for r in like if REDACTED in r.payload}
    return [redact_record(r, h, viewer, legacy=r.seq in old)
            for r, h in zip(records, hidden, strict=True)]


def redact_record(record: EventRecord, hides: EventSecrets, viewer: Viewer, *,
                   legacy: bool = False) -> EventRecord:
    """One event as ``viewer`` may see it (the same object when it hides nothing from them)."""
    if is_redacted(record):
        # Already redacted, for the database holding it (a partial log in play by e-mail): it
        # withholds what that seat may not see, and it goes on as it is (same hash).
        return record
    withheld = [s for s in hides.parts if not viewer.sees(s.owner)]
    if not withheld and not hides.sealed:
        return record
    if legacy:
        return _legacy_redacted(record, hides, withheld)
    payload = redact_value(record.payload, [*withheld, *_envelope(record)], marker=False)
    payload[WITHHELD] = dict.fromkeys(hides.withheld_from(viewer))
    return record.model_copy(update={"payload": payload})


def _envelope(record: EventRecord) -> list[Secret]:
    """What a redacted event leaves out beside its owners' parts, whoever is looking.

    The blind would open the hash to guessing, and the command names what the event hides; their
    owner is irrelevant, as no marker is left. An undone's summary says what its target did for
    every party (a turn: every sheet's accrual), so it goes too: an undone turn then looks the
    same whether or not the other side had a sheet in it.
    """
    envelope = [Secret((key,), REFEREE_ONLY) for key in _ENVELOPE_SECRETS]
    if record.type == UNDONE:
        envelope.append(Secret(("summary",), REFEREE_ONLY))
    return envelope


def _legacy_redacted(record: EventRecord, hides: EventSecrets,
                     withheld: list[Secret]) -> EventRecord:
    """The redaction stored before issue 18: a ``{"$withheld": owner}`` marker in place of each
    withheld value and ``"$redacted"`` listing the withheld paths (only to check an old partial
    log at the reveal; it counted the other side's sheets, so it is never written anew)."""
    blinded = BLIND in record.payload
    if blinded:
        # The old format marked the blind with the event's first owner (none: the referee's).
        withheld.append(Secret((BLIND,), next(iter(sorted(hides.owners())), REFEREE_ONLY)))
    payload = redact_value(record.payload, withheld, marker=True)
    listed: list[dict[str, Any]] = [{"path": list(s.path), "owner": s.owner} for s in withheld
                                    if s.path[-1:] != (BLIND,)]
    if blinded:
        listed.append({"path": [BLIND]})  # listed last and without an owner, as it was stored
    payload[REDACTED] = listed
    return record.model_copy(update={"payload": payload})


def is_redacted(record: EventRecord) -> bool:
    """Whether an event was redacted for its viewer (its hash then cannot be checked yet), in
    either format."""
    return is_redacted_payload(record.payload)


# --- checking what was shown ----------------------------------------------------------------------


def verify_visible_chain(records: Sequence[EventRecord]) -> ChainProblem | None:
    """Check a possibly redacted log: contiguous seqs, every ``prev_hash`` naming the hash before,
    and every event shown whole hashing to its hash. A redacted event's hash is a commitment
    checked at the reveal (:func:`check_reveal`). Returns the first problem or ``None``."""
    prev = GENESIS_HASH
    for index, record in enumerate(records, start=1):
        if record.seq != index:
            return ChainProblem(seq=record.seq, reason=f"sequence gap: expected {index}")
        if record.prev_hash != prev:
            return ChainProblem(seq=record.seq, reason="prev_hash does not match the event before")
        if not is_redacted(record) and record.hash != record.expected_hash():
            return ChainProblem(seq=record.seq, reason="content does not match its hash (edited?)")
        prev = record.hash
    return None


def check_reveal(seen: Sequence[EventRecord], revealed: Sequence[EventRecord], viewer: Viewer,
                 declaration: Declaration | None = None) -> ChainProblem | None:
    """At the reveal: does the whole log keep every promise the redacted one made to ``viewer``?

    The revealed log must verify whole, hold every event seen (same hashes), and redact, for that
    viewer, to exactly what the viewer was shown (in the format it was shown in): so no withheld
    value was changed afterwards and nothing shown was a lie about what was withheld.
    """
    problem = verify_chain(revealed)
    if problem is not None:
        return problem
    if len(revealed) < len(seen):
        return ChainProblem(seq=len(revealed) + 1, reason="the revealed log is shorter")
    again = redact_events(revealed[:len(seen)], viewer, declaration, like=seen)
    for shown, expected in zip(seen, again, strict=True):
        if shown.hash != expected.hash:
            return ChainProblem(seq=shown.seq, reason="the revealed event has another hash")
        if shown.payload != expected.payload:
            return ChainProblem(seq=shown.seq,
                                reason="what was shown does not match the revealed event")
    return None
