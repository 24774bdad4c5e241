"""``rallypoint import`` of a turn file in one streaming pass (session/turn_stream.py,
pbem_import._import_streamed): memory that does not follow the log, a refusal however late that
leaves the reader's database exactly as it was, and the whole-file check's answers.

Oracles: the whole-file import (the streaming pass turned off) holds every record, so its
retained memory grows with the log, a contrast the streamed one must not show; the reader's
database before the import, dumped row by row (``iterdump``: events, chain marks, snapshots,
seats, dice requests and answers, secrets), which a refused import must leave identical; the
whole-file check, whose refusal the streamed import must give, word for word.
"""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import sqlite3
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core import jsonstream
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import NewEvent
from rallypoint.dice import ScriptedRoller
from rallypoint.session import Session, pbem_import
from rallypoint.session.pbem import export_turn, import_turn
from rallypoint.store import EventStore
from test_pbem import MARK, start_game

SIZES = (500, 2000)


def _mark(sender: Session, campaign: str, count: int, *, forged_last: bool = False) -> None:
    """``count`` sight rulings decided by the rules in French's database, as French's
    ``execute`` stores them (command and deciding seat joined), in one append; ``forged_last``:
    the last one's ruling says what its command does not (a cheating sender, who signs it)."""
    c = sender.load(campaign)
    ruleset, state = c.ruleset, c.state
    command = ruleset.parse_command({**MARK, "expected_version": c.version})
    events: list[NewEvent] = []
    for _ in range(count):
        event = ruleset.decide(state, command, ScriptedRoller(()))
        events.append(NewEvent.of(event).made_by(command.model_dump(mode="json"), "french"))
        state = ruleset.apply(state, event)
    if forged_last:
        last = events[-1]
        events[-1] = NewEvent(type=last.type, payload={**last.payload, "ruling": "blocked",
                                                       "why": "blocked"})
    with EventStore(sender.path) as store:
        store.append_many(campaign, c.version + 1, events)


@pytest.fixture(scope="module")
def mail(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The allied reader's database (the campaign at its start) and French's signed turn
    files for it: ``SIZES`` events long, and the longer one with a forged last event."""
    folder = tmp_path_factory.mktemp("turns")
    game = start_game(folder)
    shutil.copy(game.allied.path, folder / "reader.sqlite3")
    made = {"reader": folder / "reader.sqlite3"}
    done = game.french.load(game.campaign).version
    for size in SIZES:
        _mark(game.french, game.campaign, size - done)
        done = size
        made[str(size)] = folder / f"turn{size}.json"
        export_turn(game.french, game.campaign, made[str(size)], for_seat="allied")
    _mark(game.french, game.campaign, 1, forged_last=True)
    made["forged"] = folder / "forged.json"
    export_turn(game.french, game.campaign, made["forged"], for_seat="allied")
    return made


def _reader(mail: dict[str, Path], folder: Path, name: str) -> Session:
    db = folder / f"{name}.sqlite3"
    shutil.copy(mail["reader"], db)
    return Session(db)


def _whole_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pbem_import, "_import_streamed", lambda *args: None)


def _streamed_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: Path) -> Any:
        raise AssertionError("the file was read whole")
    monkeypatch.setattr(pbem_import, "_read_turn", refuse)


def _peak(run: Callable[[], Any]) -> int:
    """Peak bytes Python allocated during ``run`` beyond what was held before it."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_a_long_turn_file_imports_in_one_pass_with_memory_that_does_not_grow(
        mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The reader's text buffer is a fixed cost (a chunk of the file, 1 MiB): smaller here, so
    # that both files fill it and it does not pass for growth.
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)
    peaks: dict[str, list[int]] = {"streamed": [], "whole": []}
    for way in peaks:
        with monkeypatch.context() as patch:
            (_streamed_only if way == "streamed" else _whole_only)(patch)
            for size in SIZES:
                reader = _reader(mail, tmp_path, f"{way}{size}")
                done: list[Any] = []
                peaks[way].append(_peak(lambda: done.append(import_turn(  # noqa: B023
                    reader, mail[str(size)]))))  # noqa: B023
                # The reader held `created` only: every other event is new, signed by French.
                assert (done[0].sender, done[0].info.version, done[0].new_events) == (
                    "french", size, size - 1)
    grown = {way: p[1] - p[0] for way, p in peaks.items()}
    # 1,500 more events: the whole-file import holds each one's record (and its stored log);
    # the streamed one holds the running state, a page of rows read back and 8 bytes per event
    # in effect. Stated slack: 512 KiB.
    assert grown["whole"] > 2 * 2**20, grown  # the contrast: 1,500 records held
    assert grown["streamed"] < 2**19, grown


