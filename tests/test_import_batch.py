"""A streamed import checks its events a batch at a time, one step over the whole batch before
the next (session/import_stream.py ``_Streamed.drain``), yet refuses at the first fault in
reading order, as checking each event through every step before reading the next would.

Oracles: the file with only the earlier of two faults, whose refusal the file with both must
give word for word (the later fault is never reached in reading order); the whole-file import
(``import_campaign`` of ``read_export``), which holds every record and so needs no stored row
to fold again, for a file that must import; the database before a refused import, dumped row
by row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from db_kit import sqlite_dump
from long_log_kit import long_tcs_log
from pg_kit import fresh_database
from rallypoint.core.errors import RallypointError
from rallypoint.core.events import EventRecord, NewEvent, Undone, event_hash
from rallypoint.session import Session
from rallypoint.session.import_stream import BATCH, import_streamed
from rallypoint.session.importing import import_campaign
from rallypoint.store import EventStore, read_export
from rallypoint.store.exchange import ExportedCampaignHeader, export_text
from rallypoint.store.postgres import PostgresStore

Event = dict[str, Any]


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> list[EventRecord]:
    """A TCS campaign of 480 events (a sheet, then turns): its first batch and most of the
    next."""
    return long_tcs_log(tmp_path_factory.mktemp("batch") / "long.sqlite3", 480, "batch")


def _events(log: list[EventRecord]) -> list[Event]:
    return [r.model_dump(mode="json") for r in log]


def _sealed(events: list[Event]) -> list[Event]:
    """Every link and hash made good again, as a forger with the code would."""
    prev = events[0]["prev_hash"]
    for seq, e in enumerate(events, start=1):
        e["seq"], e["prev_hash"] = seq, prev
        e["hash"] = prev = event_hash(e["campaign_id"], seq, e["type"], e["payload"],
                                      e["recorded_at"], prev)
    return events


def _unplayable(event: Event) -> None:
    """A turn that cannot be folded (it reads as no TCS event: it names no turn)."""
    del event["payload"]["turn"]


def _misdated(event: Event) -> None:
    event["recorded_at"] = "2999-01-01T00:00:00+00:00"


def _unlinked(event: Event) -> None:
    event["prev_hash"] = "0" * 64


def _misread(event: Event) -> None:
    event["seq"] = "x"


def _not_json(event: Event) -> None:
    event["payload"]["turn"] = float("nan")  # written as NaN, which JSON does not allow


SEALED = {"unplayable": _unplayable, "misdated": _misdated}
"""Faults a forger seals (the chain made good after them): the play's and the clock's."""
UNSEALED = {"unlinked": _unlinked}
"""A fault of the chain itself (the links left as they are after it)."""
RAW = {"misread": _misread, "not JSON": _not_json}
"""Faults of the file's text: an event that does not validate, a value JSON does not allow."""


def _file(path: Path, log: list[EventRecord], faults: dict[int, str]) -> Path:
    """The log's export with ``faults`` (by index) made in it."""
    events = _events(log)
    for index, name in faults.items():
        if name in SEALED:
            SEALED[name](events[index])
    _sealed(events)
    for index, name in faults.items():
        if name in UNSEALED:
            UNSEALED[name](events[index])
    records = [EventRecord.model_validate(e) for e in events]
    first = records[0]
    header = ExportedCampaignHeader(id=first.campaign_id, name="long", ruleset="tcs",
                                    created_at=first.recorded_at)
    document = json.loads(export_text(header, records))
    for index, name in faults.items():
        if name in RAW:
            RAW[name](document["events"][index])
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def _refusal(db: Path, path: Path) -> str:
    """The one line an import of ``path`` into ``db`` is refused with (nothing written to a
    database that holds some)."""
    before = sqlite_dump(db) if db.exists() else None
    with pytest.raises(RallypointError) as info:
        Session(db).import_file(path)
    assert before is None or sqlite_dump(db) == before
    # A future time is told beside this machine's clock, which moves between two imports.
    return re.sub(r"clock says [^)]*\)", "clock says (now))", str(info.value))


AT = 200
"""The first fault's event: in the first batch, so that the second may come in the same one or
the next."""


