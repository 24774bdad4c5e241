"""Play by e-mail in-process: two seats, two databases, signed turn files, pair-mode dice rounds,
and every way a suspicious opponent could alter a turn file (edit + re-hash, cut, reorder,
replay, fork) refused with one line and nothing written."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from rallypoint.core.errors import (
    IllegalNowError,
    IntegrityError,
    MalformedInputError,
    RallypointError,
)
from rallypoint.core.events import GENESIS_HASH, Created, EventRecord, event_hash
from rallypoint.dice.v1 import DiceProof, chain_link, pair_key, regenerate
from rallypoint.session import Session
from rallypoint.session.pair import ActingSeats, AwaitingDice, acting_seat
from rallypoint.session.pbem import (
    answer,
    create_seated,
    export_turn,
    import_turn,
    new_seat,
    verify_file,
)
from rallypoint.session.stall import stall
from rallypoint.store.exchange import ExportedCampaignHeader, ExportedHead, TurnHeader, header_hash
from rallypoint.store.signing import SeatKey

SCENARIO = Path("src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml")
RALLY = {"kind": "rally", "leader": "kempt", "unit": "28th", "rally": "disorder"}
FRENCH_RALLY = {"kind": "rally", "leader": "quiot", "unit": "55e", "rally": "sp"}
MARK = {"kind": "sight", "a": "B1", "b": "C2", "ruling": "clear"}  # no side's; rolls nothing


@dataclass
class Game:
    """French plays from a.sqlite3, allied from b.sqlite3; they trade files in ``mail``."""

    french: Session
    allied: Session
    mail: Path
    campaign: str
    count: int = 0

    def send(self, sender: Session, for_seat: str) -> Path:
        self.count += 1
        path = self.mail / f"turn{self.count}.json"
        export_turn(sender, self.campaign, path, for_seat=for_seat)
        return path

    def french_to_allied(self) -> Path:
        path = self.send(self.french, "allied")
        import_turn(self.allied, path)
        return path

    def allied_to_french(self) -> Path:
        path = self.send(self.allied, "french")
        import_turn(self.french, path)
        return path


def command(session: Session, ref: str, body: dict[str, Any]) -> Any:
    version = session.load(ref).version
    return session.execute(ref, {**body, "expected_version": version})


def start_game(tmp_path: Path, *, physical_dice: bool = False) -> Game:
    french, allied = Session(tmp_path / "a.sqlite3"), Session(tmp_path / "b.sqlite3")
    cards = [new_seat(french, "french", physical_dice=physical_dice),
             new_seat(allied, "allied", physical_dice=physical_dice)]
    info = create_seated(french, SCENARIO, cards, name="farm")
    mail = tmp_path / "mail"
    mail.mkdir()
    game = Game(french, allied, mail, info.id)
    game.french_to_allied()
    return game


def rolled_round(game: Game) -> Path:
    """Allied asks for a rally; French answers with its link only; Allied's import of the
    answer decides the rally; returns Allied's file for French carrying the event."""
    with pytest.raises(AwaitingDice, match="needs french's link"):
        command(game.allied, game.campaign, RALLY)
    game.allied_to_french()
    answer(game.french, game.campaign)
    assert import_turn(game.allied, game.send(game.french, "allied")).resolved is not None
    return game.send(game.allied, "french")


