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

import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from secrets import token_hex
from typing import Any

import pytest

import test_pbem_hidden
from db_kit import sqlite_dump
from memory_kit import peak_growth
from rallypoint.core import jsonstream
from rallypoint.core.blinds import with_blind
from rallypoint.core.errors import DataFileError, IntegrityError
from rallypoint.core.events import NewEvent
from rallypoint.dice import ScriptedRoller
from rallypoint.session import Session, pbem_import
from rallypoint.session.pbem import create_seated, export_turn, import_turn, new_seat
from rallypoint.store import EventStore, exchange
from seats_kit import SCENARIO, SHEETS, execute
from test_pbem import MARK, start_game
from test_pbem import SCENARIO as SCENARIO_PBEM
from test_pbem_hidden import OTHER, TURN, _key, _resign
from test_pbem_hidden import Game as HiddenGame

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
                peaks[way].append(peak_growth(lambda: done.append(import_turn(  # noqa: B023
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
    assert sqlite_dump(streamed.path) == sqlite_dump(whole.path)


FORGED = re.escape('#2001 (sight_set) is not what its command decides: ruling: stated "blocked", '
                   're-derived "clear" (at seq 2001)')


def _refused_as_whole(mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      path: Path, refusal: str) -> None:
    """:func:`refused_as_whole` into a copy of the reader's database."""
    refused_as_whole(_reader(mail, tmp_path, "reader"), monkeypatch, path, refusal)


def refused_as_whole(reader: Session, monkeypatch: pytest.MonkeyPatch, path: Path,
                     refusal: str, as_name: str | None = None) -> None:
    """The streamed import refuses ``path`` (the whole check turned off shows it refused in
    the stream, not later) and leaves the reader's database as it was; ``import_turn`` (the
    stream, then the whole check) refuses it with the whole check's line."""
    before = sqlite_dump(reader.path)
    calls: list[object] = []
    streamed = pbem_import._import_streamed

    def spy(*args: Any) -> Any:
        calls.append(done := streamed(*args))
        return done
    with monkeypatch.context() as patch:
        patch.setattr(pbem_import, "_import_streamed", spy)
        with pytest.raises(IntegrityError, match=refusal) as info:
            import_turn(reader, path, as_name=as_name)
    assert calls == [None]  # the stream refused it (rolled back) before the whole check did
    assert "\n" not in str(info.value)
    assert sqlite_dump(reader.path) == before


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


def test_standard_input_is_spooled_and_streamed(
        hidden_mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `import -`: the command line copies standard input into a private temporary file a MiB
    # at a time (up to the input limit), so the import streams it like any file, and the copy
    # is gone afterwards.
    from rallypoint.cli.stdio import input_path

    piped = hidden_mail[str(SIZES[1])].read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(piped)))
    reader = _hidden_reader(hidden_mail, tmp_path, "piped", "reader")
    _streamed_only(monkeypatch)
    with input_path(Path("-")) as source:
        done = import_turn(reader, source)
        spool = source.parent
    assert (done.sender, done.new_events, done.withheld) == ("finland", SIZES[1] - 2,
                                                            SIZES[1] - 2)
    assert not spool.exists()


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


# --- a hidden game: TCS with hidden Op Sheets --------------------------------------------------


def _turns(sender: Session, campaign: str, count: int) -> None:
    """``count`` turns Finland advances, as Finland's ``execute`` stores them (command, deciding
    seat and a blind joined: each accrues Finland's hidden sheet), in one append."""
    c = sender.load(campaign, whole=True)
    ruleset, state, version = c.ruleset, c.state, c.version
    events: list[NewEvent] = []
    for _ in range(count):
        command = ruleset.parse_command({**TURN, "expected_version": version})
        event = ruleset.decide(state, command, ScriptedRoller(()))
        made = NewEvent.of(event).made_by(command.model_dump(mode="json"), "finland")
        events.append(with_blind(c.events[:1], made, token_hex(16)))
        state = ruleset.apply(state, event)
        version += 1
    with EventStore(sender.path) as store:
        store.append_many(campaign, c.version + 1, events)


@pytest.fixture(scope="module")
def hidden_mail(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """:func:`hidden_files`."""
    return hidden_files(tmp_path_factory.mktemp("hidden"))


def hidden_files(folder: Path) -> dict[str, Path]:
    """The Soviet reader's database (the campaign and Finland's hidden sheet), the Soviet
    database before any file (its seat key only), and Finland's turn files for the Soviets,
    ``SIZES`` events long, every turn redacted for the reader; then one whose last turn's
    public part Finland edited and signed again (its withheld digest made anew)."""
    dbs = {side: Session(folder / f"{side}.sqlite3") for side in OTHER}
    cards = [new_seat(dbs[side], side) for side in OTHER]
    made = {"fresh": folder / "fresh.sqlite3", "reader": folder / "reader.sqlite3"}
    shutil.copy(dbs["soviet"].path, made["fresh"])
    info = create_seated(dbs["finland"], SCENARIO, cards, name="both")
    (folder / "mail").mkdir()
    game = HiddenGame(dbs, folder / "mail", info.id)
    game.send("finland")
    execute(dbs["finland"], info.id, SHEETS[0])
    game.send("finland")
    shutil.copy(dbs["soviet"].path, made["reader"])
    for size in SIZES:
        _turns(dbs["finland"], info.id, size - dbs["finland"].load(info.id).version)
        made[str(size)] = game.export("finland")
    data = json.loads(made[str(SIZES[1])].read_text(encoding="utf-8"))
    data["events"][-1]["payload"]["turn"] += 1  # a public part the rules decide
    _resign(data, _key(dbs["finland"], info.id, "finland"))
    made["forged"] = folder / "forged.json"
    made["forged"].write_text(json.dumps(data), encoding="utf-8")
    return made


def _hidden_reader(mail: dict[str, Path], folder: Path, name: str, base: str) -> Session:
    db = folder / f"{name}.sqlite3"
    shutil.copy(mail[base], db)
    return Session(db)


def test_a_long_hidden_turn_file_imports_in_one_pass_with_memory_that_does_not_grow(
        hidden_mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)
    for base in ("reader", "fresh"):  # the campaign held here already; new here
        peaks: dict[str, list[int]] = {"streamed": [], "whole": []}
        for way in peaks:
            with monkeypatch.context() as patch:
                (_streamed_only if way == "streamed" else _whole_only)(patch)
                for size in SIZES:
                    reader = _hidden_reader(hidden_mail, tmp_path, f"{base}{way}{size}", base)
                    done: list[Any] = []
                    peaks[way].append(peak_growth(lambda: done.append(import_turn(  # noqa: B023
                        reader, hidden_mail[str(size)]))))  # noqa: B023
                    # Every new event is redacted for the Soviets but `created` (the reader
                    # holds it and Finland's sheet); the Soviet database then owes one accrual.
                    held = 2 if base == "reader" else 0
                    assert (done[0].sender, done[0].info.version, done[0].new_events,
                            done[0].withheld, done[0].owed) == ("finland", size + 1, size - held,
                                                                size - max(held, 1), 1)
        grown = {way: p[1] - p[0] for way, p in peaks.items()}
        # 1,500 more events: as the open game's, the whole import holds every record; the
        # stream the running state of two folds (the file's, this database's own log), a page
        # of rows and 8 bytes per event in effect. Stated slack: 512 KiB.
        assert grown["whole"] > 2 * 2**20, (base, grown)
        assert grown["streamed"] < 2**19, (base, grown)


def test_the_streamed_hidden_import_stores_what_the_whole_import_stores(
        hidden_mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The accrual the Soviet database owes after the file carries a fresh blind and clock:
    # not appended here (the whole hidden game below compares what it owes).
    monkeypatch.setattr(pbem_import, "_settle", lambda *args: 0)
    for base in ("reader", "fresh"):
        done = {}
        for way in ("streamed", "whole"):
            reader = _hidden_reader(hidden_mail, tmp_path, f"{base}{way}", base)
            with monkeypatch.context() as patch:
                (_streamed_only if way == "streamed" else _whole_only)(patch)
                done[way] = (import_turn(reader, hidden_mail[str(SIZES[0])]),
                             sqlite_dump(reader.path))
        assert done["streamed"] == done["whole"]


def test_a_hidden_event_forged_at_the_end_of_a_long_turn_file_leaves_the_database_as_before(
        hidden_mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Finland edits its last turn's public turn number (turn 1,999 of seq 2,000: the turns
    # follow `created` and Finland's sheet), redacted for the Soviets (its hash cannot be
    # checked before the reveal), and signs again: the rules on the Soviet table give 1,999.
    _refused_as_whole(hidden_mail, tmp_path, monkeypatch, hidden_mail["forged"], re.escape(
        f"#{SIZES[1]} (turn_advanced, redacted) is not what the rules give on this table: "
        f"turn: stated {SIZES[1]}, re-derived {SIZES[1] - 1} (at seq {SIZES[1]})"))


def _both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Every ``import_turn`` of test_pbem_hidden's games made twice: streamed (which must
    decide it) and whole on a copy of the reader's database; what each gave, in order."""
    answers: dict[str, list[Any]] = {"streamed": [], "whole": []}
    real = pbem_import.import_turn
    streamed = pbem_import._import_streamed

    def both(session: Session, path: Path, **kwargs: Any) -> Any:
        shadow = tmp_path / "shadow.sqlite3"
        shutil.copy(session.path, shadow)
        with monkeypatch.context() as patch:
            _whole_only(patch)
            whole = real(Session(shadow), path, **kwargs)
        done = streamed(session, path, kwargs.get("name"), kwargs.get("as_name"))
        assert done is not None, path.name  # the stream decided it
        for way, got in (("streamed", done), ("whole", whole)):
            answers[way].append((got.info.version, got.new_events, got.sender, got.request,
                                 got.note, got.withheld, got.owed, got.resolved is None))
        return done
    monkeypatch.setattr(test_pbem_hidden, "import_turn", both)
    return answers


def test_every_file_of_a_hidden_game_by_mail_is_decided_in_one_pass_as_it_is_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The game of test_pbem_hidden: sheets both ways, owed accruals, sealed rounds, requests.
    answers = _both_ways(tmp_path, monkeypatch)
    game = test_pbem_hidden.play(tmp_path)
    assert answers["streamed"] == answers["whole"]
    assert len(answers["streamed"]) == game.count


def test_turns_of_a_seat_without_a_sheet_stream_as_they_import_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the Soviets write a sheet; Finland's database holds it redacted and accrues nothing
    # for it, so Finland's turns arrive redacted and the Soviet database owes its accrual.
    answers = _both_ways(tmp_path, monkeypatch)
    game = test_pbem_hidden.start(tmp_path, "soviet-sheet")
    execute(game.dbs["soviet"], game.campaign, SHEETS[1])
    game.send("soviet")
    for _ in range(3):
        execute(game.dbs["finland"], game.campaign, TURN)
    game.send("finland")
    assert answers["streamed"] == answers["whole"]
    assert answers["streamed"][-1][1:] == (3, "finland", None, None, 3, 1, True)


def _edited_last(mail: dict[str, Path], folder: Path, edit: Callable[[dict[str, Any]], None],
                 *, resign: bool) -> Path:
    """Finland's longer file with its last (redacted) event's payload edited; ``resign``:
    signed again with its withheld digest made anew (a lying sender), else as it was."""
    data = json.loads(mail[str(SIZES[1])].read_text(encoding="utf-8"))
    edit(data["events"][-1]["payload"])
    if resign:
        with EventStore(mail["reader"]) as store:
            campaign = store.campaigns()[0].id
        _resign(data, _key(Session(mail["reader"].parent / "finland.sqlite3"), campaign,
                           "finland"))
    path = folder / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_withheld_event_changed_after_signing_late_in_a_long_file_is_refused_as_whole(
        hidden_mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The last redacted turn now withholds Finland's part only (the referee's dropped): still
    # an honest kind of redaction, no public part the rules decide changes, and its hash
    # cannot be checked before the reveal; only the signed withheld digest shows it.
    path = _edited_last(hidden_mail, tmp_path,
                        lambda p: p.update({"$withheld": {"finland": None}}), resign=False)
    _refused_as_whole(hidden_mail, tmp_path, monkeypatch, path, re.escape(
        "the file's withheld events are not the ones its signed header names (edited after "
        "it was signed?) (at turn.redacted)"))


def test_a_dishonest_redaction_late_in_a_long_file_is_refused_as_whole(
        hidden_mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Finland's last turn says it withholds a part of a party the campaign does not have,
    # signed with a digest made anew: no honest redaction makes that.
    path = _edited_last(hidden_mail, tmp_path,
                        lambda p: p.update({"$withheld": {"nobody": None}}), resign=True)
    _refused_as_whole(hidden_mail, tmp_path, monkeypatch, path, re.escape(
        f"event #{SIZES[1]} arrives redacted, but its withheld part is not one opaque part "
        "per side of the campaign: its hash cannot be checked"))


# --- a database that does not exist yet --------------------------------------------------------


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A one-player campaign's exports (its log ``SIZES`` events long: sight rulings, as
    ``_mark`` makes them, decided by no seat), and the longer one with its last event's
    ruling changed and not hashed again."""
    folder = tmp_path_factory.mktemp("alone")
    player = Session(folder / "player.sqlite3")
    campaign = player.create(SCENARIO_PBEM, name="farm").id
    made = {}
    for size in SIZES:
        c = player.load(campaign)
        ruleset, state = c.ruleset, c.state
        command = ruleset.parse_command({**MARK, "expected_version": c.version})
        events: list[NewEvent] = []
        for _ in range(size - c.version):
            event = ruleset.decide(state, command, ScriptedRoller(()))
            events.append(NewEvent.of(event).made_by(command.model_dump(mode="json"), None))
            state = ruleset.apply(state, event)
        with EventStore(player.path) as store:
            store.append_many(campaign, c.version + 1, events)
        made[str(size)] = folder / f"alone{size}.json"
        export_turn(player, campaign, made[str(size)])
    data = json.loads(made[str(SIZES[1])].read_text(encoding="utf-8"))
    data["events"][-1]["payload"]["ruling"] = "blocked"
    made["edited"] = folder / "edited.json"
    made["edited"].write_text(json.dumps(data), encoding="utf-8")
    return made


def test_a_long_file_into_a_database_not_made_yet_streams_and_leaves_that_database_alone(
        alone: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)
    peaks: dict[str, list[int]] = {"streamed": [], "whole": []}
    for way in peaks:
        with monkeypatch.context() as patch:
            (_streamed_only if way == "streamed" else _whole_only)(patch)
            for size in SIZES:
                folder = tmp_path / f"{way}{size}"
                folder.mkdir()
                done: list[Any] = []
                peaks[way].append(peak_growth(lambda: done.append(import_turn(  # noqa: B023
                    Session(folder / "new.sqlite3"), alone[str(size)]))))  # noqa: B023
                assert (done[0].sender, done[0].info.version, done[0].new_events) == (
                    None, size, size)
                # The database made in place of the one staged beside it, nothing else.
                assert sorted(p.name for p in folder.iterdir()) == ["new.sqlite3"]
    # The same rows (but the times each database was made at, in its migrations' table).
    made = {way: [line for line in sqlite_dump(tmp_path / f"{way}{SIZES[0]}" / "new.sqlite3")
                  if "schema_migrations\" VALUES" not in line] for way in peaks}
    assert made["streamed"] == made["whole"]
    grown = {way: p[1] - p[0] for way, p in peaks.items()}
    assert grown["whole"] > 2 * 2**20, grown
    assert grown["streamed"] < 2**19, grown


def test_a_file_refused_late_into_a_database_not_made_yet_leaves_no_file(
        alone: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The last of 2,000 events does not hash to its hash: the whole check refuses the file
    # before it makes the database, so the stream must leave nothing of the one it staged.
    calls: list[object] = []
    streamed = pbem_import._import_streamed

    def spy(*args: Any) -> Any:
        calls.append(done := streamed(*args))
        return done
    monkeypatch.setattr(pbem_import, "_import_streamed", spy)
    folder = tmp_path / "here"
    folder.mkdir()
    with pytest.raises(IntegrityError) as info:
        import_turn(Session(folder / "new.sqlite3"), alone["edited"])
    assert calls == [None]
    assert str(info.value) == (
        f"the imported log is broken at seq {SIZES[1]}: content does not match its hash "
        f"(edited?) (at seq {SIZES[1]}). ask for a fresh export; the file was edited or "
        "damaged")
    assert list(folder.iterdir()) == []


# --- a pipe -------------------------------------------------------------------------------------


def _piped(folder: Path, data: bytes, name: str) -> Path:
    """A named pipe that gives ``data`` once, to whoever opens it first (a daemon writer)."""
    fifo = folder / name
    os.mkfifo(fifo)

    def feed() -> None:
        with contextlib.suppress(OSError), fifo.open("wb") as sink:
            sink.write(data)
    threading.Thread(target=feed, daemon=True).start()
    return fifo


def _private_temp(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Temporary files made in ``folder`` (to see that the pipe's copy is gone after)."""
    temp = folder / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return temp


def test_a_long_hidden_turn_file_from_a_pipe_is_copied_once_and_streamed(
        hidden_mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = _private_temp(tmp_path, monkeypatch)
    _streamed_only(monkeypatch)
    fifo = _piped(tmp_path, hidden_mail[str(SIZES[1])].read_bytes(), "turn.fifo")
    done = import_turn(_hidden_reader(hidden_mail, tmp_path, "piped", "reader"), fifo)
    assert (done.sender, done.new_events, done.withheld) == ("finland", SIZES[1] - 2,
                                                            SIZES[1] - 2)
    assert list(temp.iterdir()) == []


def _pipe_refusal(mail: dict[str, Path], folder: Path, data: bytes, *, whole: bool) -> str:
    """The refusal of ``data`` given through a pipe; ``whole``: the import as it was, reading
    the pipe itself with the whole check (no copy, no stream): the oracle."""
    reader = _reader(mail, folder, "whole" if whole else "spooled")
    before = sqlite_dump(reader.path)
    fifo = _piped(folder, data, "whole.fifo" if whole else "spooled.fifo")
    with pytest.MonkeyPatch.context() as patch:
        if whole:
            _whole_only(patch)
            patch.setattr(pbem_import, "spooled", lambda path, limit: contextlib.nullcontext(
                path))
        with pytest.raises(IntegrityError if b"blocked" in data else DataFileError) as info:
            import_turn(reader, fifo)
    assert sqlite_dump(reader.path) == before
    return str(info.value).replace(str(fifo), "PIPE")


def test_a_forged_turn_file_from_a_pipe_is_refused_as_the_pipe_itself_is(
        mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = _private_temp(tmp_path, monkeypatch)
    data = mail["forged"].read_bytes()
    spooled = _pipe_refusal(mail, tmp_path, data, whole=False)
    assert spooled == _pipe_refusal(mail, tmp_path, data, whole=True)
    assert re.fullmatch(FORGED + ".*", spooled)
    # A refusal that names the file names the pipe, not its copy: a bad field late in it.
    bad = json.loads(mail[str(SIZES[1])].read_text(encoding="utf-8"))
    bad["events"][-1]["seq"] = "last"
    for name in ("whole.fifo", "spooled.fifo"):
        (tmp_path / name).unlink()
    data = json.dumps(bad).encode("utf-8")
    spooled = _pipe_refusal(mail, tmp_path, data, whole=False)
    assert spooled == _pipe_refusal(mail, tmp_path, data, whole=True)
    assert spooled.startswith(f"export file has an invalid field events[{SIZES[1] - 1}].seq")
    assert f"(at PIPE events[{SIZES[1] - 1}].seq)" in spooled
    assert list(temp.iterdir()) == []


def test_a_pipe_that_goes_on_past_the_limit_is_refused_as_the_pipe_itself_is(
        mail: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The input limit made small: the copy stops one byte past it, and the whole check reads
    # that from a pipe again, refusing it where it refuses the pipe itself (here: the limit;
    # with junk before it, the junk).
    temp = _private_temp(tmp_path, monkeypatch)
    monkeypatch.setattr(exchange, "EXPORT_LIMITS", replace(exchange.EXPORT_LIMITS,
                                                           max_bytes=1 << 16))
    for data in (mail[str(SIZES[1])].read_bytes(), b"{\"format\": nope" + b" " * (1 << 17)):
        spooled = _pipe_refusal(mail, tmp_path, data, whole=False)
        assert spooled == _pipe_refusal(mail, tmp_path, data, whole=True)
        assert "PIPE" in spooled
        for name in ("whole.fifo", "spooled.fifo"):
            (tmp_path / name).unlink()
    assert spooled.startswith("export file") and list(temp.iterdir()) == []


def test_a_hidden_game_streams_into_a_postgresql_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The Soviets keep their campaign on a PostgreSQL server: every file Finland sends them
    # (the campaign new there, then one it holds: two folds, rows read back) is decided in one
    # pass, with test_pbem_hidden's answers for Finland's three hidden turns.
    from pg_kit import fresh_database

    _streamed_only(monkeypatch)
    for url in fresh_database():
        dbs = {"finland": Session(tmp_path / "f.sqlite3"), "soviet": Session(url)}
        cards = [new_seat(dbs[side], side) for side in OTHER]
        info = create_seated(dbs["finland"], SCENARIO, cards, name="both")
        (tmp_path / "mail").mkdir()
        game = HiddenGame(dbs, tmp_path / "mail", info.id)
        assert game.send("finland").new_events == 1
        execute(dbs["finland"], info.id, SHEETS[0])
        assert (game.send("finland").new_events, game.count) == (1, 2)
        for _ in range(3):
            execute(dbs["finland"], info.id, TURN)
        done = game.send("finland")
        assert (done.new_events, done.withheld, done.owed) == (3, 3, test_pbem_hidden.OWED)
        assert dbs["soviet"].resolve(info.id).version == 6


def test_an_undo_of_an_event_held_redacted_is_decided_in_one_pass_as_it_is_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Finland writes its hidden sheet (the Soviet database holds it redacted), sends it, then
    # undoes it and sends the undo. Whose roll the undo cancels is read from the file's copy of
    # the sheet, as the whole check reads it (pair.ActingSeats, a byte an event), where the
    # pass once left the file to the whole check because its own row of the sheet is redacted.
    answers = _both_ways(tmp_path, monkeypatch)
    game = test_pbem_hidden.start(tmp_path, "both")
    execute(game.dbs["finland"], game.campaign, SHEETS[0])
    assert game.send("finland").withheld == 1
    game.dbs["finland"].undo(game.campaign)
    done = game.send("finland")
    assert answers["streamed"] == answers["whole"] and len(answers["streamed"]) == 3
    assert (done.new_events, done.withheld) == (1, 1)  # the undo, of a hidden sheet: redacted


def test_your_own_newer_turn_file_into_an_older_copy_of_your_database_is_refused_by_the_stream(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Allied restores an older copy of its database and imports its own later turn file: new
    # events, signed by its own seat. Nobody else signed them, so the file is refused as a
    # replay of one's own file, by the stream (check_reader) before the whole check.
    game = start_game(tmp_path)
    old = Session(shutil.copy(game.allied.path, tmp_path / "allied-old.sqlite3"))
    game.allied.execute(game.campaign,
                        {**MARK, "expected_version": game.allied.load(game.campaign).version})
    path = tmp_path / "own.json"
    export_turn(game.allied, game.campaign, path)  # signed by Allied, addressed to no seat
    refused_as_whole(old, monkeypatch, path, "this is your own turn file")
