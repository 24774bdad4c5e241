"""State snapshots: a command folds only the events after the last snapshot, never the whole log.

A snapshot is the folded state (and the set of undone seqs) of a campaign at one version, kept in
the store beside the log and keyed by the **chain hash** (the hash of the event at that version,
which commits to every event before it) and by a fingerprint of the code that folded it. It is a
cache, never a source of truth. Before one is used:

- its blob must match its SHA-256 digest, and it is unpickled with only the campaign's own state
  classes allowed (a tampered row cannot run code);
- the stored event at its version must still carry its chain hash, and every later row must link
  to the one before and match its own hash, up to the campaign's recorded head;
- the ruleset and core code must be the code that made it (a rule fix rebuilds it);
- no later ``undone`` may reach back into it.

Anything else, and the snapshot is ignored: the whole log is folded and a fresh snapshot written on
the next write. Snapshots are written only on writes, after the whole log was verified, so a read
stays read-only.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import pickle
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from rallypoint.core.campaign import Campaign, apply_event, read_event
from rallypoint.core.erased import ErasedRuleset, rules_of
from rallypoint.core.errors import RallypointError
from rallypoint.core.events import GENESIS_HASH, ChainProblem, EventRecord, Undone
from rallypoint.core.registry import get_ruleset
from rallypoint.store import CampaignInfo, EventStore
from rallypoint.store.integrity import row_matches
from rallypoint.store.snapshots import Row, StoredSnapshot, read_snapshot, write_snapshot

SNAPSHOT_EVERY: Final = 32
"""A write refreshes the snapshot once this many events were folded on top of it: a read then
folds at most this many events, whatever the length of the log."""

_SAFE_BUILTINS: Final = frozenset({"set", "frozenset", "tuple", "list", "dict", "int", "float",
                                   "str", "bytes", "bool", "complex", "object", "slice", "range"})
_SAFE_MODULES: Final = ("datetime", "fractions", "decimal", "collections", "rallypoint.core.",
                        "rallypoint.dice.")


class _StateUnpickler(pickle.Unpickler):
    """Unpickles only classes: the campaign's own ruleset's, core and dice values, and a few
    stdlib value types. Anything else (a function, ``os.system``) is refused."""

    def __init__(self, data: bytes, ruleset_package: str) -> None:
        super().__init__(io.BytesIO(data))
        self._package = ruleset_package + "."

    def find_class(self, module: str, name: str) -> Any:
        allowed = (module == "builtins" and name in _SAFE_BUILTINS) or module.startswith(
            (self._package, *_SAFE_MODULES)) or module in _SAFE_MODULES
        found = super().find_class(module, name) if allowed else None
        if not isinstance(found, type):
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a state snapshot")
        return found


def _package(ruleset: ErasedRuleset) -> str:
    return type(rules_of(ruleset)).__module__.rpartition(".")[0]


def code_fingerprint(ruleset: ErasedRuleset) -> str:
    """SHA-256 over the source of the ruleset's package and of the core fold, plus the Python
    and pickle versions: the code a snapshot was folded by."""
    return _fingerprint(type(rules_of(ruleset)).__module__)


@cache
def _fingerprint(module: str) -> str:
    import pydantic

    package = Path(sys.modules[module].__file__ or ".").parent
    core = Path(sys.modules[Campaign.__module__].__file__ or ".").parent
    digest = hashlib.sha256(f"{sys.version}|{pickle.DEFAULT_PROTOCOL}|{pydantic.VERSION}".encode())
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.toml"), *core.glob("*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def resume(store: EventStore, info: CampaignInfo) -> tuple[Campaign, int] | None:
    """The campaign from its snapshot plus the events after it, and the snapshot's version; or
    ``None`` when there is no snapshot this code can trust (then fold the whole log)."""
    read = read_snapshot(store, info.id)
    if read is None or read.snapshot is None:
        return None
    snapshot = read.snapshot
    try:
        ruleset = get_ruleset(info.ruleset)
        if (snapshot.code != code_fingerprint(ruleset)
                or hashlib.sha256(snapshot.state).hexdigest() != snapshot.digest
                or _tail_problem(info.id, read.rows, snapshot, read.head) != (True, None)):
            return None
        state, undone = _StateUnpickler(snapshot.state, _package(ruleset)).load()
        records = [_record(info.id, row) for row in read.rows]
        campaign = _fold_tail(info.id, ruleset, records, snapshot.version, state, undone)
    except (pickle.UnpicklingError, RallypointError, ValueError, TypeError, KeyError,
            AttributeError, EOFError, IndexError):
        return None
    return (campaign, snapshot.version) if campaign is not None else None


def check_tail(store: EventStore, info: CampaignInfo) -> tuple[bool, ChainProblem | None]:
    """Whether a snapshot could be used to check the log, and the first problem from it on.

    ``(False, None)``: there is no snapshot of this log to start from (check the whole log).

    The events before the snapshot were verified when it was written, and its chain hash commits
    to them; ``rallypoint verify`` still re-checks every event.
    """
    read = read_snapshot(store, info.id)
    if read is None or read.snapshot is None or read.snapshot.code != code_fingerprint(
            get_ruleset(info.ruleset)):
        return False, None
    return _tail_problem(info.id, read.rows, read.snapshot, read.head)


def save(store: EventStore, campaign: Campaign) -> None:
    """Write the campaign's snapshot (a write store only; a failed cache write is ignored)."""
    if store.readonly or campaign.version < 2:
        return
    blob = pickle.dumps((campaign.state, campaign.undone), protocol=pickle.DEFAULT_PROTOCOL)
    row = StoredSnapshot(version=campaign.version, chain_hash=campaign.events[-1].hash,
                         code=code_fingerprint(campaign.ruleset), state=blob,
                         digest=hashlib.sha256(blob).hexdigest())
    # A cache: if it cannot be written the next write tries again, and reads fold meanwhile.
    with contextlib.suppress(RallypointError):
        write_snapshot(store, campaign.campaign_id, row)