def test_a_pair_round_by_mail_gives_dice_both_seats_made(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    path = rolled_round(game)
    done = import_turn(game.french, path)
    assert (done.sender, done.new_events) == ("allied", 1)
    event = game.french.load(game.campaign, whole=True).events[-1]
    proof = proof_of(event)
    assert (proof.mode, proof.round, proof.seat, proof.position) == ("pair", 1, "allied", 1)
    # An independent re-derivation: both seats' links, SHA-256 into the key, HMAC stream.
    links = {seat: chain_link(chain_seed(session, game, seat), 1)
             for seat, session in (("french", game.french), ("allied", game.allied))}
    assert {s: v.hex() for s, v in links.items()} == proof.links
    # A round by mail is sealed (issue 18): the stream names the command through the nonce.
    assert proof.nonce is not None and proof.commitment is not None
    label = hashlib.sha256(b"rallypoint dice-v1 sealed dice\x00"
                           + bytes.fromhex(_digest(proof.command))
                           + bytes.fromhex(proof.nonce)).hexdigest()
    faces = regenerate(pair_key(links), 1, label, [6])
    assert [f for _, f in proof.tape] == faces
    report = verify_file(path)
    assert report.dice.ok and report.dice.summary() == "dice-v1: 1 verified, 0 failed (dice)"
    assert report.signer == "allied"


def chain_seed(session: Session, game: Game, seat: str) -> bytes:
    with session._store() as store:
        kept = store.seat_key(event_card(game, seat)["key"])
    assert kept is not None
    return bytes.fromhex(kept.chain_seed)


class _Rolled(BaseModel):
    """A stored event's dice proof, read through its model (the rest of the payload ignored)."""

    model_config = ConfigDict(extra="ignore")
    dice_proof: DiceProof


def proof_of(record: EventRecord) -> DiceProof:
    """The dice proof a stored event carries."""
    return _Rolled.model_validate(record.payload).dice_proof


def _digest(command_json: dict[str, Any]) -> str:
    from rallypoint.dice.v1 import command_digest

    return command_digest(command_json)


def event_card(game: Game, seat: str) -> dict[str, Any]:
    created = game.french.load(game.campaign, whole=True).events[0].payload
    card: dict[str, Any] = created["seats"][seat]
    return card


def test_the_turn_file_holds_none_of_the_senders_secrets(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    with pytest.raises(AwaitingDice):
        command(game.allied, game.campaign, RALLY)
    path = game.send(game.allied, "french")
    text = path.read_text(encoding="utf-8")
    with game.allied._store() as store:
        card = event_card(game, "allied")
        kept = store.seat_key(card["key"])
    assert kept is not None
    seed = bytes.fromhex(kept.chain_seed)
    assert kept.private not in text and kept.chain_seed not in text
    # Sealed (issue 18): not even this round's link goes out, nor the command; a commitment.
    assert chain_link(seed, 1).hex() not in text and chain_link(seed, 2).hex() not in text
    request = json.loads(text)["turn"]["request"]
    assert set(request) == {"scheme", "seat", "position", "round", "commitment"}


def test_retry_after_a_consented_undo_sees_the_same_dice(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    import_turn(game.french, rolled_round(game))
    first = game.allied.log(game.campaign)[-1]
    with pytest.raises(IllegalNowError, match="needs french's consent"):
        game.allied.undo(game.campaign)
    game.french.undo(game.campaign)  # the other seat undoes it: its consent
    game.french_to_allied()
    again = command(game.allied, game.campaign, RALLY)  # both links public: no round trip
    assert again.summary.splitlines()[1:] == first.summary.splitlines()[1:]
    log = game.allied.load(game.campaign, whole=True).events
    assert proof_of(log[-1]) == proof_of(log[1])


def test_an_undo_of_ones_own_roll_in_a_file_is_refused(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    import_turn(game.french, rolled_round(game))
    # Allied forges its own undo in its database (around the session's refusal) and sends it.
    with game.allied._store(write=True) as store:
        campaign = game.allied.load(game.campaign, whole=True)
        store.append(game.campaign, campaign.version + 1, campaign.undo_event(campaign.version))
    path = game.send(game.allied, "french")
    with pytest.raises(IntegrityError, match="a resolved roll of allied's own command"):
        import_turn(game.french, path)


def test_acting_seats_one_event_at_a_time_are_the_logs(tmp_path: Path) -> None:
    # The streamed import's ActingSeats (a byte an event) against pair.acting_seat over the
    # whole log (the oracle): a log with a resolved pair round, a mark and the undo of both.
    game = start_game(tmp_path)
    import_turn(game.french, rolled_round(game))
    command(game.french, game.campaign, MARK)
    game.french.undo(game.campaign)
    log = game.french.load(game.campaign, whole=True).events
    walk = ActingSeats()
    for event in log:
        walk.add(event)
    seats = [walk.of(e.seq) for e in log]
    assert seats == [acting_seat(log, e.seq) for e in log]
    assert seats.count("allied") == 1 and set(seats) == {None, "allied"}
    with pytest.raises(LookupError):
        walk.add(log[0])  # not the next event


def rehash(data: dict[str, Any], signer: SeatKey | None = None) -> dict[str, Any]:
    """Re-seal the chain and the header after an edit (and re-sign, if given the key)."""
    prev = GENESIS_HASH
    for e in data["events"]:
        e["prev_hash"] = prev
        e["hash"] = prev = event_hash(e["campaign_id"], e["seq"], e["type"], e["payload"],
                                      e["recorded_at"], prev)
    last = data["events"][-1]
    data["head"] = {"seq": last["seq"], "hash": last["hash"]}
    data["header_hash"] = header_hash(ExportedCampaignHeader(**data["campaign"]),
                                      ExportedHead(**data["head"]), 3,
                                      TurnHeader(**data["turn"]))
    if signer is not None:
        data["signatures"] = [signer.sign(data["header_hash"], data["turn"]["reader"])
                              .model_dump()]
    return data


def edit_face(data: dict[str, Any]) -> dict[str, Any]:
    payload = data["events"][-1]["payload"]
    payload["dice_proof"]["tape"][0][1] = payload["dice_proof"]["tape"][0][1] % 6 + 1
    return data


def swap(data: dict[str, Any]) -> dict[str, Any]:
    data["events"][-1], data["events"][-2] = data["events"][-2], data["events"][-1]
    return data


TAMPERS = {
    "edit + re-hash": (lambda d: rehash(edit_face(d)), "does not match the file's"),
    "cut": (lambda d: d["events"].pop(), "were cut"),
    "cut + re-hash": (lambda d: (d["events"].pop(), rehash(d)), "does not match the file's"),
    "reorder": (swap, "broken at seq"),
    "reorder + re-hash": (lambda d: rehash(swap(d)), "sequence gap"),
    "re-address": (lambda d: d["turn"].update(reader="allied"), "does not match its header"),
    "strip the signature": (lambda d: d.update(signatures=[]), "not signed"),
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A game in which Allied's latest file (a mark, a rolled round) awaits French's import."""
    tmp = tmp_path_factory.mktemp("pbem")
    game = start_game(tmp)
    command(game.french, game.campaign, MARK)
    game.french_to_allied()
    path = rolled_round(game)
    return tmp, path


def attempt(tmp_path: Path, played: tuple[Path, Path], change: Any) -> RallypointError:
    home, path = played
    shutil.copy(home / "a.sqlite3", tmp_path / "a.sqlite3")
    reader = Session(tmp_path / "a.sqlite3")
    before = reader.log(reader.campaigns()[0].id)
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RallypointError) as info:
        import_turn(reader, bad)
    assert reader.log(reader.campaigns()[0].id) == before
    return info.value


@pytest.mark.parametrize("name", list(TAMPERS))
def test_a_tampered_turn_file_is_refused_and_nothing_written(
    tmp_path: Path, played: tuple[Path, Path], name: str,
) -> None:
    change, message = TAMPERS[name]
    error = attempt(tmp_path, played, change)
    assert message in error.what + error.message


def test_the_untampered_file_imports(tmp_path: Path, played: tuple[Path, Path]) -> None:
    home, path = played
    shutil.copy(home / "a.sqlite3", tmp_path / "a.sqlite3")
    assert import_turn(Session(tmp_path / "a.sqlite3"), path).new_events == 1


def test_a_cheating_sender_who_re_signs_an_edited_roll_is_caught_by_the_dice(
    tmp_path: Path, played: tuple[Path, Path],
) -> None:
    home, _ = played
    with Session(home / "b.sqlite3")._store() as store:
        allied = Session(home / "b.sqlite3").load(Session(home / "b.sqlite3").campaigns()[0].id)
        seats = Created.model_validate(allied.events[0].payload).seats
        assert seats is not None
        card = seats["allied"]
        kept = store.seat_key(card["key"])
    assert kept is not None
    key = SeatKey("allied", bytes.fromhex(kept.private))
    error = attempt(tmp_path, played, lambda d: rehash(edit_face(d), key))
    assert "the dice of #" in error.what and "do not check" in error.what


def test_replays_are_refused(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    command(game.french, game.campaign, MARK)
    old = game.french_to_allied()
    with pytest.raises(IntegrityError, match=r"replayed: the file's head #2 is your head"):
        import_turn(game.allied, old)
    command(game.french, game.campaign, MARK | {"ruling": "blocked"})
    game.french_to_allied()
    with pytest.raises(IntegrityError, match=r"head #2 is behind yours \(#3\)"):
        import_turn(game.allied, old)
    own = game.send(game.allied, "french")
    with pytest.raises(IntegrityError, match="addressed to seat 'french'"):
        import_turn(game.allied, own)
    backup = tmp_path / "backup.json"
    export_turn(game.allied, game.campaign, backup)  # signed by allied, for anyone
    with pytest.raises(IntegrityError, match="your own turn file"):
        import_turn(game.allied, backup)
    stranger = Session(tmp_path / "c.sqlite3")
    new_seat(stranger, "french")
    with pytest.raises(IntegrityError, match="holds no seat key of this campaign"):
        import_turn(stranger, own)


def test_a_fork_is_refused_then_kept_as_a_new_campaign(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    # French restores an old copy of its database and plays on differently from it.
    shutil.copy(tmp_path / "a.sqlite3", tmp_path / "a-old.sqlite3")
    command(game.french, game.campaign, MARK)
    game.french_to_allied()
    old = Session(tmp_path / "a-old.sqlite3")
    command(old, game.campaign, MARK | {"ruling": "blocked"})
    fork = tmp_path / "fork.json"
    export_turn(old, game.campaign, fork, for_seat="allied")
    with pytest.raises(IntegrityError, match=r"forks from your log at #2") as info:
        import_turn(game.allied, fork)
    assert "--as NAME" in info.value.message
    kept = import_turn(game.allied, fork, as_name="farm (french's other line)")
    assert kept.forked and kept.info.id != game.campaign and kept.info.version == 2
    assert {c.name for c in game.allied.campaigns()} == {"farm", "farm (french's other line)"}
    assert game.allied.verify(kept.info.id).ok
    # The kept fork is a campaign of its own: Allied can play it and send it on.
    command(game.allied, kept.info.id, MARK | {"ruling": "auto"})
    path = tmp_path / "fork-back.json"
    export_turn(game.allied, kept.info.id, path, for_seat="french")
    assert import_turn(game.french, path, name="farm (fork)").info.version == 3


def test_typed_dice_need_both_seats_cards(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    with pytest.raises(IllegalNowError, match="need every seat's agreement"):
        game.allied.execute(game.campaign, {**RALLY, "expected_version": 1}, dice="4")
    (tmp_path / "agreed").mkdir()
    agreed = start_game(tmp_path / "agreed", physical_dice=True)
    done = agreed.allied.execute(agreed.campaign, {**RALLY, "expected_version": 1}, dice="4")
    proof = proof_of(done.record)
    assert (proof.mode, proof.agreed, proof.seat) == ("typed", ("allied", "french"), "allied")
    path = agreed.allied_to_french()
    assert verify_file(path).dice.summary() == "dice-v1: 1 typed in, 0 failed (dice)"


def test_an_edited_seat_card_is_refused(tmp_path: Path) -> None:
    french = Session(tmp_path / "a.sqlite3")
    mine = new_seat(french, "french")
    theirs = new_seat(Session(tmp_path / "b.sqlite3"), "allied")
    forged = theirs.model_copy(update={"physical_dice": True})
    with pytest.raises(IntegrityError, match="not signed by its own key"):
        create_seated(french, SCENARIO, [mine, forged])


def test_a_round_by_mail_with_one_seat_on_postgresql(tmp_path: Path) -> None:
    # French keeps its campaign on a PostgreSQL server, allied in a SQLite file: the same
    # turn files, seat keys and dice requests on both backends.
    from pg_kit import fresh_database

    for url in fresh_database():
        french, allied = Session(url), Session(tmp_path / "b.sqlite3")
        cards = [new_seat(french, "french"), new_seat(allied, "allied")]
        info = create_seated(french, SCENARIO, cards, name="farm")
        (tmp_path / "mail").mkdir()
        game = Game(french, allied, tmp_path / "mail", info.id)
        game.french_to_allied()
        path = rolled_round(game)
        assert import_turn(game.french, path).new_events == 1
        assert game.french.log(info.id) == game.allied.log(info.id)
        assert verify_file(path).dice.summary() == "dice-v1: 1 verified, 0 failed (dice)"
        # A replay is refused on PostgreSQL too.
        with pytest.raises(IntegrityError, match="replayed"):
            import_turn(game.french, tmp_path / "mail" / "turn2.json")


def test_requests_that_cross_in_the_mail_resolve_one_way(tmp_path: Path) -> None:
    # Both seats ask for dice from the same head; the seat whose name sorts first (allied)
    # goes first in both databases, so the logs cannot fork.
    game = start_game(tmp_path)
    with pytest.raises(AwaitingDice):
        command(game.french, game.campaign, FRENCH_RALLY)
    with pytest.raises(AwaitingDice):
        command(game.allied, game.campaign, RALLY | {"unit": "79th"})
    to_allied, to_french = game.send(game.french, "allied"), game.send(game.allied, "french")
    at_allied = import_turn(game.allied, to_allied)
    assert at_allied.request is None and "yours (round 1) goes first" in (at_allied.note or "")
    at_french = import_turn(game.french, to_french)
    assert at_french.request is not None and at_french.request.seat == "allied"
    assert "theirs goes first" in (at_french.note or "")
    answer(game.french, game.campaign)
    done = import_turn(game.allied, game.send(game.french, "allied"))
    assert done.resolved is not None
    proof = proof_of(game.allied.load(game.campaign, whole=True).events[-1])
    assert (proof.seat, proof.round, proof.command["unit"]) == ("allied", 1, "79th")
    game.allied_to_french()
    # French makes its command again: a new request, for round 2.
    with pytest.raises(AwaitingDice, match="dice round 2"):
        command(game.french, game.campaign, FRENCH_RALLY)


def test_a_request_the_log_moved_past_is_refused_until_withdrawn(tmp_path: Path) -> None:
    # The files crossed: French played on before Allied's request reached it (issue 18: a
    # file that moves past a waiting request is refused; the requester withdraws it).
    game = start_game(tmp_path)
    with pytest.raises(AwaitingDice):
        command(game.allied, game.campaign, RALLY)
    command(game.french, game.campaign, MARK)
    path = game.send(game.french, "allied")
    with pytest.raises(IntegrityError, match="moves the log past your dice request"):
        import_turn(game.allied, path)
    stall(game.allied, game.campaign)
    assert import_turn(game.allied, path).new_events == 1
    with pytest.raises(AwaitingDice, match="dice round 1"):
        command(game.allied, game.campaign, RALLY)  # asked again, at the new position


def test_the_cards_must_be_the_scenarios_sides(tmp_path: Path) -> None:
    french = Session(tmp_path / "a.sqlite3")
    cards = [new_seat(french, "french"), new_seat(Session(tmp_path / "b.sqlite3"), "axis")]
    with pytest.raises(MalformedInputError, match="sides are allied, french, but the cards"):
        create_seated(french, SCENARIO, cards)
