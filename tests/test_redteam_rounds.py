"""Red team, dice rounds by mail (issue 18): a player who would veto a roll, freeze the other's
campaign, or stall away a roll it has seen; and hidden sheets fired upon by mail.

Squares by mail, two SQLite databases (French a.sqlite3, Allied b.sqlite3). Each attack is
played as a suspicious opponent would, around the session where it can (copies and backups of
its own database). The oracle of "nobody sees a face" is the bytes of the database: the
requester's link of the round, without which no face can be computed, is not in them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import IllegalNowError, IntegrityError, RallypointError
from rallypoint.core.visibility import Viewer, redact_events
from rallypoint.dice.sealed import PairAnswer
from rallypoint.dice.v1 import chain_link
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.session import Session
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.pbem import answer, import_turn, verify_file
from rallypoint.session.stall import RoundKind, rounds_of, stall
from rallypoint.store.signing import SeatKey
from tcs_partial_kit import SIDES
from test_pbem import (
    MARK,
    RALLY,
    Game,
    chain_seed,
    command,
    event_card,
    proof_of,
    rehash,
    start_game,
)
from test_pbem import (
    SCENARIO as SCENARIO_SQUARES,
)
from test_tcs_partial_owed import SHEET_F, SHEET_S, TURN, Split, whole


def asked(game: Game) -> Path:
    """Allied asks for a rally; its request reaches French. Returns French's database path
    from before the import (a backup a cheater could restore)."""
    with pytest.raises(AwaitingDice):
        command(game.allied, game.campaign, RALLY)
    backup = game.mail.parent / "a-before-request.sqlite3"
    shutil.copy(game.mail.parent / "a.sqlite3", backup)
    game.allied_to_french()
    return backup


def kinds(session: Session, game: Game) -> list[tuple[RoundKind, int]]:
    return [(r.kind, r.round) for r in rounds_of(session, game.campaign)]


def test_the_answerer_sees_no_dice_on_a_copy_and_cannot_play_on(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    command(game.french, game.campaign, MARK)  # something French could undo
    game.french_to_allied()
    backup = asked(game)
    # 1. A dry run of the answer on a copy of French's database shows no dice: the answer is
    # French's link only, nothing is decided, and the copy does not even hold Allied's link.
    copy = Session(tmp_path / "a-copy.sqlite3")
    shutil.copy(tmp_path / "a.sqlite3", tmp_path / "a-copy.sqlite3")
    made = answer(copy, game.campaign)
    assert isinstance(made, PairAnswer)
    assert copy.load(game.campaign).version == 2
    allied_link = chain_link(chain_seed(game.allied, game, "allied"), 1).hex()
    assert allied_link not in (tmp_path / "a-copy.sqlite3").read_bytes().hex() + \
        (tmp_path / "a-copy.sqlite3").read_bytes().decode("latin-1")
    # 2. French's real database refuses to play on past the request.
    with pytest.raises(IllegalNowError, match="waits for your answer"):
        command(game.french, game.campaign, MARK)
    with pytest.raises(IllegalNowError, match="waits for your answer"):
        game.french.undo(game.campaign)
    # 3. French restores its backup from before the request and plays on from it: Allied's
    # import refuses the file, and writes nothing.
    restored = Session(backup)
    command(restored, game.campaign, MARK)
    path = game.send(restored, "allied")
    before = game.allied.log(game.campaign)
    with pytest.raises(IntegrityError, match="moves the log past your dice request"):
        import_turn(game.allied, path)
    assert game.allied.log(game.campaign) == before
    assert kinds(game.allied, game) == [(RoundKind.ASKED, 1)]


def test_a_silent_answerer_is_left_with_a_withdrawal(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    asked(game)  # ... and French never answers
    assert kinds(game.allied, game) == [(RoundKind.ASKED, 1)]
    assert kinds(game.french, game) == [(RoundKind.TO_ANSWER, 1)]
    with pytest.raises(IllegalNowError, match="waits for the other seat's answer"):
        command(game.allied, game.campaign, MARK)
    # The asked side cannot "stall" its way out: it must answer.
    with pytest.raises(IllegalNowError, match="waits for you"):
        stall(game.french, game.campaign)
    done = stall(game.allied, game.campaign)
    assert (done.kind, done.round, done.forfeited_by) == (RoundKind.WITHDRAWN, 1, "french")
    assert kinds(game.allied, game) == [(RoundKind.WITHDRAWN, 1)]
    command(game.allied, game.campaign, MARK)  # plays on
    assert import_turn(game.french, game.send(game.allied, "french")).new_events == 1
    assert kinds(game.french, game) == []  # French is free again: the request is gone
    command(game.french, game.campaign, MARK | {"ruling": "auto"})


def test_an_answer_that_crosses_a_withdrawal_still_resolves_it(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    asked(game)
    stall(game.allied, game.campaign)  # Allied gives up waiting ...
    answer(game.french, game.campaign)  # ... just as French answers
    done = import_turn(game.allied, game.send(game.french, "allied"))
    assert done.resolved is not None and "rallies 28th" in done.resolved.summary
    assert kinds(game.allied, game) == []


def test_a_silent_requester_is_left_with_a_void_that_burns_its_round(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    asked(game)
    answer(game.french, game.campaign)  # ... and Allied never resolves it
    assert kinds(game.french, game) == [(RoundKind.ANSWERED, 1)]
    with pytest.raises(IllegalNowError, match="you answered"):
        command(game.french, game.campaign, MARK)
    done = stall(game.french, game.campaign)
    assert (done.kind, done.round, done.forfeited_by) == (RoundKind.VOID, 1, "allied")
    command(game.french, game.campaign, MARK)  # French plays on
    path = game.send(game.french, "allied")
    got = import_turn(game.allied, path)
    assert got.new_events == 1 and "forfeited" in (got.note or "")
    assert kinds(game.allied, game) == [(RoundKind.VOID, 1)]
    # Round 1 is burnt in both databases: French's link of it is public.
    with pytest.raises(AwaitingDice, match="dice round 2"):
        command(game.allied, game.campaign, RALLY)
    game.allied_to_french()
    answer(game.french, game.campaign)
    assert import_turn(game.allied, game.send(game.french, "allied")).resolved is not None
    last = game.allied_to_french()
    assert proof_of(game.french.load(game.campaign, whole=True).events[-1]).round == 2
    assert verify_file(last).dice.summary() == "dice-v1: 1 verified, 0 failed (dice)"


def test_the_requester_cannot_stall_away_an_answer_it_has_seen(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    asked(game)
    answer(game.french, game.campaign)
    answered = game.send(game.french, "allied")
    # Allied imports the answer on a copy: its command is decided there, it sees the dice.
    shutil.copy(tmp_path / "b.sqlite3", tmp_path / "b-copy.sqlite3")
    assert import_turn(Session(tmp_path / "b-copy.sqlite3"), answered).resolved is not None
    # Not liking them, it withdraws on its real database and plays on, or asks again.
    stall(game.allied, game.campaign)
    with pytest.raises(AwaitingDice):
        command(game.allied, game.campaign, RALLY | {"unit": "79th"})
    again = game.send(game.allied, "french")
    before = game.french.log(game.campaign)
    with pytest.raises(IntegrityError, match="which you answered for another command"):
        import_turn(game.french, again)
    stall(game.allied, game.campaign)
    command(game.allied, game.campaign, MARK)
    moved = game.send(game.allied, "french")
    with pytest.raises(IntegrityError, match="does not resolve sealed dice round 1"):
        import_turn(game.french, moved)
    assert game.french.log(game.campaign) == before
    # Having played on, it cannot take the answer back in either; French voids the round.
    with pytest.raises(IntegrityError, match="replayed"):
        import_turn(game.allied, answered)
    stall(game.french, game.campaign)
    assert import_turn(game.french, moved).new_events == 1
    assert import_turn(game.allied, game.send(game.french, "allied")).note is not None
    # The round Allied saw is burnt: its next roll is round 2, with a link nobody has seen.
    with pytest.raises(AwaitingDice, match="dice round 2"):
        command(game.allied, game.campaign, RALLY)


def test_a_void_of_another_round_is_refused(tmp_path: Path) -> None:
    game = start_game(tmp_path)
    asked(game)
    answer(game.french, game.campaign)
    stall(game.french, game.campaign)
    command(game.french, game.campaign, MARK)
    path = game.send(game.french, "allied")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["turn"]["voids"][0]["round"] = 5  # re-signed by French itself
    with game.french._store() as store:
        kept = store.seat_key(event_card(game, "french")["key"])
    assert kept is not None
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rehash(data, SeatKey("french", bytes.fromhex(kept.private)))),
                   encoding="utf-8")
    with pytest.raises(IntegrityError, match="voids round 5, but the round open here is 1"):
        import_turn(game.allied, bad)


# --- "Fired" for a hidden sheet by mail (seed 000 / TCS 4.01: 'fired, or were fired upon, in
# any way: 1', the lowest rate applying). The database that advances the turn cannot name the
# other side's hidden sheet; its owner marks it (`tcs fired`), during the turn or, once the
# owed accrual is made, as a correction of it.

FIRE_F = {"kind": "fired", "sheets": ["F"]}
TURN_NAMING_F = {**TURN, "fired": ["F"]}
TURN_NAMING_BOTH = {**TURN, "fired": ["F", "S"]}


def _weighted(log: Campaign) -> dict[str, int]:
    return {k: s.weighted_turns for k, s in tcs_state(log).sheets.items()}


@pytest.mark.parametrize(("one_database", "by_mail", "expected"), [
    # The Soviets advance turn 1 → 2 in their database, Finland's F fired during turn 1:
    # marked afterwards, it corrects Finland's owed accrual of turn 2 (3 → 1).
    ([("soviet", TURN_NAMING_F, ())],
     [("soviet", TURN, ()), ("finland", FIRE_F | {"turn": 1}, ())], {"F": 1, "S": 3}),
    # Marked during the turn, before the other database advances it: the owed accrual reads it.
    ([("soviet", TURN_NAMING_F, ())],
     [("finland", FIRE_F, ()), ("soviet", TURN, ())], {"F": 1, "S": 3}),
    # Both sides fired during turn 2: each side marks its own sheet.
    ([("finland", TURN, ()), ("soviet", TURN_NAMING_BOTH, ())],
     [("finland", TURN, ()), ("finland", FIRE_F, ()), ("soviet", TURN, ()),
      ("soviet", {"kind": "fired", "sheets": ["S"], "turn": 2}, ())], {"F": 3 + 1, "S": 3 + 1}),
])
def test_fired_by_mail_accrues_as_in_one_database(
        one_database: list[tuple[str, dict[str, Any], tuple[int, ...]]],
        by_mail: list[tuple[str, dict[str, Any], tuple[int, ...]]],
        expected: dict[str, int]) -> None:
    opening = [("finland", SHEET_F, ()), ("soviet", SHEET_S, ())]
    reference = whole([*opening, *one_database])
    played = Split()
    for side, body, faces in [*opening, *by_mail]:
        played.act(side, body, faces)
    for side in SIDES:
        played.accrue(side)
    assert _weighted(played.log) == _weighted(reference)
    # The oracle, from the core table alone (tcs-core-facts.md): unassigned 3, fired 1.
    assert _weighted(reference) == expected
    # Without the mark, by mail accrues F at 3: the gap the mark closes.
    unmarked = Split()
    for side, body, faces in [*opening, *by_mail]:
        if body.get("kind") != "fired":
            unmarked.act(side, body, faces)
    for side in SIDES:
        unmarked.accrue(side)
    assert _weighted(unmarked.log)["F"] == _weighted(reference)["F"] + 2


def test_a_fired_mark_is_the_owners_secret_and_cannot_rewrite_a_checked_accrual() -> None:
    played = Split()
    opening: list[tuple[str, dict[str, Any], tuple[int, ...]]] = [
        ("finland", SHEET_F, ()), ("soviet", SHEET_S, ()), ("soviet", TURN, ()),
        ("finland", FIRE_F | {"turn": 1}, ())]
    for side, body, faces in opening:
        played.act(side, body, faces)
    mark = next(r for r in played.log.events if r.type == "fired")
    shown = next(r for r in redact_events(played.log.events, Viewer.of_side("soviet"))
                 if r.seq == mark.seq)
    assert "F" not in json.dumps({k: v for k, v in shown.payload.items() if k != "$redacted"})
    # The other side cannot name F, and the mark cannot reach back past the latest accrual
    # nor change weighted turns a check has read.
    with pytest.raises(RallypointError, match="no Recovery Op Sheet 'F'"):
        played.act("soviet", FIRE_F | {"turn": 1})
    for side, body, faces in [("soviet", TURN, ()), ("soviet", TURN, ())]:
        played.act(side, body, faces)
    with pytest.raises(IllegalNowError, match="only its latest"):
        played.act("finland", FIRE_F | {"turn": 1})
    played.act("finland", {"kind": "check", "sheet": "F"}, (1, 1))
    with pytest.raises(IllegalNowError, match="was checked"):
        played.act("finland", FIRE_F | {"turn": 3})


def test_fired_by_mail_between_two_databases_equals_one_database(tmp_path: Path) -> None:
    # Through the session and real turn files (hidden sheets): the Soviets' S-lair fired during
    # turns 1 and 2, while Finland's database advanced both turns.
    from seats_kit import SCENARIO as TWO_SIDES
    from seats_kit import SHEETS
    from seats_kit import execute as run
    from test_pbem_hidden import Game as Mail
    from test_pbem_hidden import start

    one = Session(tmp_path / "one.sqlite3")
    ref = one.create(TWO_SIDES, name="one").id
    for body in [*SHEETS, {**TURN, "fired": ["S-lair"]}, {**TURN, "fired": ["S-lair"]}]:
        run(one, ref, body)
    (tmp_path / "mail-game").mkdir()
    game: Mail = start(tmp_path / "mail-game", "mail")
    run(game.dbs["finland"], game.campaign, SHEETS[0])
    game.send("finland")
    run(game.dbs["soviet"], game.campaign, SHEETS[1])
    run(game.dbs["soviet"], game.campaign, {"kind": "fired", "sheets": ["S-lair"]})  # turn 1
    game.send("soviet")
    run(game.dbs["finland"], game.campaign, TURN)  # turn 2: S-lair accrues owed, read the mark
    run(game.dbs["finland"], game.campaign, TURN)  # turn 3
    assert game.send("finland").owed == 1  # Soviet database: owed accruals for turns 2 and 3
    soviet = game.dbs["soviet"]
    run(soviet, game.campaign, {"kind": "fired", "sheets": ["S-lair"], "turn": 2})  # correction
    lair = tcs_state(soviet.load(game.campaign)).sheets["S-lair"]
    assert lair.weighted_turns == tcs_state(one.load(ref)).sheets["S-lair"].weighted_turns == 1 + 1
    game.send("soviet")  # Finland's database holds the mark redacted: no S-lair in it
    assert "S-lair" not in game.whole_text("finland")


def test_a_void_on_postgresql_burns_the_round_in_both_databases(tmp_path: Path) -> None:
    # French keeps its campaign on PostgreSQL, Allied in SQLite: the hold, the void and the
    # burnt round through both stores.
    from pg_kit import fresh_database
    from rallypoint.session.pbem import create_seated, new_seat

    for url in fresh_database():
        french, allied = Session(url), Session(tmp_path / "b.sqlite3")
        cards = [new_seat(french, "french"), new_seat(allied, "allied")]
        info = create_seated(french, SCENARIO_SQUARES, cards, name="farm")
        (tmp_path / "mail").mkdir()
        game = Game(french, allied, tmp_path / "mail", info.id)
        game.french_to_allied()
        with pytest.raises(AwaitingDice):
            command(game.allied, game.campaign, RALLY)
        game.allied_to_french()
        with pytest.raises(IllegalNowError, match="waits for your answer"):
            command(game.french, game.campaign, MARK)
        answer(game.french, game.campaign)
        assert stall(game.french, game.campaign).kind is RoundKind.VOID
        assert kinds(game.french, game) == [(RoundKind.VOID, 1)]
        command(game.french, game.campaign, MARK)
        got = import_turn(game.allied, game.send(game.french, "allied"))
        assert got.new_events == 1 and "forfeited" in (got.note or "")
        with pytest.raises(AwaitingDice, match="dice round 2"):
            command(game.allied, game.campaign, RALLY)


def test_show_and_dice_stall_through_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rallypoint.cli.main import app

    game = start_game(tmp_path)
    asked(game)

    def rp(db: str, *args: str) -> str:
        result = CliRunner().invoke(app, ["--db", str(tmp_path / db), *args])
        assert result.exit_code == 0, result.output
        return result.output

    assert ("dice round 1: your request waits for french's answer; if they have stopped: "
            "`rallypoint dice stall`") in " ".join(rp("b.sqlite3", "show").split())
    shown = json.loads(rp("a.sqlite3", "show", "--json"))["dice_rounds"]
    assert shown == [{"kind": "to_answer", "round": 1, "position": 1, "requester": "allied",
                      "waiting_for": "french", "forfeited_by": None}]
    out = json.loads(rp("b.sqlite3", "dice", "stall", "--json"))
    assert out == {"kind": "withdrawn", "round": 1, "position": 1, "forfeited_by": "french"}
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "a.sqlite3"), "dice", "stall"])
    assert result.exit_code == 2 and "waits for you" in result.output
    assert "\n" not in result.output.strip()


def test_a_void_that_crosses_the_resolution_is_moot(tmp_path: Path) -> None:
    # French voids just as Allied's resolution is in the mail, and imports it before playing
    # on: the round was used, so the void is moot in both databases and the rounds go on.
    game = start_game(tmp_path)
    asked(game)
    answer(game.french, game.campaign)
    assert import_turn(game.allied, game.send(game.french, "allied")).resolved is not None
    resolved = game.send(game.allied, "french")
    stall(game.french, game.campaign)
    assert import_turn(game.french, resolved).new_events == 1
    assert kinds(game.french, game) == []
    command(game.french, game.campaign, MARK)
    assert import_turn(game.allied, game.send(game.french, "allied")).new_events == 1
    with pytest.raises(AwaitingDice, match="dice round 2"):
        command(game.allied, game.campaign, RALLY | {"leader": "wellington", "unit": "79th"})
    game.allied_to_french()
    answer(game.french, game.campaign)
    assert import_turn(game.allied, game.send(game.french, "allied")).resolved is not None
    assert verify_file(game.allied_to_french()).dice.summary() == (
        "dice-v1: 2 verified, 0 failed (dice)")