@pytest.mark.parametrize(("first", "second"), [
    ("unplayable", "unlinked"),  # the chain is checked across the batch before the play
    ("unplayable", "misdated"),  # ...and the clocks
    ("misdated", "unlinked"),
    ("unlinked", "unplayable"),
    ("unplayable", "misread"),  # an event read after one the checks have not yet taken
    ("misdated", "not JSON"),
], ids=lambda name: name)
@pytest.mark.parametrize("gap", [1, 40, BATCH], ids=["next event", "same batch", "next batch"])
def test_of_two_faults_the_first_in_reading_order_is_named(
        log: list[EventRecord], tmp_path: Path, first: str, second: str, gap: int) -> None:
    assert AT + gap < BATCH or gap == BATCH  # both in one batch, or in two
    alone = _file(tmp_path / "alone.json", log, {AT: first})
    both = _file(tmp_path / "both.json", log, {AT: first, AT + gap: second})
    expected = _refusal(tmp_path / "alone.sqlite3", alone)
    assert f"event {AT + 1} " in expected or f"seq {AT + 1}:" in expected, expected
    assert _refusal(tmp_path / "both.sqlite3", both) == expected


def test_a_fault_of_the_play_is_named_before_the_stored_log_diverging_at_the_same_event(
        log: list[EventRecord], tmp_path: Path) -> None:
    # The rows of a batch go in before its play (an undo may read them back), yet at one event
    # the play comes first: an event that cannot be played is named as such even where the
    # database already holds another event at its seq.
    db = tmp_path / "prefix.sqlite3"
    Session(db).import_file(_file(tmp_path / "prefix.json", log[:250], {}))
    path = _file(tmp_path / "forked.json", log, {AT: "unplayable"})
    expected = _refusal(tmp_path / "empty.sqlite3", path)
    assert f"event {AT + 1} ('turn_advanced') cannot be played" in expected
    assert _refusal(db, path) == expected


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """An empty store of each backend (the rows an undo folds again from are read back from
    the import's own transaction on both)."""
    if request.param == "postgres":
        for url in fresh_database():
            with PostgresStore(url) as opened:
                yield opened
    else:
        with EventStore(tmp_path / "s.sqlite3") as opened:
            yield opened


def _streamed(store: Any, path: Path) -> None:
    @contextmanager
    def held() -> Iterator[Any]:
        with store.transaction():
            yield store

    import_streamed(held, path)


def test_an_undo_folding_again_from_events_of_its_own_batch_imports_as_the_whole_file_does(
        log: list[EventRecord], tmp_path: Path, store: Any) -> None:
    # The first undo cancels the latest turn; the fold keeps the typed events since its last
    # kept state only. The second cancels an old turn (an edited file may; the fold accepts
    # it, as a campaign does): the fold goes back to ``created`` and reads the events before
    # its last kept state again from the rows, the newest of them (seq 257) in the batch being
    # checked: stored before the play reaches the undo.
    records = log[:299]
    for target in (299, 100):
        last = records[-1]
        records.append(EventRecord.seal(last.campaign_id, last.seq + 1,
                                        NewEvent.of(Undone(target=target, summary="x")),
                                        last.hash))
    path = _file(tmp_path / "undone.json", records, {})
    with EventStore(tmp_path / "whole.sqlite3") as whole:
        assert import_campaign(whole, read_export(path)).version == 301
    _streamed(store, path)
    (info,) = store.campaigns()
    assert info.version == 301
    assert store.events(info.id) == records
    assert store.check(info.id) is None


def test_the_first_fault_is_named_and_nothing_written_on_either_backend(
        log: list[EventRecord], tmp_path: Path, store: Any) -> None:
    _streamed(store, _file(tmp_path / "prefix.json", log[:250], {}))
    (info,) = store.campaigns()
    before = store.events(info.id)
    path = _file(tmp_path / "both.json", log, {AT: "unplayable", AT + 1: "unlinked"})
    expected = _refusal(tmp_path / "empty.sqlite3",
                        _file(tmp_path / "alone.json", log, {AT: "unplayable"}))
    with pytest.raises(RallypointError) as refused:
        _streamed(store, path)
    assert str(refused.value) == expected
    assert store.events(info.id) == before and store.check(info.id) is None
