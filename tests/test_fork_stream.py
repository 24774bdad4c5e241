"""``rallypoint import FILE --as NAME`` in one streaming pass: a fork of a campaign this database
has, kept as a new campaign (session/turn_stream.py with ``fork_as``).

Oracles: the whole-file import (the streaming pass turned off), whose retained memory grows
with the log (the contrast the streamed one must not show), whose rows, dumped row by row
(``iterdump``) with the new campaign's id fixed, the streamed import must store exactly, and
whose refusal it must give, word for word, leaving the database as it was; ``verify`` of the
kept campaign, whose chain the pass sealed again under its new id.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

import test_pbem_hidden
from db_kit import sqlite_dump
from memory_kit import peak_growth
from rallypoint.core import jsonstream
from rallypoint.core.errors import IntegrityError
from rallypoint.core.visibility import BLIND
from rallypoint.session import Session, pbem_import
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.pbem import create_seated, export_turn, import_turn, new_seat
from rallypoint.session.reveal import reveal
from rallypoint.session.stall import stall
from rallypoint.store import EventStore
from rallypoint.store.signing import SEATS_KEY, SeatCard, SeatKey
from test_pbem import MARK, RALLY, SCENARIO, command, rehash, start_game
from test_turn_stream import (
    _both_ways,
    _mark,
    _streamed_only,
    _whole_only,
    refused_as_whole,
)

SIZES = (500, 2000)
FIXED = uuid.UUID(int=0x5EED)
"""The id a fork is given in the tests that compare two imports' rows."""


@pytest.fixture(scope="module")
def forks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """For each size: Allied's database holding French's log of that many events (the last a
    sight ruled "clear"), and French's signed file from an older copy of its database whose
    last event rules the same sight "blocked": a fork at the last seq. And a fork whose
    last event's ruling is not what its command decides (a cheating sender, who signs it)."""
    folder = tmp_path_factory.mktemp("forks")
    game = start_game(folder)
    made: dict[str, Path] = {}
    done = 1
    for size in SIZES:
        _mark(game.french, game.campaign, size - 1 - done)
        old = Session(shutil.copy(game.french.path, folder / f"old{size}.sqlite3"))
        command(game.french, game.campaign, MARK)
        done = size
        line = folder / f"line{size}.json"
        export_turn(game.french, game.campaign, line, for_seat="allied")
        import_turn(game.allied, line)
        made[f"reader{size}"] = Path(shutil.copy(game.allied.path,
                                                 folder / f"reader{size}.sqlite3"))
        command(old, game.campaign, MARK | {"ruling": "blocked"})
        made[f"fork{size}"] = folder / f"fork{size}.json"
        export_turn(old, game.campaign, made[f"fork{size}"], for_seat="allied")
        made[f"old{size}"] = old.path
    forged = Session(made[f"old{SIZES[-1]}"])
    _mark(forged, game.campaign, 1, forged_last=True)
    made["forged"] = folder / "forged.json"
    export_turn(forged, game.campaign, made["forged"], for_seat="allied")
    made["campaign"] = Path(game.campaign)
    return made


def _reader(forks: dict[str, Path], folder: Path, size: int, name: str) -> Session:
    return Session(shutil.copy(forks[f"reader{size}"], folder / f"{name}.sqlite3"))


def test_a_long_fork_is_kept_in_one_pass_with_memory_that_does_not_grow(
        forks: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "CHUNK", 1 << 16)  # a fixed cost both files fill
    peaks: dict[str, list[int]] = {"streamed": [], "whole": []}
    for way in peaks:
        with monkeypatch.context() as patch:
            (_streamed_only if way == "streamed" else _whole_only)(patch)
            for size in SIZES:
                reader = _reader(forks, tmp_path, size, f"{way}{size}")
                done: list[Any] = []
                peaks[way].append(peak_growth(lambda: done.append(import_turn(  # noqa: B023
                    reader, forks[f"fork{size}"], as_name="farm (the other line)"))))  # noqa: B023
                kept = done[0]
                assert kept.forked and (kept.sender, kept.info.version, kept.new_events) == (
                    "french", size, size)
                assert kept.info.id != str(forks["campaign"])
                assert reader.verify(kept.info.id).ok
    grown = {way: p[1] - p[0] for way, p in peaks.items()}
    # 1,500 more events in the file and in this database's own log of the campaign: the
    # whole-file import holds both; the streamed one holds the running state and a page of
    # rows. Stated slack: 512 KiB.
    assert grown["whole"] > 2 * 2**20, grown
    assert grown["streamed"] < 2**19, grown


