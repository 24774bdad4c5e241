"""An import and ``verify FILE`` in one streaming pass (session/import_stream.py,
session/verify_stream.py): memory that does not follow the log, a refusal however late that
leaves the database exactly as it was, and the whole-file check's answers.

Oracles: the whole-file import (``import_campaign`` of ``read_export``) holds every record, so
its retained memory grows with the log, a contrast the streamed import must not show; the
database before the import, dumped row by row (``iterdump``), which a refused import must
leave identical; ``verify FILE``'s whole-file check, whose answer the streaming pass must give.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest

from db_kit import sqlite_dump
from long_log_kit import TCS, long_tcs_log
from memory_kit import peak_growth
from rallypoint.core import jsonstream
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import EventRecord, NewEvent, Undone
from rallypoint.session import Session, pbem
from rallypoint.session.import_stream import import_streamed
from rallypoint.session.importing import import_campaign
from rallypoint.session.verify_stream import verify_streamed
from rallypoint.store import EventStore, read_export
from rallypoint.store.exchange import ExportedCampaignHeader, export_text


def _long_log(folder: Path, events: int) -> list[EventRecord]:
    """A TCS campaign of ``events`` events (a sheet, then turns), as bench/commands.py
    ``big_tcs`` builds it: decided by the rules, stored in one transaction."""
    return long_tcs_log(folder / f"long{events}.sqlite3", events, "stream")


def _write(path: Path, records: list[EventRecord]) -> Path:
    first = records[0]
    header = ExportedCampaignHeader(id=first.campaign_id, name="long", ruleset="tcs",
                                    created_at=first.recorded_at)
    path.write_text(export_text(header, records), encoding="utf-8")
    return path


@contextmanager
def _held(store: EventStore) -> Iterator[EventStore]:
    with store.transaction():
        yield store


def _streamed(db: Path, path: Path) -> None:
    with EventStore(db) as store:
        import_streamed(lambda: _held(store), path)


def _whole(db: Path, path: Path) -> None:
    with EventStore(db) as store:
        import_campaign(store, read_export(path))


def _verify(db: Path, path: Path) -> None:
    assert verify_streamed(path)[1] is not None  # answered by the streaming pass


def _verify_whole(db: Path, path: Path) -> None:
    pbem.verify_file(path)  # the streaming pass is turned off around it


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("stream")
    log = _long_log(folder, 2400)  # the 600-event file is its first 600: a prefix
    return {n: _write(folder / f"log{n}.json", log[:n]) for n in (600, 2400)}


def test_the_streamed_import_keeps_no_record_per_event(
        files: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The reader's text buffer is a fixed cost (a chunk of the file, 1 MiB): smaller here, so
    # that both files fill it and it does not pass for growth.
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)
    # 1,800 more events: the whole-file import holds each one's record (KiBs each); the
    # streamed one holds the running state, a few states kept for undos and 8 bytes per
    # event in effect. Stated slack: 1 MiB (the thinned states, the fold's windows).
    grown = {}
    for name, run in (("streamed", _streamed), ("whole", _whole), ("verify", _verify)):
        peaks = [peak_growth(partial(run, tmp_path / f"{name}{n}.sqlite3", files[n]))
                 for n in (600, 2400)]
        grown[name] = peaks[1] - peaks[0]
    assert grown["whole"] > 4 * 2**20, grown  # the contrast: 1,800 records held
    assert grown["streamed"] < 2**19, grown
    assert grown["verify"] < 2**19, grown
    with EventStore(tmp_path / "streamed2400.sqlite3") as store:
        (info,) = store.campaigns()
        assert info.version == 2400 and store.verify(info.id).ok


@pytest.fixture
def reader(files: dict[int, Path], tmp_path: Path) -> Path:
    """A database holding the first 600 events of the long campaign (with its snapshot) and
    another campaign: what an import of the rest must leave as it was if it is refused."""
    db = tmp_path / "reader.sqlite3"
    Session(db).import_file(files[600])
    Session(db).create(TCS, name="other", seed="other")
    return db


def _forged_end(files: dict[int, Path], tmp_path: Path) -> tuple[Path, list[EventRecord]]:
    """The 2,400-event file with one more event at its end, sealed and re-headed as a forger
    with the code would: an undo of an event no longer in effect (seq 1, ``created``)."""
    records = read_export(files[2400]).events
    last = records[-1]
    forged = EventRecord.seal(last.campaign_id, last.seq + 1,
                              NewEvent.of(Undone(target=1, summary="x")), last.hash)
    return _write(tmp_path / "forged.json", [*records, forged]), records


def test_a_forged_last_event_after_thousands_inserted_leaves_the_database_as_before(
        files: dict[int, Path], reader: Path, tmp_path: Path) -> None:
    path, _ = _forged_end(files, tmp_path)
    before = sqlite_dump(reader)
    with pytest.raises(IntegrityError, match=r"event 2401 \('undone'\) undoes 1, which is not "
                                             "an earlier event still in effect") as info:
        Session(reader).import_file(path)
    assert "\n" not in str(info.value)
    assert sqlite_dump(reader) == before  # rows, chain marks, snapshots, use order: as they were


STRANGER = [{"algorithm": "ed25519", "key_id": "ab" * 32, "seat": "axis",
             "signature": "cd" * 64}]
"""A signature by a key the campaign's seats never named."""