def test_the_streamed_import_stores_what_the_whole_import_stores(
        mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    streamed = _reader(mail, tmp_path, "streamed")
    with monkeypatch.context() as patch:
        _streamed_only(patch)
        one = import_turn(streamed, mail[str(SIZES[0])])
    whole = _reader(mail, tmp_path, "whole")
    with monkeypatch.context() as patch:
        _whole_only(patch)
        other = import_turn(whole, mail[str(SIZES[0])])
    assert one == other
    assert _dump(streamed.path) == _dump(whole.path)


def _dump(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


FORGED = re.escape('#2001 (sight_set) is not what its command decides: ruling: stated "blocked", '
                   're-derived "clear" (at seq 2001)')


def _refused_as_whole(mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      path: Path, refusal: str) -> None:
    """The streamed import refuses ``path`` (the whole check turned off shows it refused in
    the stream, not later) and leaves the reader's database as it was; ``import_turn`` (the
    stream, then the whole check) refuses it with the whole check's line."""
    reader = _reader(mail, tmp_path, "reader")
    before = _dump(reader.path)
    calls: list[object] = []
    streamed = pbem_import._import_streamed

    def spy(*args: Any) -> Any:
        calls.append(done := streamed(*args))
        return done
    monkeypatch.setattr(pbem_import, "_import_streamed", spy)
    with pytest.raises(IntegrityError, match=refusal) as info:
        import_turn(reader, path)
    assert calls == [None]  # the stream refused it (rolled back) before the whole check did
    assert "\n" not in str(info.value)
    assert _dump(reader.path) == before


def test_a_forged_event_at_the_end_of_a_long_turn_file_leaves_the_database_as_before(
        mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _refused_as_whole(mail, tmp_path, monkeypatch, mail["forged"], FORGED)


def test_a_bad_signature_on_a_long_turn_file_leaves_the_database_as_before(
        mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(mail[str(SIZES[1])].read_text(encoding="utf-8"))
    signature = data["signatures"][0]["signature"]
    data["signatures"][0]["signature"] = ("0" if signature[0] != "0" else "1") + signature[1:]
    path = tmp_path / "bad_signature.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    _refused_as_whole(mail, tmp_path, monkeypatch, path,
                      "the signature of seat 'french' does not match the file's contents: it "
                      "was edited, cut, reordered or re-hashed after it was signed")


def test_a_pipe_is_left_to_the_whole_check(mail: dict[str, Path], tmp_path: Path) -> None:
    # A pipe can be read once: the streaming pass, which may hand the file to the whole check
    # after reading it, does not open one (it would leave the whole check nothing to read).
    fifo = tmp_path / "turn.fifo"
    os.mkfifo(fifo)
    reader = _reader(mail, tmp_path, "piped")
    done: list[object] = []
    walk = threading.Thread(target=lambda: done.append(
        pbem_import._import_streamed(reader, fifo, None)), daemon=True)
    walk.start()
    walk.join(10)
    opened = walk.is_alive()  # blocked opening the pipe for reading, waiting for a writer
    if opened:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # an empty write end: let it go
        walk.join(10)
    assert not opened and done == [None]
