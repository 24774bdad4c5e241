"""A sealed pair round by mail between two databases (docs/dice.md, "Sealed pair rounds"): a
two-side TCS campaign, Finland's implementation check requested under a commitment, the Soviet
answer carrying only its link, Finland deciding its kept command; and every way to cheat it.

Most files here are open exports (signed backups, nothing redacted), so a tamper can be made and
re-signed on the whole log; the last test plays sealed rounds both ways with files filtered for
their reader, then the reveal.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.errors import IllegalNowError, IntegrityError
from rallypoint.core.events import GENESIS_HASH, event_hash
from rallypoint.dice.sealed import PairAnswer, SealedRequest, parse_request, sealed_roller
from rallypoint.dice.v1 import DiceProof, chain_link, command_digest
from rallypoint.session import Session
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.pbem import (
    Imported,
    answer,
    create_seated,
    export_turn,
    import_turn,
    new_seat,
    verify_file,
)
from rallypoint.session.sealed import is_sealed
from rallypoint.store.exchange import ExportedCampaignHeader, ExportedHead, TurnHeader, header_hash
from rallypoint.store.signing import SeatKey, seat_cards
from seats_kit import SCENARIO, SHEETS, execute

CHECK = {"kind": "check", "sheet": "F-hideout"}
TURN = {"kind": "turn", "skip_fo": True}


def test_every_campaign_with_two_seats_is_sealed() -> None:
    # Issue 18: an open round let the answerer see the dice before answering (a veto).
    two = {"a": object(), "b": object()}
    assert is_sealed("tcs", two) and not is_sealed("tcs", {"a": object()})
    assert is_sealed("squares", two) and is_sealed("platoon", two)


@dataclass
class Game:
    finland: Session
    soviet: Session
    mail: Path
    campaign: str
    count: int = 0

    def export(self, sender: Session) -> Path:
        self.count += 1
        path = self.mail / f"turn{self.count}.json"
        export_turn(sender, self.campaign, path)
        return path

    def send(self, sender: Session, reader: Session) -> tuple[Path, Imported]:
        path = self.export(sender)
        return path, import_turn(reader, path)

    def version(self, session: Session) -> int:
        return session.load(self.campaign, whole=True).version

    def key(self, session: Session, seat: str) -> tuple[SeatKey, bytes]:
        """A seat's signing key and chain seed, from its player's store."""
        with session._store() as store:
            created = store.events(self.campaign)[0].payload
            kept = store.seat_key(seat_cards(created)[seat].key)
        assert kept is not None
        return SeatKey(seat, bytes.fromhex(kept.private)), bytes.fromhex(kept.chain_seed)


def start(tmp_path: Path) -> Game:
    """Finland has written its sheet and played three turns; its check waits for dice."""
    finland, soviet = Session(tmp_path / "f.sqlite3"), Session(tmp_path / "s.sqlite3")
    cards = [new_seat(finland, "finland"), new_seat(soviet, "soviet")]
    info = create_seated(finland, SCENARIO, cards, name="both")
    mail = tmp_path / "mail"
    mail.mkdir()
    game = Game(finland, soviet, mail, info.id)
    execute(finland, info.id, SHEETS[0])
    for _ in range(3):
        execute(finland, info.id, TURN)
    with pytest.raises(AwaitingDice, match="sealed command"):
        execute(finland, info.id, CHECK)
    return game


def asked(game: Game) -> Path:
    """Finland's request reaches the Soviets, who answer; returns the Soviet file."""
    game.send(game.finland, game.soviet)
    made = answer(game.soviet, game.campaign)
    assert isinstance(made, PairAnswer)
    return game.export(game.soviet)


