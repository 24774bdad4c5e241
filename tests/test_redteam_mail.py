"""Red team by mail (issue 18): a sender who edits its own events and re-signs them with its own
seat key, or acts for the other side's units, is refused by ``import``, ``verify FILE`` and the
reveal, in one line naming the event and what differs; a refused import leaves the database
byte-identical (SQLite: the file's bytes; PostgreSQL: every row).

The oracle is the seed's own numbers and the scenario file (a counter's steps, its pile), not
the re-derivation: each forgery below is what a player would want to get away with, built by
plain JSON edits and re-sealed with the published hash formula (``redteam_kit``).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from rallypoint.core.errors import IntegrityError, RallypointError
from rallypoint.core.visibility import NotYourSeatError
from rallypoint.session import Session, ownership
from rallypoint.session.pbem import export_turn, import_turn, verify_file
from redteam_kit import (
    Mail,
    copied,
    database_bytes,
    event_of,
    forge,
    pg_rows,
    seat_key,
    seated,
)
from seats_kit import SCENARIO

SQUARES = Path("src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml")

FINNISH, DEAD_FINNISH, SOVIET = "1/ErP112-1", "1/ErP112-d", "1/609-1"
"""From tests/data/tcs_two_sides.toml: a Finnish counter of 3 steps on the map at 23.15, a
5-step Finnish counter in the Dead Pile, a Soviet counter of 4 steps on the map."""


@pytest.fixture(scope="module")
def tcs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Mail, Path]:
    """Finland records a 2-step loss on its counter (3 → 1 step), a morale change and a move,
    and writes its turn file for the Soviets (not imported: each test imports a copy)."""
    game = seated(tmp_path_factory.mktemp("tcs"), SCENARIO, ("finland", "soviet"), "tolvajarvi")
    game.command("finland", {"kind": "loss", "counter": FINNISH, "steps": 2})
    game.command("finland", {"kind": "morale", "formation": "ErP112", "value": 2})
    game.command("finland", {"kind": "move", "counter": FINNISH, "hex": "22.14"})
    return game, game.export("finland")


def _loss(data: dict[str, Any]) -> dict[str, Any]:
    return event_of(data, 2)


def _nine_steps(data: dict[str, Any]) -> None:
    _loss(data)["counters"][FINNISH]["steps"] = 9


def _minus_three(data: dict[str, Any]) -> None:
    _loss(data)["counters"][FINNISH]["steps"] = -3


def _dead_back(data: dict[str, Any]) -> None:
    _loss(data)["counters"][DEAD_FINNISH] = {"hex": "23.15", "pile": "map", "steps": 5}


def _soviet_killed(data: dict[str, Any]) -> None:
    _loss(data)["counters"][SOVIET] = {"hex": None, "pile": "dead", "steps": 0}


def _morale(data: dict[str, Any]) -> None:
    event_of(data, 3)["value"] = 0


FORGERIES = {
    "9 steps on a counter that had 3": (_nine_steps, "counters.1/ErP112-1.steps: stated 9, "
                                                     "re-derived 1"),
    "-3 steps": (_minus_three, None),
    "a Dead counter back at 5/5 on the map": (_dead_back, "counters.1/ErP112-d: stated "
                                                          '{"hex":"23.15","pile":"map","steps":5}'
                                                          ", re-derived (absent)"),
    "a Soviet counter killed by a Finnish loss": (_soviet_killed, "counters.1/609-1: stated"),
    "a morale change to another value": (_morale, "value: stated 0, re-derived 2"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_an_own_key_forgery_is_refused_by_import_and_verify_and_nothing_is_written(
    name: str, tcs: tuple[Mail, Path], tmp_path: Path,
) -> None:
    game, honest = tcs
    edit, said = FORGERIES[name]
    key = seat_key(game.dbs["finland"], game.campaign, "finland")
    forged = forge(honest, tmp_path / "forged.json", edit, key)
    soviet = copied(game.dbs["soviet"], tmp_path / "soviet.sqlite3")
    before = database_bytes(soviet)
    with pytest.raises(IntegrityError) as refused:
        import_turn(soviet, forged)
    assert database_bytes(soviet) == before
    assert "\n" not in refused.value.message
    if said is not None:  # -3 steps does not even read as a counter: refused by the fold
        assert refused.value.what.startswith(f"#{2 if name != _MORALE else 3} (")
        assert said in refused.value.what, refused.value.what
    with pytest.raises(IntegrityError):
        verify_file(forged)
    # The honest file goes in (the refusal was the forgery's, not the database's).
    assert import_turn(soviet, honest).new_events == 3


_MORALE = "a morale change to another value"


def test_the_refusal_names_the_event_and_the_first_differing_field(
    tcs: tuple[Mail, Path], tmp_path: Path,
) -> None:
    game, honest = tcs
    key = seat_key(game.dbs["finland"], game.campaign, "finland")
    forged = forge(honest, tmp_path / "forged.json", _nine_steps, key)
    soviet = copied(game.dbs["soviet"], tmp_path / "soviet.sqlite3")
    with pytest.raises(IntegrityError) as refused:
        import_turn(soviet, forged)
    assert refused.value.what == ("#2 (loss) is not what its command decides: "
                                  "counters.1/ErP112-1.steps: stated 9, re-derived 1")
    assert refused.value.where == "seq 2"


def test_a_forged_command_is_refused_too(tcs: tuple[Mail, Path], tmp_path: Path) -> None:
    """The command itself edited (a 1-step loss recorded over the 2-step outcome)."""
    game, honest = tcs
    key = seat_key(game.dbs["finland"], game.campaign, "finland")

    def one_step(data: dict[str, Any]) -> None:
        _loss(data)["made_by"]["command"]["steps"] = 1

    forged = forge(honest, tmp_path / "forged.json", one_step, key)
    with pytest.raises(IntegrityError, match=r"#2 \(loss\) is not what its command decides"):
        import_turn(copied(game.dbs["soviet"], tmp_path / "s.sqlite3"), forged)


def test_a_stripped_command_is_refused(tcs: tuple[Mail, Path], tmp_path: Path) -> None:
    """Dropping the command would only hide the event from re-derivation."""
    game, honest = tcs
    key = seat_key(game.dbs["finland"], game.campaign, "finland")

    def strip(data: dict[str, Any]) -> None:
        del _loss(data)["made_by"]
        _nine_steps(data)

    forged = forge(honest, tmp_path / "forged.json", strip, key)
    with pytest.raises(IntegrityError, match=r"#2 \(loss\) carries no command"):
        import_turn(copied(game.dbs["soviet"], tmp_path / "s.sqlite3"), forged)
    with pytest.raises(IntegrityError, match=r"#2 \(loss\) carries no command"):
        verify_file(forged)


@pytest.mark.parametrize("seat", ["soviet", "umpire"], ids=["the reader", "no seat"])
def test_an_event_said_to_be_decided_by_another_database_than_the_senders_is_refused(
    tcs: tuple[Mail, Path], tmp_path: Path, seat: str,
) -> None:
    # The reader's seat, or a name that is no seat at all: either way not the signer's.
    game, honest = tcs
    key = seat_key(game.dbs["finland"], game.campaign, "finland")

    def blame(data: dict[str, Any]) -> None:
        _loss(data)["made_by"]["seat"] = seat

    forged = forge(honest, tmp_path / "forged.json", blame, key)
    with pytest.raises(IntegrityError, match=f"says it was decided by {seat}'s database, but "
                                             "finland sent it"):
        import_turn(copied(game.dbs["soviet"], tmp_path / "s.sqlite3"), forged)


def test_a_command_no_side_owns_said_to_be_decided_by_no_seat_is_refused(
    tmp_path: Path,
) -> None:
    """A sight ruling belongs to no side, so no owner check stands in the way: only the file's
    sender may have decided it (a turn file that hides nothing, checked in one streaming pass,
    ``TurnWalk.finish``; and whole, ``rederive._check_sender``)."""
    game = seated(tmp_path, SQUARES, ("french", "allied"), "farm")
    game.command("french", {"kind": "sight", "a": "B1", "b": "C2", "ruling": "blocked"})
    honest = game.export("french")
    key = seat_key(game.dbs["french"], game.campaign, "french")

    def blame(data: dict[str, Any]) -> None:
        assert not withheld_in(data)  # the streaming pass reads it
        event_of(data, 2)["made_by"]["seat"] = "umpire"

    forged = forge(honest, tmp_path / "forged.json", blame, key)
    allied = game.dbs["allied"]
    before = database_bytes(allied)
    with pytest.raises(IntegrityError, match="says it was decided by umpire's database, but "
                                             "french sent it"):
        import_turn(allied, forged)
    assert database_bytes(allied) == before
    assert import_turn(allied, honest).new_events == 1


def withheld_in(data: dict[str, Any]) -> bool:
    """Whether a file shows any event redacted (a hidden file is checked whole at once)."""
    return any({"$withheld", "$redacted"} & set(e["payload"]) for e in data["events"])


# --- acting for the other side ---------------------------------------------------------------

OTHER_SIDE: dict[str, dict[str, Any]] = {
    "loss": {"kind": "loss", "counter": SOVIET, "steps": 1},
    "morale": {"kind": "morale", "formation": "609RR", "value": 3},
    "move": {"kind": "move", "counter": SOVIET, "hex": "30.10"},
}


@pytest.mark.parametrize("kind", list(OTHER_SIDE))
def test_the_session_refuses_a_command_for_the_other_sides_units(
    kind: str, tmp_path: Path,
) -> None:
    game = seated(tmp_path, SCENARIO, ("finland", "soviet"), "t")
    before = database_bytes(game.dbs["finland"])
    with pytest.raises(NotYourSeatError, match=f"this {kind!r} is not yours to make as side "
                                               "finland"):
        game.command("finland", OTHER_SIDE[kind])
    assert database_bytes(game.dbs["finland"]) == before
    # The Soviets may; a turn belongs to no side, so Finland may advance it.
    game.command("soviet", OTHER_SIDE[kind])
    game.command("finland", {"kind": "turn", "skip_fo": True})


@pytest.fixture
def cheating_client(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Finland's rallypoint with the session's ownership check cut out (a modified client)."""
    monkeypatch.setattr(ownership, "check_owner", lambda *args, **kwargs: None)
    yield


