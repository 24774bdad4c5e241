"""A write checks a long log from its chain mark, not whole, while the log's triggers stand; any
edit that got past a trigger (dropped, disabled, made again) still blocks the next write.

The counting oracle is the number of rows whose content is hashed during one append: zero on the
fast path, every row when the check must be whole. Both backends.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import rallypoint.store.integrity as integrity
from pg_kit import fresh_database
from rallypoint.core.errors import IntegrityError
from test_postgres_store import Backend, note, started


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "postgres":
        yield from (Backend("postgres", url) for url in fresh_database())
    else:
        yield Backend("sqlite", str(tmp_path / "store.sqlite3"))


def _hashed_by_one_append(store: Any, seq: int, monkeypatch: pytest.MonkeyPatch) -> int:
    calls: list[int] = []
    real = integrity.row_matches

    def counting(*args: Any) -> bool:
        calls.append(args[1])
        return real(*args)

    monkeypatch.setattr(integrity, "row_matches", counting)
    store.append("c1", seq, note(0, seq))
    monkeypatch.setattr(integrity, "row_matches", real)
    return len(calls)


def test_an_append_on_a_marked_log_hashes_no_old_row(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    with backend.open() as store:
        started(store, count=4)
        store.append_many("c1", 5, [note(0, n) for n in range(60)])
        assert _hashed_by_one_append(store, 65, monkeypatch) == 0
        assert _hashed_by_one_append(store, 66, monkeypatch) == 0
        assert store.verify("c1").ok and store.campaign("c1").version == 66


def test_without_a_mark_the_first_write_checks_whole_then_marks(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    # A database from before chain marks: no row in chain_marks.
    with backend.open() as store:
        started(store, count=4)
        store.append_many("c1", 5, [note(0, n) for n in range(20)])
    backend.raw("DELETE FROM chain_marks")
    with backend.open() as store:
        assert _hashed_by_one_append(store, 25, monkeypatch) == 24
        assert _hashed_by_one_append(store, 26, monkeypatch) == 0


@pytest.mark.parametrize("seq", [2, 10, 24])
def test_an_old_row_edited_past_the_triggers_blocks_the_next_write(
        backend: Backend, seq: int) -> None:
    # The triggers are dropped (SQLite) or disabled (PostgreSQL), the row edited, and the
    # triggers put back exactly as they were: the row is before the mark, yet the write refuses.
    with backend.open() as store:
        started(store, count=4)
        store.append_many("c1", 5, [note(0, n) for n in range(20)])
    backend.raw(f"UPDATE events SET payload = replace(payload, 'Tolvaj', 'Kollaa') "
                f"WHERE seq = {seq}" if seq > 4 else
                f"UPDATE events SET recorded_at = recorded_at || ' ' WHERE seq = {seq}",
                bypass_triggers=True)
    with backend.open() as store:
        with pytest.raises(IntegrityError, match=f"broken at seq {seq}"):
            store.append("c1", 25, note(1, 1))
        assert store.campaign("c1").version == 24


def test_a_mark_whose_row_changed_is_not_trusted(backend: Backend) -> None:
    # The marked row itself replaced (hash and all) behind the store's back, guard untouched:
    # the mark no longer matches its row, so the whole chain is checked and the break found.
    with backend.open() as store:
        started(store, count=4)
        store.append_many("c1", 5, [note(0, n) for n in range(5)])
    backend.raw("UPDATE chain_marks SET hash = 'not the head'")
    with backend.open() as store:
        store.append("c1", 10, note(1, 1))  # the whole check passes: the log is sound
        assert store.verify("c1").ok