def test_a_sealed_round_between_two_databases(tmp_path: Path) -> None:
    game = start(tmp_path)
    path, done = game.send(game.finland, game.soviet)
    request = json.loads(path.read_text(encoding="utf-8"))["turn"]["request"]
    assert set(request) == {"scheme", "seat", "position", "round", "commitment"}
    assert isinstance(done.request, SealedRequest) and not done.request.whole
    before = game.version(game.soviet)
    made = answer(game.soviet, game.campaign)
    assert isinstance(made, PairAnswer) and made.commitment == request["commitment"]
    assert game.version(game.soviet) == before  # the answerer appends nothing
    assert answer(game.soviet, game.campaign) == made  # one link per round

    back, done = game.send(game.soviet, game.finland)
    header = json.loads(back.read_text(encoding="utf-8"))["turn"]
    assert header["answer"] == made.wire() and header["request"] is None
    assert done.new_events == 0 and done.resolved is not None  # fresh, not a replay
    assert "F-hideout implementation check" in done.resolved.summary

    event = game.finland.load(game.campaign, whole=True).events[-1]
    proof = DiceProof.model_validate(event.payload["dice_proof"])
    assert (proof.seat, proof.round, proof.commitment) == ("finland", 1, request["commitment"])
    assert proof.command == CHECK | {"columns": {}, "rear_broken": {}}
    # An independent re-derivation: the links of both chains, the seal and the sealed stream.
    _, finland_seed = game.key(game.finland, "finland")
    _, soviet_seed = game.key(game.soviet, "soviet")
    links = {"finland": chain_link(finland_seed, 1), "soviet": chain_link(soviet_seed, 1)}
    assert {s: v.hex() for s, v in links.items()} == proof.links
    digest, nonce = bytes.fromhex(command_digest(proof.command)), bytes.fromhex(proof.nonce or "")
    assert len(nonce) == 16
    assert hashlib.sha256(b"rallypoint dice-v1 seal\x00" + digest + nonce).hexdigest() \
        == request["commitment"]
    label = hashlib.sha256(b"rallypoint dice-v1 sealed dice\x00" + digest + nonce).hexdigest()
    key = hashlib.sha256(b"rallypoint dice-v1 pair\x00" + links["finland"]
                         + links["soviet"]).digest()
    stream = hmac.new(key, f"dice-v1/{proof.position}/{label}:0".encode(),
                      hashlib.sha256).digest()
    assert [f for _, f in proof.tape] == [b % 6 + 1 for b in stream if b < 252][:len(proof.tape)]

    final, done = game.send(game.finland, game.soviet)
    assert done.new_events == 1
    with game.soviet._store() as store:
        assert store.dice_answers(game.campaign) == []  # resolved: forgotten
    assert verify_file(final).dice.summary() == (
        f"dice-v1: {len(proof.tape)} verified, 0 failed (dice)")
    execute(game.soviet, game.campaign, TURN)  # the Soviets play on


def test_each_seat_waits_while_its_round_is_open(tmp_path: Path) -> None:
    game = start(tmp_path)
    with pytest.raises(IllegalNowError, match="waits for the other seat's answer"):
        execute(game.finland, game.campaign, TURN)
    with pytest.raises(IllegalNowError, match="waits for the other seat's answer"):
        game.finland.undo(game.campaign)
    with pytest.raises(AwaitingDice):  # the same command only says it is still waiting
        execute(game.finland, game.campaign, CHECK)
    asked(game)
    with pytest.raises(IllegalNowError, match="you answered"):
        execute(game.soviet, game.campaign, TURN)
    with pytest.raises(IllegalNowError, match="you answered"):
        game.soviet.undo(game.campaign)


def test_the_answer_file_is_a_replay_once_resolved(tmp_path: Path) -> None:
    game = start(tmp_path)
    back = asked(game)
    assert import_turn(game.finland, back).resolved is not None
    with pytest.raises(IntegrityError, match="replayed"):
        import_turn(game.finland, back)


