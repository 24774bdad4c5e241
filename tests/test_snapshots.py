"""State snapshots: a command folds only what follows the snapshot, and a snapshot that does not
match the log is discarded and rebuilt, never trusted."""

from __future__ import annotations

import hashlib
import os
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from json_kit import at
from rallypoint.core.registry import get_ruleset, registered
from rallypoint.rulesets.tcs.commands import AdvanceTurn, RecordLoss
from rallypoint.session import Campaign, Session, campaign_view
from rallypoint.session import snapshots as snaps
from rallypoint.session.snapshots import SNAPSHOT_EVERY


def _scenario() -> Path:
    return next(p for p in get_ruleset("tcs").example_scenarios() if p.name.startswith("example1"))


def _turns(session: Session, count: int, ref: str = "t") -> None:
    for _ in range(count):
        session.execute(ref, lambda c: AdvanceTurn(expected_version=c.version))


def _row(path: Path) -> tuple[Any, ...] | None:
    with sqlite3.connect(path) as conn:
        row: tuple[Any, ...] | None = conn.execute(
            "SELECT version, chain_hash, code, state, digest FROM state_snapshots").fetchone()
    return row


def _set(path: Path, **columns: Any) -> None:
    with sqlite3.connect(path) as conn:
        sets = ", ".join(f"{k} = ?" for k in columns)
        conn.execute(f"UPDATE state_snapshots SET {sets}", tuple(columns.values()))


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(tmp_path / "c.sqlite3")
    s.create(_scenario(), name="t", seed="snap")
    return s


def _same_as_whole(session: Session, ref: str = "t") -> Campaign:
    fast, whole = session.load(ref), session.load(ref, whole=True)
    assert campaign_view(fast) == campaign_view(whole)
    assert fast.version == whole.version and fast.undone == whole.undone
    return fast


def test_a_write_snapshots_and_a_read_folds_only_the_tail(session: Session) -> None:
    _turns(session, SNAPSHOT_EVERY - 2)
    assert _row(session.path) is None  # too few events on top of nothing yet
    _turns(session, 3)
    row = _row(session.path)
    assert row is not None and row[0] == SNAPSHOT_EVERY
    _turns(session, 5)
    fast = _same_as_whole(session)
    assert not fast.complete
    assert [e.seq for e in fast.events] == [1, *range(SNAPSHOT_EVERY, SNAPSHOT_EVERY + 8)]
    assert session.load("t", whole=True).complete


def test_a_read_writes_no_snapshot(session: Session) -> None:
    _turns(session, 3)
    session.view("t")
    session.log("t")
    assert _row(session.path) is None


def test_an_edited_blob_is_never_unpickled(session: Session) -> None:
    _turns(session, SNAPSHOT_EVERY + 2)
    _set(session.path, state=b"\x80\x05garbage")
    _same_as_whole(session)
    # A blob with a matching digest that would call a function is refused by the unpickler.
    evil = pickle.dumps(os.getcwd)
    _set(session.path, state=evil, digest=hashlib.sha256(evil).hexdigest())
    with session._store() as store:
        assert snaps.resume(store, store.find("t")) is None
    _same_as_whole(session)


def test_a_snapshot_of_another_log_is_discarded_and_rebuilt(session: Session) -> None:
    _turns(session, SNAPSHOT_EVERY + 2)
    _set(session.path, chain_hash="0" * 64)
    with session._store() as store:
        assert snaps.resume(store, store.find("t")) is None
    _same_as_whole(session)
    assert session.check("t") is None  # a stale cache is not a broken log
    _turns(session, SNAPSHOT_EVERY)
    row = _row(session.path)
    assert row is not None and row[1] != "0" * 64  # rebuilt by a write


def test_code_changes_discard_the_snapshot(session: Session,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _turns(session, SNAPSHOT_EVERY + 2)
    monkeypatch.setattr(snaps, "code_fingerprint", lambda ruleset: "other code")
    with session._store() as store:
        assert snaps.resume(store, store.find("t")) is None
    _same_as_whole(session)


def test_an_undo_reaching_into_the_snapshot_folds_the_whole_log(session: Session) -> None:
    before = at(session.view("t")["state"], "companies", "1/ErP112", "counters", "1/ErP112-1")
    session.execute("t", RecordLoss(expected_version=1, counter="1/ErP112-1", steps=1))
    _turns(session, SNAPSHOT_EVERY + 2)
    for _ in range(SNAPSHOT_EVERY + 3):  # undo every turn, then the loss before the snapshot
        session.undo("t")
    fast = _same_as_whole(session)
    assert 2 in fast.undone
    counter = at(campaign_view(fast)["state"], "companies", "1/ErP112", "counters", "1/ErP112-1")
    assert counter == before


def test_an_edited_event_after_the_snapshot_is_reported(session: Session) -> None:
    _turns(session, SNAPSHOT_EVERY + 3)
    with sqlite3.connect(session.path) as conn:
        conn.execute("DROP TRIGGER events_no_update")
        conn.execute("UPDATE events SET payload = replace(payload, '\"turn\":34', '\"turn\":99') "
                     "WHERE seq = ?", (SNAPSHOT_EVERY + 2,))
    problem = session.check("t")
    assert problem is not None and problem.seq == SNAPSHOT_EVERY + 2
    with pytest.raises(Exception) as caught:
        _turns(session, 1)
    assert getattr(caught.value, "code", None) == "integrity"


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_ruleset_resumes_to_the_whole_fold(name: str, tmp_path: Path) -> None:
    ruleset = get_ruleset(name)
    session = Session(tmp_path / "c.sqlite3")
    info = session.create(ruleset.example_scenarios()[0], name="c", seed="snap")
    steps = 0
    while steps < 3 * SNAPSHOT_EVERY:
        c = session.load(info.id)
        command = ruleset.conformance_commands(c.state, c.version)
        if command is None:
            break
        session.execute(info.id, command)
        steps += 1
        if steps % 7 == 0:
            session.undo(info.id)
    _same_as_whole(session, info.id)
