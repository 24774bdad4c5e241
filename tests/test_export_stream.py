"""Export files are read as a stream: the same events as a whole parse, and bounded memory.

Oracle for the reading: ``json.loads`` of the whole text, each event validated on its own.
Attacks: a file huge in one event, nested without end, or (a pipe) never ending; each is refused
in one line while the memory the read takes stays a small multiple of the limit it crossed
(``tracemalloc`` measures it), where reading the whole file would hold all of it.
"""

from __future__ import annotations

import json
import os
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core import jsonstream
from rallypoint.core.errors import DataFileError
from rallypoint.core.events import EventRecord
from rallypoint.core.jsonstream import Limits
from rallypoint.store import EventStore, exchange, export_campaign, read_export
from store_kit import events, store_played

CID = "feed0000-1111-2222-3333-444455556666"
MiB = 2**20


@pytest.fixture
def good(tmp_path: Path) -> Path:
    """A whole squares playthrough, exported."""
    with EventStore(tmp_path / "home.sqlite3") as home:
        store_played(home, CID, "Kursk", len(events()))
        export_campaign(home, CID, tmp_path / "good.json")
    return tmp_path / "good.json"


def peak_of(read: Callable[[], Any]) -> tuple[int, BaseException | None]:
    """The most memory Python held while ``read`` ran (bytes), and what it raised."""
    tracemalloc.start()
    try:
        read()
        failure: BaseException | None = None
    except BaseException as exc:  # the refusal under test
        failure = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, failure


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096])
def test_every_chunk_size_reads_the_events_a_whole_parse_reads(
        good: Path, chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(good.read_text(encoding="utf-8"))
    monkeypatch.setattr(jsonstream, "CHUNK", chunk)
    read = read_export(good)
    assert read.events == [EventRecord.model_validate(e) for e in data["events"]]
    assert len(read.events) == len(events())
    assert read.campaign.model_dump() == data["campaign"]
    assert read.header_hash == data["header_hash"]


def test_old_key_orders_and_layouts_still_read(good: Path, tmp_path: Path) -> None:
    """A file written with its events first, on one line (an older or hand-made layout)."""
    data = json.loads(good.read_text(encoding="utf-8"))
    moved = {"events": data.pop("events"), **data}
    path = tmp_path / "moved.json"
    path.write_text(json.dumps(moved, separators=(",", ":")), encoding="utf-8")
    assert read_export(path) == read_export(good)


def _with_event(good: Path, tmp_path: Path, event_text: str) -> Path:
    """``good`` with ``event_text`` put in as its second event (the JSON of the rest kept)."""
    text = good.read_text(encoding="utf-8")
    first_event_end = text.index('"events": [') + len('"events": [')
    path = tmp_path / "attack.json"
    path.write_text(text[:first_event_end] + event_text + "," + text[first_event_end:],
                    encoding="utf-8")
    return path


def test_one_huge_event_is_refused_before_it_is_read_whole(
        good: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exchange, "EXPORT_LIMITS", Limits(max_bytes=512 * MiB,
                                                          max_value=MiB // 4))
    huge = '{"campaign_id": "x", "payload": {"n": [' + "1," * (4 * MiB) + "1]}}"
    path = _with_event(good, tmp_path, huge)
    peak, failure = peak_of(lambda: read_export(path))
    assert isinstance(failure, DataFileError), failure
    assert str(failure).startswith("export file holds a value over 0.25 MiB (line ")
    assert "\n" not in str(failure)
    # The 8 MiB event parsed whole would hold 4 M list slots (32 MiB) and its text (8 MiB).
    assert peak < 8 * MiB, peak


def test_nesting_without_end_is_refused_in_one_line(good: Path, tmp_path: Path) -> None:
    path = _with_event(good, tmp_path, "[" * 200_000 + "]" * 200_000)
    peak, failure = peak_of(lambda: read_export(path))
    assert isinstance(failure, DataFileError), failure
    assert str(failure).startswith("JSON nested too deeply (more than 64 levels)")
    assert "\n" not in str(failure)
    assert peak < 8 * MiB, peak


@pytest.fixture
def endless(good: Path, tmp_path: Path) -> Iterator[Path]:
    """A pipe that sends a good file's header and first event, then copies of its second event
    without end (a stop at 48 MiB keeps a broken reader from running forever)."""
    text = good.read_text(encoding="utf-8")
    data = json.loads(text)
    head = text[:text.index('"events": [')] + '"events": [' + json.dumps(data["events"][0])
    again = ("," + json.dumps(data["events"][1])).encode("utf-8")
    fifo = tmp_path / "endless.json"
    os.mkfifo(fifo)

    def send() -> None:
        try:
            with fifo.open("wb") as pipe:
                pipe.write(head.encode("utf-8"))
                sent = 0
                while sent < 48 * MiB:
                    pipe.write(again)
                    sent += len(again)
        except BrokenPipeError:
            return  # the reader stopped: the point of the test

    writer = threading.Thread(target=send, daemon=True)
    writer.start()
    yield fifo
    writer.join(timeout=60)


def test_a_file_that_never_ends_is_refused_at_the_limit(
        endless: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exchange, "EXPORT_LIMITS", Limits(max_bytes=2 * MiB,
                                                          max_value=MiB // 4))
    peak, failure = peak_of(lambda: read_export(endless))
    assert isinstance(failure, DataFileError), failure
    assert str(failure).startswith("export file goes on past 2 MiB, the limit")
    assert "\n" not in str(failure)
    # 2 MiB of events held as records, with the reading's own buffer: 48 MiB read would be
    # several hundred.
    assert peak < 32 * MiB, peak