def test_the_streamed_fork_stores_what_the_whole_import_stores(
        forks: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uuid, "uuid4", lambda: FIXED)
    answers, dumps = [], []
    for way in (_streamed_only, _whole_only):
        reader = _reader(forks, tmp_path, SIZES[0], way.__name__)
        with monkeypatch.context() as patch:
            way(patch)
            answers.append(import_turn(reader, forks[f"fork{SIZES[0]}"], as_name="kept"))
        dumps.append(sqlite_dump(reader.path))
    assert answers[0] == answers[1] and answers[0].info.id == FIXED.hex
    assert dumps[0] == dumps[1]


def _kept_streamed(forks: dict[str, Path], tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> tuple[Session, Any]:
    """The shorter fork kept as "kept" in a copy of its reader's database, by the stream."""
    reader = _reader(forks, tmp_path, SIZES[0], "reader")
    with monkeypatch.context() as patch:
        _streamed_only(patch)
        return reader, import_turn(reader, forks[f"fork{SIZES[0]}"], as_name="kept")


def test_a_kept_fork_plays_on_and_goes_back_by_mail(
        forks: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader, kept = _kept_streamed(forks, tmp_path, monkeypatch)
    command(reader, kept.info.id, MARK | {"ruling": "auto"})
    back = tmp_path / "back.json"
    export_turn(reader, kept.info.id, back, for_seat="french")
    french = Session(shutil.copy(forks[f"old{SIZES[0]}"], tmp_path / "french.sqlite3"))
    assert import_turn(french, back, name="kept").info.version == SIZES[0] + 1


def test_a_forged_event_at_the_end_of_a_long_fork_leaves_the_database_as_before(
        forks: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seq = SIZES[-1] + 1
    refused_as_whole(_reader(forks, tmp_path, SIZES[-1], "reader"), monkeypatch, forks["forged"],
                     rf'#{seq} \(sight_set\) is not what its command decides: ruling: stated '
                     rf'"blocked", re-derived "clear" \(at seq {seq}\)', "kept")


def test_a_fork_whose_created_swaps_a_seat_for_the_forgers_is_refused(
        forks: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A forger who holds the campaign's log puts its own card in French's place in `created`,
    # re-hashes the chain and signs: its own `created` would vouch for its key. The seats are
    # the ones this database's own `created` names (as the whole check's _trust takes them),
    # so the forger's signature is no seat's.
    forger = Session(tmp_path / "forger.sqlite3")
    card = new_seat(forger, "french")
    data = json.loads(forks[f"fork{SIZES[0]}"].read_text(encoding="utf-8"))
    data["events"][0]["payload"][SEATS_KEY]["french"] = card.model_dump(mode="json")
    rehash(data, _private(forger, card))
    path = tmp_path / "forged-created.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    refused_as_whole(_reader(forks, tmp_path, SIZES[0], "reader"), monkeypatch, path,
                     "signed as seat 'french' by a key that is not that seat's key", "kept")


def _private(forger: Session, card: SeatCard) -> SeatKey:
    """The forger's private key of ``card``, from its own database."""
    with forger._store() as store:
        kept = store.seat_key(card.key)
    assert kept is not None
    return SeatKey(card.seat, bytes.fromhex(kept.private))


def test_a_fork_into_a_database_not_made_yet_is_refused_and_leaves_no_file(
        forks: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Kept as a copy where no database exists yet: the reader needs its seat key, so this is
    # refused, by the stream and the whole check alike, and no database is left behind.
    target = tmp_path / "new.sqlite3"
    with pytest.raises(IntegrityError, match="holds no seat key"):
        import_turn(Session(target), forks[f"fork{SIZES[0]}"], as_name="kept")
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


def test_the_walk_seals_each_row_under_the_forks_id(
        forks: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader, kept = _kept_streamed(forks, tmp_path, monkeypatch)
    with EventStore(reader.path) as store:
        rows, original = store.events(kept.info.id), store.events(str(forks["campaign"]))
    assert {e.campaign_id for e in rows} == {kept.info.id} and reader.verify(kept.info.id).ok
    # Same payloads and times as the file's, but no hash in common with the campaign forked.
    assert [(e.type, e.payload, e.recorded_at) for e in rows[:-1]] == [
        (e.type, e.payload, e.recorded_at) for e in original[:-1]]
    assert not {e.hash for e in rows} & {e.hash for e in original}


def test_a_hidden_games_whole_log_kept_as_a_copy_is_decided_in_one_pass_as_it_is_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # test_pbem_hidden's reveal: the whole log `reveal` wrote, kept beside the Soviet
    # database's partial one (`import --as both-revealed`), every import of its game made
    # both ways on the way there.
    answers = _both_ways(tmp_path, monkeypatch)
    (tmp_path / "game").mkdir()
    (tmp_path / "reveal").mkdir()
    game = test_pbem_hidden.play(tmp_path / "game")
    test_pbem_hidden.test_the_reveal_merges_a_whole_log_that_verifies(game, tmp_path / "reveal")
    assert answers["streamed"] == answers["whole"]
    version, new, sender, *_ = answers["streamed"][-1]  # the copy: every event new, nothing owed
    assert (new, sender) == (version, "soviet") and answers["streamed"][-1][-2:] == (0, True)


def test_a_copy_that_moves_past_your_waiting_dice_request_is_refused_by_the_stream_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # What the whole check asks of this database's own log of the campaign (here: Allied's
    # request waits at its head, and French's file plays on past it) the stream asks too, of
    # that log read back: kept as a copy or not, the file is refused until Allied withdraws.
    game = start_game(tmp_path)
    with pytest.raises(AwaitingDice):
        command(game.allied, game.campaign, RALLY)
    command(game.french, game.campaign, MARK)
    path = game.send(game.french, "allied")
    refused_as_whole(game.allied, monkeypatch, path, "moves the log past your dice request",
                     "french's line")
    stall(game.allied, game.campaign)
    kept = pbem_import._import_streamed(game.allied, path, None, "french's line")
    assert kept is not None and kept.forked and kept.new_events == 2


def test_a_whole_log_decided_only_in_a_seats_view_is_refused_when_it_hides_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The whole check decides an event again in its seat's view only when the log hides
    # something (a blind, a redaction). The revealed log of a hidden game, its blinds cut out
    # and signed again by the seat who wrote it: an event its seat decided without the other
    # side's secrets is then not what its command decides against the log as it is.
    soviet, _, path = revealed_without_blinds(tmp_path)
    refused_as_whole(soviet, monkeypatch, path, "is not what its command decides", "copy")


def revealed_without_blinds(folder: Path) -> tuple[Session, Path, Path]:
    """test_pbem_hidden's game played in ``folder``: the Soviet database, the whole log its
    reveal wrote, and that log with every blind cut out, signed again by the Soviet seat."""
    (folder / "game").mkdir()
    game = test_pbem_hidden.play(folder / "game")
    soviet = game.dbs["soviet"]
    out = folder / "whole.json"
    reveal(soviet, game.export("finland", for_other=False), out)
    data = json.loads(out.read_text(encoding="utf-8"))
    for event in data["events"]:
        event["payload"].pop(BLIND, None)
    rehash(data, test_pbem_hidden._key(soviet, game.campaign, "soviet"))
    path = folder / "no-blinds.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return soviet, out, path


def test_a_fork_streams_into_a_postgresql_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Allied keeps its campaign on a PostgreSQL server: French's other line, from an older copy
    # of its database, is kept beside it in one pass (the server's own log of the campaign read
    # back inside the import's transaction).
    from pg_kit import fresh_database

    for url in fresh_database():
        french, allied = Session(tmp_path / "a.sqlite3"), Session(url)
        cards = [new_seat(french, "french"), new_seat(allied, "allied")]
        campaign = create_seated(french, SCENARIO, cards, name="farm").id

        def send(sender: Session, name: str, campaign: str = campaign) -> Path:
            export_turn(sender, campaign, tmp_path / name, for_seat="allied")
            return tmp_path / name
        import_turn(allied, send(french, "t1.json"))
        old = Session(shutil.copy(french.path, tmp_path / "old.sqlite3"))
        command(french, campaign, MARK)
        import_turn(allied, send(french, "t2.json"))
        command(old, campaign, MARK | {"ruling": "blocked"})
        with monkeypatch.context() as patch:
            _streamed_only(patch)
            kept = import_turn(allied, send(old, "fork.json"), as_name="kept")
        assert kept.forked and (kept.info.version, kept.new_events) == (2, 2)
        assert allied.verify(kept.info.id).ok and allied.verify(campaign).ok
        assert allied.load(campaign).version == 2


def test_a_copy_of_your_own_campaign_rolls_on_with_its_dice_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A one-player campaign rolls from a server secret its database keeps unrevealed. Kept as
    # a copy (import --as), by the stream and by the whole check, the copy keeps that secret
    # too (pbem_checks.keep_fork_secret), so its next roll is made and checks.
    player = Session(tmp_path / "player.sqlite3")
    campaign = player.create(SCENARIO, name="farm").id
    path = tmp_path / "farm.json"
    export_turn(player, campaign, path)
    for way in (_streamed_only, _whole_only):
        with monkeypatch.context() as patch:
            way(patch)
            kept = import_turn(player, path, as_name=f"farm ({way.__name__})")
        assert kept.forked and kept.info.id != campaign
        command(player, kept.info.id, RALLY)
        assert player.verify(kept.info.id).ok