def test_an_old_answer_sent_again_at_the_readers_head_is_a_replay(tmp_path: Path) -> None:
    """The Soviets re-send their resolved round-1 answer on a file at Finland's own head: it
    brings no event, and its answer is no longer fresh (the log holds round 1), so it is a
    replay, not a second resolution of the round (``sealed.answer_is_fresh``)."""
    game = start(tmp_path)
    back = asked(game)
    old = json.loads(back.read_text(encoding="utf-8"))["turn"]["answer"]
    assert import_turn(game.finland, back).resolved is not None
    game.send(game.finland, game.soviet)  # both databases now hold the resolved round
    assert game.version(game.soviet) == game.version(game.finland)
    again = resign(game, game.export(game.soviet), "soviet", game.soviet,
                   lambda d: d["turn"].update(answer=old))
    before = game.version(game.finland)
    with pytest.raises(IntegrityError, match=r"replayed: the file's head #.* is your head"):
        import_turn(game.finland, again)
    assert game.version(game.finland) == before


def resign(game: Game, path: Path, seat: str, session: Session,
           change: Callable[[dict[str, Any]], Any]) -> Path:
    """``path`` edited, its chain and header re-sealed and re-signed by ``seat``'s own key."""
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    prev = GENESIS_HASH
    for e in data["events"]:
        e["prev_hash"] = prev
        e["hash"] = prev = event_hash(e["campaign_id"], e["seq"], e["type"], e["payload"],
                                      e["recorded_at"], prev)
    data["head"] = {"seq": data["events"][-1]["seq"], "hash": prev}
    data["header_hash"] = header_hash(ExportedCampaignHeader(**data["campaign"]),
                                      ExportedHead(**data["head"]), 3, TurnHeader(**data["turn"]))
    key, _ = game.key(session, seat)
    data["signatures"] = [key.sign(data["header_hash"], None).model_dump()]
    out = path.with_name(f"forged-{path.name}")
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def _answer(data: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = data["turn"]["answer"]
    return found


@pytest.mark.parametrize(("forge", "message"), [
    ("a wrong link", "is not on the chain"),
    ("the link of another round", "is not on the chain"),
    ("an answer for another round", "answers no sealed request of yours"),
    ("an answer to another commitment", "your sealed request is round 1"),
])
def test_a_forged_answer_is_refused_and_nothing_written(tmp_path: Path, forge: str,
                                                        message: str) -> None:
    game = start(tmp_path)
    back = asked(game)
    _, seed = game.key(game.soviet, "soviet")
    changes: dict[str, Callable[[dict[str, Any]], Any]] = {
        "a wrong link": lambda d: _answer(d).update(link=os.urandom(32).hex()),
        "the link of another round": lambda d: _answer(d).update(
            link=chain_link(seed, 2).hex()),
        "an answer for another round": lambda d: _answer(d).update(
            round=2, link=chain_link(seed, 2).hex()),
        "an answer to another commitment": lambda d: _answer(d).update(
            commitment=hashlib.sha256(b"another").hexdigest()),
    }
    forged = resign(game, back, "soviet", game.soviet, changes[forge])
    before = game.version(game.finland)
    with pytest.raises(IntegrityError, match=message):
        import_turn(game.finland, forged)
    assert game.version(game.finland) == before
    assert import_turn(game.finland, back).resolved is not None  # the honest one still works


def test_a_kept_command_edited_after_the_answer_is_refused_by_its_commitment(
    tmp_path: Path,
) -> None:
    game = start(tmp_path)
    back = asked(game)
    with game.finland._store(write=True) as store:
        ((round_, seat, text),) = store.dice_requests(game.campaign)
        kept = parse_request(text)
        assert isinstance(kept, SealedRequest) and kept.whole
        edited = kept.model_copy(update={"command": CHECK | {"columns": {"x": 1}}})
        store.drop_dice_request(game.campaign, round_)
        store.put_dice_request(game.campaign, round_, seat, edited.model_dump_json())
    with pytest.raises(IntegrityError, match="no longer opens its commitment"):
        import_turn(game.finland, back)


def _cheat(game: Game, command: dict[str, Any] | None) -> None:
    """Finland, having seen the answer, drops its kept request and decides something else:
    ``command`` re-sealed with a fresh nonce on the answered round, or (``None``) a turn."""
    back = asked(game)
    data = json.loads(back.read_text(encoding="utf-8"))
    theirs = PairAnswer.model_validate(data["turn"]["answer"])
    with game.finland._store(write=True) as store:
        ((round_, _, text),) = store.dice_requests(game.campaign)
        kept = parse_request(text)
        store.drop_dice_request(game.campaign, round_)
    assert isinstance(kept, SealedRequest) and kept.link is not None
    if command is None:
        execute(game.finland, game.campaign, TURN)
        return
    links = {"finland": kept.link, "soviet": theirs.link}
    version = game.version(game.finland)
    game.finland.execute(game.campaign, {**command, "expected_version": version},
                         roller=lambda _: sealed_roller(links, 1, kept.position, command,
                                                        os.urandom(16), "finland"))


@pytest.mark.parametrize("command", [CHECK, None], ids=["re-sealed", "played on"])
def test_a_requester_who_changes_course_after_the_answer_is_refused(
    tmp_path: Path, command: dict[str, Any] | None,
) -> None:
    game = start(tmp_path)
    _cheat(game, command)
    before = game.version(game.soviet)
    with pytest.raises(IntegrityError, match="does not resolve sealed dice round 1"):
        game.send(game.finland, game.soviet)
    assert game.version(game.soviet) == before


def test_a_forged_nonce_fails_the_audit(tmp_path: Path) -> None:
    game = start(tmp_path)
    import_turn(game.finland, asked(game))
    final = game.export(game.finland)

    def forge(data: dict[str, Any]) -> None:
        data["events"][-1]["payload"]["dice_proof"]["nonce"] = os.urandom(16).hex()

    forged = resign(game, final, "finland", game.finland, forge)
    failed = [e for e in verify_file(forged).dice.events if e.verdict == "failed"]
    assert [e.reason for e in failed] == [
        "round 1's command and nonce do not open the commitment its request carried (the "
        "command or the nonce was changed after the request)"]
    with pytest.raises(IntegrityError, match="do not open the commitment"):
        import_turn(game.soviet, forged)


def test_a_sealed_round_with_the_answerer_on_postgresql(tmp_path: Path) -> None:
    # The Soviets keep their campaign on a PostgreSQL server: the answer (dice_answers,
    # migration 0007) is kept, sent, and forgotten once the round is resolved, as on SQLite.
    from pg_kit import fresh_database

    for url in fresh_database():
        finland, soviet = Session(tmp_path / "f.sqlite3"), Session(url)
        cards = [new_seat(finland, "finland"), new_seat(soviet, "soviet")]
        info = create_seated(finland, SCENARIO, cards, name="both")
        (tmp_path / "mail").mkdir()
        game = Game(finland, soviet, tmp_path / "mail", info.id)
        execute(finland, info.id, SHEETS[0])
        for _ in range(3):
            execute(finland, info.id, TURN)
        with pytest.raises(AwaitingDice):
            execute(finland, info.id, CHECK)
        assert import_turn(finland, asked(game)).resolved is not None
        with soviet._store() as store:
            assert len(store.dice_answers(info.id)) == 1
        final, _ = game.send(finland, soviet)
        with soviet._store() as store:
            assert store.dice_answers(info.id) == []
        assert game.finland.log(info.id) == game.soviet.log(info.id)
        assert verify_file(final).dice.ok


def test_sealed_requests_that_cross_in_the_mail_resolve_one_way(tmp_path: Path) -> None:
    game = start(tmp_path)
    # Both sides get a sheet ready to check at the same position: Finland's unsent request is
    # taken back first (the store's row only), the Soviets write theirs, three more turns pass.
    with game.finland._store(write=True) as store:
        store.drop_dice_request(game.campaign, 1)
    game.send(game.finland, game.soviet)
    execute(game.soviet, game.campaign, SHEETS[1])
    game.send(game.soviet, game.finland)
    for _ in range(3):
        execute(game.finland, game.campaign, TURN)
    game.send(game.finland, game.soviet)
    with pytest.raises(AwaitingDice):
        execute(game.finland, game.campaign, CHECK)
    with pytest.raises(AwaitingDice):
        execute(game.soviet, game.campaign, {"kind": "check", "sheet": "S-lair"})
    # Both requests cross in the mail: "finland" sorts first, so the Soviets yield.
    from_finland, from_soviet = game.export(game.finland), game.export(game.soviet)
    crossed = import_turn(game.finland, from_soviet)
    assert crossed.request is None and "yours (round 1) goes first" in (crossed.note or "")
    yielded = import_turn(game.soviet, from_finland)
    assert isinstance(yielded.request, SealedRequest) and "theirs goes first" in (
        yielded.note or "")
    assert isinstance(answer(game.soviet, game.campaign), PairAnswer)
    _, done = game.send(game.soviet, game.finland)
    assert done.resolved is not None and "F-hideout" in done.resolved.summary
    game.send(game.finland, game.soviet)
    with pytest.raises(AwaitingDice, match="round 2"):  # the Soviets ask again
        execute(game.soviet, game.campaign, {"kind": "check", "sheet": "S-lair"})


def test_sealed_rounds_by_filtered_mail_both_ways_then_the_reveal(tmp_path: Path) -> None:
    # Turn files filtered for their reader: neither side ever sees the other's sheet, command,
    # nonce or faces; rounds number alike in both partial logs; the reveal verifies every roll.
    from rallypoint.dice.report import Verdict
    from rallypoint.session.reveal import reveal
    from seats_kit import SECRET_OF, scrub

    game = start(tmp_path)
    mail = tmp_path / "mail.json"

    def send(sender: Session, reader: Session, seat: str) -> Imported:
        export_turn(sender, game.campaign, mail, for_seat=seat)
        theirs = "soviet" if seat == "finland" else "finland"
        turn = scrub(json.dumps(json.loads(mail.read_text(encoding="utf-8"))["turn"]))
        assert not any(s in turn for s in SECRET_OF[theirs])  # requests, answers: no secret
        return import_turn(reader, mail)

    assert isinstance(send(game.finland, game.soviet, "soviet").request, SealedRequest)
    # Before the check is decided nothing of Finland's sheet is in the file (an implemented
    # sheet's counters reach the table later, as across a real table).
    assert not any(s in scrub(mail.read_text(encoding="utf-8")) for s in SECRET_OF["finland"])
    answer(game.soviet, game.campaign)
    assert send(game.soviet, game.finland, "finland").resolved is not None
    got = send(game.finland, game.soviet, "soviet")
    seen = next(e for e in reversed(game.soviet.load(game.campaign, whole=True).events)
                if e.type == "implementation_checked").payload["dice_proof"]
    assert (seen["round"], seen["seat"]) == (1, "finland")
    assert "tape" not in seen and "nonce" not in seen
    assert got.new_events == 1

    execute(game.soviet, game.campaign, SHEETS[1])
    for _ in range(3):
        execute(game.soviet, game.campaign, TURN)
    with pytest.raises(AwaitingDice, match="round 2"):  # round 1 counted from a withheld proof
        execute(game.soviet, game.campaign, {"kind": "check", "sheet": "S-lair"})
    assert send(game.soviet, game.finland, "finland").request is not None
    answer(game.finland, game.campaign)
    done = send(game.finland, game.soviet, "soviet").resolved
    assert done is not None and "S-lair" in done.summary
    if send(game.soviet, game.finland, "finland").owed:  # F-hideout, if it missed, accrues
        send(game.finland, game.soviet, "soviet")  # the reveal needs one head

    whole = tmp_path / "soviet-whole.json"
    export_turn(game.soviet, game.campaign, whole)
    revealed = reveal(game.finland, whole, tmp_path / "merged.json")
    assert revealed.dice.ok and revealed.dice.events[Verdict.VERIFIED] == 2  # the sealed two
    checked = verify_file(tmp_path / "merged.json").dice
    assert checked.ok and checked.tally() == revealed.dice