def save_if_due(store: EventStore, campaign: Campaign, base: int) -> None:
    """Refresh the snapshot once :data:`SNAPSHOT_EVERY` events sit on top of the last one."""
    if campaign.version - base >= SNAPSHOT_EVERY:
        save(store, campaign)


def _tail_problem(campaign_id: str, rows: Sequence[Row], snapshot: StoredSnapshot,
                  head: tuple[int, str]) -> tuple[bool, ChainProblem | None]:
    """Rows from the snapshot's version must match the chain hash, link, and end at the head.

    Returns whether the snapshot is of this log, and the first problem of the rows checked.
    """
    if not rows or rows[0][0] != 1 or not _row_ok(campaign_id, rows[0], GENESIS_HASH):
        return True, ChainProblem(seq=1, reason="content does not match its hash (edited?)")
    tail = [r for r in rows if r[0] >= snapshot.version]
    if not tail or tail[0][0] != snapshot.version or tail[0][5] != snapshot.chain_hash:
        return False, None  # the snapshot is not of this log: not a problem of the log itself
    prev = tail[0]
    if not _row_ok(campaign_id, prev, prev[4]):
        return True, ChainProblem(seq=prev[0], reason="content does not match its hash (edited?)")
    for row in tail[1:]:
        if row[0] != prev[0] + 1:
            return True, ChainProblem(seq=row[0], reason=f"sequence gap: expected {prev[0] + 1}")
        if not _row_ok(campaign_id, row, prev[5]):
            return True, ChainProblem(seq=row[0], reason="prev_hash does not match the event "
                                      "before, or content does not match its hash (edited?)")
        prev = row
    if (prev[0], prev[5]) != head:
        return True, ChainProblem(seq=prev[0], reason="the newest event is not the campaign's "
                                  "head (events were cut off)")
    return True, None


def _row_ok(campaign_id: str, row: Row, prev_hash: str) -> bool:
    seq, type_, payload, recorded_at, stored_prev, hash_ = row
    return stored_prev == prev_hash and row_matches(campaign_id, seq, type_, payload,
                                                    recorded_at, stored_prev, hash_)


def _record(campaign_id: str, row: Row) -> EventRecord:
    seq, type_, payload, recorded_at, prev_hash, hash_ = row
    parsed = json.loads(payload)
    if not isinstance(parsed, dict):
        raise ValueError(f"event {seq}: payload is not a JSON object")
    return EventRecord(campaign_id=campaign_id, seq=seq, type=type_, payload=parsed,
                       recorded_at=recorded_at, prev_hash=prev_hash, hash=hash_)


def _fold_tail(campaign_id: str, ruleset: ErasedRuleset, records: list[EventRecord], base: int,
               state: Any, undone: frozenset[int]) -> Campaign | None:
    """Fold the events after ``base`` onto the snapshot's state (``None``: an undo reaches back
    into the snapshot, so only a whole fold can say what counts)."""
    held = [records[0], *(r for r in records[1:] if r.seq >= base)]
    typed = [read_event(ruleset, r) for r in held]
    targets = {t.target for t, r in zip(typed, held, strict=True)
               if isinstance(t, Undone) and r.seq > base}
    if any(t <= base for t in targets):
        return None
    for record, event in zip(held, typed, strict=True):
        if record.seq > base and not isinstance(event, Undone) and record.seq not in targets:
            state = apply_event(ruleset, state, event)  # a Withheld one too (a partial log)
    return Campaign(campaign_id, ruleset, tuple(held), state, frozenset(undone) | targets,
                    tuple(typed))