@pytest.mark.parametrize(("field", "value", "refusal"), [
    ("header_hash", "0" * 64, "header does not match its header_hash"),
    ("signatures", STRANGER, "names no seat keys"),
], ids=["bad header hash", "stranger's signature"])
def test_a_check_over_the_whole_file_refuses_at_the_end_and_leaves_the_database_as_before(
        files: dict[int, Path], reader: Path, tmp_path: Path, field: str, value: object,
        refusal: str) -> None:
    # What a signature covers (the header hash, binding the head) can only be checked once the
    # last event is read: after 1,800 rows went in, they all go; `verify FILE`'s one pass
    # refuses it too (it must not answer for a file it cannot vouch for).
    data = json.loads(files[2400].read_text(encoding="utf-8"))
    data[field] = value
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    before = sqlite_dump(reader)
    with pytest.raises(IntegrityError, match=refusal):
        Session(reader).import_file(path)
    assert sqlite_dump(reader) == before
    assert verify_streamed(path) == (None, None)  # not answered here: verified whole...
    with pytest.raises(IntegrityError, match=refusal):
        pbem.verify_file(path)  # ...and refused there


def test_the_rest_of_the_log_imports_after_the_prefix(
        files: dict[int, Path], reader: Path) -> None:
    info = Session(reader).import_file(files[2400])
    assert info.version == 2400
    with EventStore(reader) as store:
        assert store.verify(info.id).ok
        assert store.events(info.id) == read_export(files[2400]).events


def test_verify_file_streams_a_good_file_and_answers_as_the_whole_check(
        files: dict[int, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    streamed = verify_streamed(files[2400])
    assert streamed[0] is None and streamed[1] is not None
    assert (streamed[1].events, streamed[1].rederived, streamed[1].not_rederivable) == \
        (2400, 2399, 0)
    monkeypatch.setattr(pbem, "verify_streamed", lambda path: (None, None))
    assert pbem.verify_file(files[2400]) == streamed[1]


def test_verify_file_refuses_a_forged_end_as_the_whole_check_does(
        files: dict[int, Path], tmp_path: Path) -> None:
    path, _ = _forged_end(files, tmp_path)
    assert verify_streamed(path) == (None, None)  # not answered here: checked whole
    with pytest.raises(IntegrityError, match=r"event 2401 \('undone'\) undoes 1, which is not "
                                             "an earlier event still in effect"):
        pbem.verify_file(path)