@pytest.mark.parametrize("kind", list(OTHER_SIDE))
def test_a_file_acting_for_the_other_side_is_refused_by_import_and_verify(
    kind: str, tmp_path: Path, cheating_client: None,
) -> None:
    game = seated(tmp_path, SCENARIO, ("finland", "soviet"), "t")
    game.command("finland", OTHER_SIDE[kind])
    path = game.export("finland")
    before = database_bytes(game.dbs["soviet"])
    said = (rf"#2 \(\w+\) is a {kind!r} command for another side's units, decided by "
            "finland's database")
    with pytest.raises(IntegrityError, match=said):
        import_turn(game.dbs["soviet"], path)
    assert database_bytes(game.dbs["soviet"]) == before
    with pytest.raises(IntegrityError, match=said):
        verify_file(path)


def test_the_cli_refuses_a_command_for_the_other_side(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rallypoint.cli.main import app

    game = seated(tmp_path, SCENARIO, ("finland", "soviet"), "t")
    result = CliRunner().invoke(app, ["--db", str(game.dbs["finland"].path), "tcs", "loss",
                                      SOVIET, "--steps", "1", "--campaign", "t"])
    assert result.exit_code == 2, result.output
    assert "error (not-your-seat): this 'loss' is not yours to make as side finland" in (
        result.output)


# --- one transaction ---------------------------------------------------------------------------


def test_a_refusal_after_the_events_are_stored_writes_nothing(
    tcs: tuple[Mail, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's "refused file writes": a step after ``import_records`` fails (here the
    tidying of dice requests, as a late check would); the events stored before it go too."""
    from rallypoint.session import pbem_checks

    _, honest = tcs
    game = tcs[0]
    soviet = copied(game.dbs["soviet"], tmp_path / "s.sqlite3")
    before = database_bytes(soviet)

    def late(*args: Any, **kwargs: Any) -> None:
        raise IntegrityError("a late check refuses", fix="nothing was written")

    monkeypatch.setattr(pbem_checks, "tidy_requests", late)
    with pytest.raises(IntegrityError, match="a late check refuses"):
        import_turn(soviet, honest)
    assert database_bytes(soviet) == before
    assert soviet.load(game.campaign).version == 1


def test_a_refused_import_leaves_postgresql_rows_unchanged(
    tcs: tuple[Mail, Path], tmp_path: Path,
) -> None:
    from pg_kit import fresh_database

    game, honest = tcs
    databases = cast(Generator[str, None, None], fresh_database())
    url = next(databases)
    try:
        soviet = Session(url)
        # The Soviet seat's key, moved to a PostgreSQL database.
        created = json.loads(honest.read_text("utf-8"))["events"][0]["payload"]
        with game.dbs["soviet"]._store() as mine, soviet._store(write=True) as theirs:
            kept = mine.seat_key(created["seats"]["soviet"]["key"])
            assert kept is not None
            theirs.put_seat_key(kept)
        first = game.mail / "01-finland.json"
        import_turn(soviet, first)
        before = pg_rows(url)
        key = seat_key(game.dbs["finland"], game.campaign, "finland")
        for edit, _ in FORGERIES.values():
            forged = forge(honest, tmp_path / "forged.json", edit, key)
            with pytest.raises(IntegrityError):
                import_turn(soviet, forged)
            assert pg_rows(url) == before
        assert import_turn(soviet, honest).new_events == 3
    finally:
        databases.close()


def test_a_valid_file_still_goes_in_whole(tcs: tuple[Mail, Path], tmp_path: Path) -> None:
    game, honest = tcs
    soviet = copied(game.dbs["soviet"], tmp_path / "s.sqlite3")
    done = import_turn(soviet, honest)
    assert done.new_events == 3
    checked = verify_file(honest)
    assert (checked.rederived, checked.not_rederivable) == (3, 0)


def test_export_of_own_campaign_reimports_without_rederiving_own_log(
    tcs: tuple[Mail, Path], tmp_path: Path,
) -> None:
    """Finland's own database never re-runs its own events: its load folds stored outcomes
    (a forged outcome in one's own store is one's own business, and `verify` shows it)."""
    game, _ = tcs
    out = tmp_path / "backup.json"
    export_turn(game.dbs["finland"], game.campaign, out)
    assert verify_file(out).rederived == 3
    with pytest.raises(RallypointError):
        import_turn(game.dbs["finland"], out)  # its own file, come back: a replay


# --- a withheld event, forged: re-derived at the reveal ----------------------------------------


def test_a_forged_withheld_event_is_refused_at_the_reveal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finland's modified client adds 6 weighted turns to its hidden sheet when a turn is
    advanced. The Soviets cannot see it on import (it is withheld, its hash a commitment); the
    reveal, where the whole log is known, decides it again and refuses."""
    from rallypoint.session import commands
    from rallypoint.session.reveal import reveal
    from seats_kit import SHEETS

    game = seated(tmp_path, SCENARIO, ("finland", "soviet"), "t")
    game.command("finland", SHEETS[0])
    game.send("finland")
    game.command("soviet", SHEETS[1])
    game.send("soviet")
    honest = commands._decide

    def padded(*args: Any, **kwargs: Any) -> Any:
        event = honest(*args, **kwargs)
        for accrual in event.payload.get("accruals") or ():
            accrual["added"] += 6
            accrual["total"] += 6
        return event

    monkeypatch.setattr(commands, "_decide", padded)
    game.command("finland", {"kind": "turn", "skip_fo": True})
    monkeypatch.undo()
    turned = game.send("finland")  # withheld from the Soviets: nothing to see yet
    assert "$withheld" in json.loads(turned.read_text("utf-8"))["events"][-1]["payload"]
    game.send("soviet")  # the Soviet accrual it owed; both logs at one head
    theirs = game.export("finland", whole=True)
    soviet = game.dbs["soviet"]
    before = database_bytes(soviet)
    out = tmp_path / "whole.json"
    with pytest.raises(IntegrityError) as refused:
        reveal(soviet, theirs, out)
    assert refused.value.what == ("#4 (turn_advanced) is not what its command decides: "
                                  "accruals[0].added: stated 9, re-derived 3")
    assert not out.exists() and database_bytes(soviet) == before
    with pytest.raises(IntegrityError, match=r"#4 \(turn_advanced\) is not what its command"):
        verify_file(theirs)
