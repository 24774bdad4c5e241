"""The reveal in one streaming pass (session/reveal_stream.py): memory that does not follow the
log, the same answer and the same merged file as the whole check, and a refusal however late
that writes nothing.

Oracles: the whole check (the streaming pass turned off), whose retained memory grows with the
log (both logs, the merged one, each seat's redaction, the text written), and whose answer and
file (byte for byte) the streamed reveal must give; the output folder, which a refused reveal
leaves without the file or any temporary one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

import test_pbem_hidden
from memory_kit import peak_growth
from rallypoint.core import jsonstream
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import UNDONE, EventRecord
from rallypoint.core.redaction import event_secrets
from rallypoint.core.visibility import is_redacted
from rallypoint.session import Session, reveal_stream, row_log, stream_secrets
from rallypoint.session import reveal as reveal_module
from rallypoint.session.pbem import export_turn, import_turn
from rallypoint.session.reveal import reveal
from rallypoint.store.exchange import read_export
from seats_kit import SHEETS, execute
from test_pbem import start_game
from test_pbem_hidden import Game, play
from test_turn_stream import _mark, _turns

SIZES = (1000, 4000)


@pytest.fixture(scope="module")
def long_games(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Path]]:
    """Two seats whose databases both hold ``SIZES`` events (French decided them; Allied
    imported French's turn file): French's database and Allied's signed export, at each size."""
    folder = tmp_path_factory.mktemp("reveals")
    game = start_game(folder)
    made = {}
    for size in SIZES:
        _mark(game.french, game.campaign, size - game.french.load(game.campaign).version)
        import_turn(game.allied, game.send(game.french, "allied"))
        db = folder / f"french{size}.sqlite3"
        shutil.copy(game.french.path, db)
        theirs = folder / f"allied{size}.json"
        export_turn(game.allied, game.campaign, theirs)
        made[size] = (db, theirs)
    return made


def _whole_only(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(reveal_module, "reveal_streamed", lambda *args: None)


def _streamed_only(patch: pytest.MonkeyPatch) -> None:
    def refuse(path: Path) -> Any:
        raise AssertionError("the file was read whole")
    patch.setattr(reveal_module, "read_export", refuse)


def test_the_streamed_reveal_holds_neither_log(
        long_games: dict[int, tuple[Path, Path]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)  # both files fill the reader's chunk
    peaks: dict[str, list[int]] = {"streamed": [], "whole": []}
    answers: dict[str, list[Any]] = {"streamed": [], "whole": []}
    for way in peaks:
        with monkeypatch.context() as patch:
            (_streamed_only if way == "streamed" else _whole_only)(patch)
            for size in SIZES:
                db, theirs = long_games[size]
                mine = tmp_path / f"{way}{size}.sqlite3"
                shutil.copy(db, mine)
                out = tmp_path / f"{way}{size}.json"
                peaks[way].append(peak_growth(lambda: answers[way].append(  # noqa: B023
                    reveal(Session(mine), theirs, out))))  # noqa: B023
    assert [(a.events, a.rederived, a.other) for a in answers["streamed"]] == [
        (size, size - 1, "allied") for size in SIZES]
    assert answers["streamed"] == answers["whole"]
    for size in SIZES:
        assert (tmp_path / f"streamed{size}.json").read_bytes() == \
            (tmp_path / f"whole{size}.json").read_bytes()
    grown = {way: p[1] - p[0] for way, p in peaks.items()}
    # 3,000 more events: the whole check holds both logs and more (KiBs an event); the stream
    # holds the running state, a page of this database's rows and 8 bytes per event in effect
    # per fold (three: the log, each seat's view). Stated slack: 512 KiB.
    assert grown["whole"] > 4 * 2**20, grown
    assert grown["streamed"] < 2**19, grown


def test_a_hidden_game_reveals_streamed_as_it_does_whole(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    game: Game = play(tmp_path)
    streamed = _revealed_both_ways(game, tmp_path, monkeypatch)
    assert streamed.revealed > 0 and streamed.shown_to_them > 0  # it hid something both ways


def _revealed_both_ways(game: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The Soviet reveal of Finland's own export, streamed and (on a copy of the Soviet
    database) whole: the same answer and the same merged file, byte for byte."""
    theirs = game.export("finland", for_other=False)
    shutil.copy(game.dbs["soviet"].path, tmp_path / "copy.sqlite3")
    with monkeypatch.context() as patch:
        _streamed_only(patch)
        streamed = reveal(game.dbs["soviet"], theirs, tmp_path / "streamed.json")
    with monkeypatch.context() as patch:
        _whole_only(patch)
        whole = reveal(Session(tmp_path / "copy.sqlite3"), theirs, tmp_path / "whole.json")
    assert streamed == whole
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
    return streamed


def test_an_undo_their_file_shows_redacted_reveals_streamed_as_it_does_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The Soviets write their sheet and undo it: the undo, of an event that hides something,
    # reaches Finland redacted, so Finland's file shows it redacted. The stream checks it is an
    # honest redaction by what it kept of its target (store/visibility.py, HonestRedactions),
    # where it once left the whole log to the whole check.
    game = test_pbem_hidden.start(tmp_path, "both")
    execute(game.dbs["finland"], game.campaign, SHEETS[0])
    game.send("finland")
    execute(game.dbs["soviet"], game.campaign, SHEETS[1])
    game.dbs["soviet"].undo(game.campaign)
    game.send("soviet")
    shown = read_export(game.export("finland", for_other=False)).events
    assert [r.type for r in shown if is_redacted(r)] == ["sheet_written", UNDONE]
    assert _revealed_both_ways(game, tmp_path, monkeypatch).shown_to_them == 2


def test_an_event_changed_at_the_end_of_a_long_log_writes_nothing(
        long_games: dict[int, tuple[Path, Path]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Allied changes its copy of the last ruling after 3,999 good events and re-hashes it: the
    # two logs differ at their last event, met only at the end of the stream.
    db, theirs = long_games[SIZES[1]]
    data = json.loads(theirs.read_text(encoding="utf-8"))
    last = EventRecord.model_validate(data["events"][-1])
    data["events"][-1]["payload"]["ruling"] = "blocked"
    data["events"][-1]["hash"] = last.model_copy(
        update={"payload": data["events"][-1]["payload"]}).expected_hash()
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data), encoding="utf-8")
    mine = tmp_path / "mine.sqlite3"
    shutil.copy(db, mine)
    out_folder = tmp_path / "out"
    out_folder.mkdir()
    calls: list[object] = []
    streamed = reveal_stream.reveal_streamed

    def spy(*args: Any) -> Any:
        calls.append(done := streamed(*args))
        return done
    monkeypatch.setattr(reveal_module, "reveal_streamed", spy)
    with pytest.raises(IntegrityError) as info:
        reveal(Session(mine), forged, out_folder / "whole.json")
    assert calls == [None]  # refused by the stream, then by the whole check
    assert "\n" not in str(info.value)
    assert list(out_folder.iterdir()) == []  # no merged file, no temporary one
    with monkeypatch.context() as patch, pytest.raises(IntegrityError) as whole:
        _whole_only(patch)
        reveal(Session(mine), forged, out_folder / "whole.json")
    assert str(info.value) == str(whole.value)


HIDDEN_SIZES = (800, 2000)
"""A hidden game's turns are built and imported, not appended: shorter logs."""


@pytest.fixture(scope="module")
def hidden_reveals(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Path]]:
    """A hidden TCS game by mail (Finland's sheet hidden from the Soviets, every turn redacted
    for them) at each of ``HIDDEN_SIZES`` turns-long logs: the Soviet database, having imported
    Finland's turns and sent back the accrual it owed, and Finland's whole signed export."""
    folder = tmp_path_factory.mktemp("hidden_reveals")
    game = test_pbem_hidden.start(folder, "both")
    execute(game.dbs["finland"], game.campaign, SHEETS[0])
    game.send("finland")
    made = {}
    for size in HIDDEN_SIZES:
        _turns(game.dbs["finland"], game.campaign,
               size - game.dbs["finland"].load(game.campaign).version)
        assert game.send("finland").owed == 1
        game.send("soviet")  # the accrual, to Finland
        db = folder / f"soviet{size}.sqlite3"
        shutil.copy(game.dbs["soviet"].path, db)
        made[size] = (db, game.export("finland", for_other=False))
    return made


def test_a_long_hidden_game_reveals_streamed_holding_neither_log(
        hidden_reveals: dict[int, tuple[Path, Path]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Fixed costs made smaller, so that both logs fill them and they do not pass for growth:
    # the reader's text buffer, the page of this database's rows, the secrets kept for undos
    # (the folds' typed events since their last two kept states fill by 768 events).
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)
    monkeypatch.setattr(row_log, "PAGE", 64)
    monkeypatch.setattr(stream_secrets, "KEPT", 64)
    peaks: dict[str, list[int]] = {"streamed": [], "whole": []}
    answers: dict[str, list[Any]] = {"streamed": [], "whole": []}
    for way in peaks:
        with monkeypatch.context() as patch:
            (_streamed_only if way == "streamed" else _whole_only)(patch)
            for size in HIDDEN_SIZES:
                db, theirs = hidden_reveals[size]
                mine = tmp_path / f"{way}{size}.sqlite3"
                shutil.copy(db, mine)
                out = tmp_path / f"{way}{size}.json"
                peaks[way].append(peak_growth(lambda: answers[way].append(  # noqa: B023
                    reveal(Session(mine), theirs, out))))  # noqa: B023
    # Finland's turns bring the log to each size, then the Soviets' accrual follows: every
    # Finnish turn was redacted in the Soviet database, each accrual in Finland's.
    assert [(a.events, a.revealed, a.shown_to_them, a.other) for a in answers["streamed"]] == [
        (HIDDEN_SIZES[0] + 1, HIDDEN_SIZES[0] - 1, 1, "finland"),
        (HIDDEN_SIZES[1] + 1, HIDDEN_SIZES[1] - 2, 2, "finland")]
    assert answers["streamed"] == answers["whole"]
    for size in HIDDEN_SIZES:
        assert (tmp_path / f"streamed{size}.json").read_bytes() == \
            (tmp_path / f"whole{size}.json").read_bytes()
    grown = {way: p[1] - p[0] for way, p in peaks.items()}
    # As the open game's: the whole reveal holds both logs and more; the stream its running
    # state, a page of rows, the secrets of the latest events that hid something and 8 bytes
    # per event in effect per fold. Stated slack: 512 KiB.
    assert grown["whole"] > 4 * 2**20, grown
    assert grown["streamed"] < 2**19, grown


def test_an_undo_of_an_event_whose_secrets_were_let_go_is_left_to_the_whole_check(
        hidden_reveals: dict[int, tuple[Path, Path]], monkeypatch: pytest.MonkeyPatch) -> None:
    # The streamed passes keep the secrets of the latest KEPT events that hid something, for
    # their undos: an undo reaching further back must not read "hid nothing" (its summary would
    # then be shown to a seat it hides from), but leave the log to the whole check.
    monkeypatch.setattr(stream_secrets, "KEPT", 4)
    log = read_export(hidden_reveals[HIDDEN_SIZES[0]][1]).events
    secrets = stream_secrets.Secrets(log[0])
    assert [secrets.of(r) for r in log] == event_secrets(log)  # the whole function: the oracle
    after = len(log) + 1
    recent, old = (log[-1].model_copy(update={"seq": after, "type": UNDONE,
                                              "payload": {"target": target}})
                   for target in (len(log) - 1, 3))
    assert log[2].type == "turn_advanced" and event_secrets(log)[2].secret  # it hid an accrual
    assert secrets.of(recent) == event_secrets([*log, recent])[-1]
    assert secrets.of(recent).secret
    with pytest.raises(stream_secrets.Forgotten):
        secrets.of(old)


def test_a_hidden_game_reveals_streamed_from_a_pipe(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # The other seat's export through a pipe (`reveal <(ssh host rallypoint export -) …`):
    # copied once, streamed, the merged file the whole check's on the file itself.
    game: Game = play(tmp_path)
    theirs = game.export("finland", for_other=False)
    shutil.copy(game.dbs["soviet"].path, tmp_path / "copy.sqlite3")
    fifo = tmp_path / "theirs.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with contextlib.suppress(OSError), fifo.open("wb") as sink:
            sink.write(theirs.read_bytes())
    threading.Thread(target=feed, daemon=True).start()
    with monkeypatch.context() as patch:
        _streamed_only(patch)
        streamed = reveal(game.dbs["soviet"], fifo, tmp_path / "streamed.json")
    with monkeypatch.context() as patch:
        _whole_only(patch)
        whole = reveal(Session(tmp_path / "copy.sqlite3"), theirs, tmp_path / "whole.json")
    assert streamed == whole and streamed.revealed > 0
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
