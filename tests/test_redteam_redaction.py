"""Red team: what a redacted event gives away (issue 18).

Two attacks an opponent could make on the events it is shown redacted, each tried for real:

- **Counting.** Before issue 18 a redacted turn listed the withheld paths (``accruals.0``,
  ``accruals.1``) and put the owner's marker on each, so the opponent read off how many sheets
  the other side had accruing each turn, and when one stopped. Now a redacted event is its
  public projection plus one opaque part per owner the event's *type* can hide something for.
  The oracle is the shape of the JSON (keys, structure, string lengths) of the same turn, owed
  accrual and undo played with 0, 1 and 2 hidden sheets: it must be identical (the payloads
  too), while the whole events do differ (so the test is not vacuous), and the old format is
  shown to have counted them.
- **Guessing.** A hidden value with few possible values (a sheet's name, center and size; a
  seed typed as a word) could be recovered by hashing every guess until one gives the event's
  hash: ``undone`` carried no blind, and 7,735 guesses found a sheet. The attack here is run
  against the real hashes, over a dictionary × center × size space, by mail (what the other
  database stores) and on a shared web server (a side's filtered export): with the blind it
  finds nothing. Its control: the same attack on the same event with the blind taken out
  (re-hashed) finds the secret, so the attack is real and only the blind stops it.
- **Washing.** A reader cannot check a redacted event's hash, so a sender who marks a public
  event redacted (a loss whose counter it brought back) and re-signs its file would be taken on
  trust until the reveal: the import refuses an event no honest redaction makes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.blinds import with_blind
from rallypoint.core.campaign import Campaign
from rallypoint.core.events import MADE_BY, EventRecord, NewEvent, event_hash
from rallypoint.core.visibility import (
    BLIND,
    PUBLIC,
    WITHHELD,
    Viewer,
    event_secrets,
    is_redacted,
    redact_events,
)
from rallypoint.rulesets.tcs.commands import AdvanceTurn, WriteSheet
from rallypoint.rulesets.tcs.events import (
    Accrual,
    Accrued,
    OwedAccrual,
    SheetWritten,
    TurnAdvanced,
)
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.session import Session
from rallypoint.session.pbem import create_seated, export_turn, import_turn, new_seat
from seats_kit import SCENARIO, execute, two_sided
from tcs_partial_kit import TCS, fresh, record

FINLAND = Viewer.of_side("finland")
VIEWERS = {"finland": FINLAND, "public": PUBLIC}


def shape(value: Any) -> Any:
    """The JSON's shape: keys and structure kept, each string by its length, each number,
    boolean or null by its kind (values that only a secret could make differ)."""
    if isinstance(value, Mapping):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [shape(v) for v in value]
    if isinstance(value, str):
        return ("str", len(value))
    return type(value).__name__


# --- counting: 0, 1 and 2 hidden sheets look the same ------------------------------------------

SOVIET_SHEETS = (
    WriteSheet(expected_version=0, sheet="S", members=("1/609",), size=0, attest=True,
               centers={"1/609": "30.10"}),
    WriteSheet(expected_version=0, sheet="S2", members=("T/609",), size=0, attest=True,
               centers={"T/609": "32.12"}, vehicle=True),
)


def _run(c: Campaign, command: Any) -> Campaign:
    return record(c, type(command).model_validate(
        {**command.model_dump(), "expected_version": c.version}), ())


def hidden_game(hidden: int) -> Campaign:
    """Finland writes a sheet, the Soviets ``hidden`` sheets (written before the game, so the
    turns are the same events in every game), then three turns and the undo of the last."""
    c = fresh()
    for sheet in SOVIET_SHEETS[:hidden]:
        c = _run(c, sheet)
    c = _run(c, WriteSheet(expected_version=0, sheet="F", members=("ErP112",), size=0,
                           attest=True, centers={"1/ErP112": "23.15", "2/ErP112": "17.21",
                                                 "MG/ErP112": "8.21"}))
    for _ in range(3):
        c = _run(c, AdvanceTurn(expected_version=0, skip_fo=True))
    undo = with_blind(c.events, c.undo_event(c.version), "b2" * 16)
    return c.record(undo)


def with_owed(c: Campaign) -> list[EventRecord]:
    """The log plus an ``accrued`` event owing each Soviet sheet and Finland's one more turn
    (as a seat's database appends it by mail), sealed with a blind."""
    sheets = [s for s in ("S", "S2", "F") if s in tcs_state(c).sheets]
    event = NewEvent.of(Accrued(turn=4, accruals=tuple(
        OwedAccrual(sheet=s, added=1, reason="no orders", total=4, turn=4) for s in sheets)))
    event = with_blind(c.events, event, "b3" * 16)
    assert BLIND in event.payload
    owed = EventRecord.seal(c.campaign_id, c.version + 1, event, c.events[-1].hash,
                            recorded_at=c.events[-1].recorded_at)
    return [*c.events, owed]


@pytest.fixture(scope="module")
def games() -> dict[int, list[EventRecord]]:
    return {n: with_owed(hidden_game(n)) for n in (0, 1, 2)}


def _kinds(log: Sequence[EventRecord]) -> dict[str, list[EventRecord]]:
    found: dict[str, list[EventRecord]] = {}
    for r in log:
        found.setdefault(r.type, []).append(r)
    return found


@pytest.mark.parametrize("who", sorted(VIEWERS))
@pytest.mark.parametrize("kind", ["turn_advanced", "accrued", "undone"])
def test_turns_accruals_and_undos_look_the_same_with_0_1_or_2_hidden_sheets(
        games: dict[int, list[EventRecord]], kind: str, who: str) -> None:
    viewer = VIEWERS[who]
    whole = {n: _kinds(log)[kind] for n, log in games.items()}
    shown = {n: _kinds(redact_events(log, viewer))[kind] for n, log in games.items()}
    # Not vacuous: the whole events differ with the number of Soviet sheets.
    if kind != "undone":
        counts = {n: [len(r.payload["accruals"]) for r in rs] for n, rs in whole.items()}
        assert counts[0] != counts[1] != counts[2]
    else:
        assert len({rs[0].payload["summary"] for rs in whole.values()}) == 3
    # What the viewer is shown: the same keys, structure and lengths, indeed the same payload.
    assert all(is_redacted(r) for rs in shown.values() for r in rs)
    payloads = {n: [r.payload for r in rs] for n, rs in shown.items()}
    assert shape(payloads[0]) == shape(payloads[1]) == shape(payloads[2])
    # (An undo names its target's seq, which differs here only because the Soviet sheets'
    # own events come before it in the longer logs.)
    same = {n: [{k: v for k, v in p.items() if k != "target"} for p in ps]
            for n, ps in payloads.items()}
    assert same[0] == same[1] == same[2]
    for r in shown[2]:
        assert BLIND not in r.payload and "$redacted" not in r.payload
        parts = r.payload[WITHHELD]
        expected = ["@referee", "soviet"] if who == "finland" else ["@referee", "finland",
                                                                      "soviet"]
        assert sorted(parts) == expected and set(parts.values()) == {None}


def test_finland_still_sees_its_own_accruals_and_nothing_of_the_soviets(
        games: dict[int, list[EventRecord]]) -> None:
    for log in games.values():
        turns = _kinds(redact_events(log, FINLAND))["turn_advanced"]
        assert [[a["sheet"] for a in t.payload["accruals"]] for t in turns] == [["F"]] * 3
        # (``created`` left out: its scenario puts a Soviet counter on hex 30.10 in plain view.)
        text = json.dumps([r.payload for r in redact_events(log, FINLAND)[1:]])
        assert not {'"S"', '"S2"', "30.10", "32.12"} & {s for s in ('"S"', '"S2"', "30.10",
                                                                   "32.12") if s in text}


def test_the_old_format_counted_the_hidden_sheets(games: dict[int, list[EventRecord]]) -> None:
    # Why issue 18 changed it: the old markers (``like=`` a log stored in that format) give the
    # count away, and the test above would fail on them.
    old = {n: redact_events(log, FINLAND, like=[
        r.model_copy(update={"payload": {"$redacted": []}}) for r in log])
        for n, log in games.items()}
    turns = {n: next(r for r in log if r.type == "turn_advanced").payload
             for n, log in old.items()}
    assert [len(t["$redacted"]) for t in turns.values()] == [1, 2, 3]  # the blind, then sheets
    assert shape(turns[0]) != shape(turns[1]) != shape(turns[2])


# --- guessing: every event that hides anything is blinded ---------------------------------------

WORDS = ("lair", "den", "nest", "hole", "camp", "base", "fort", "keep", "yard", "barn", "dacha",
         "mill", "wood", "hill", "pond", "ford", "gate", "cave", "ridge", "tower")
NAMES = tuple(f"{prefix}{w}" for w in WORDS for prefix in ("S-", ""))
CENTERS = tuple(f"{x}.{y:02d}" for x in range(26, 38) for y in range(4, 16))
SIZES = range(4)


def _sheets(counters: Mapping[str, Any]) -> Iterator[tuple[str, SheetWritten]]:
    """Every ``sheet_written`` event an opponent might try for the dead Soviet company, with its
    guess (name, center, size); the fields it cannot see it takes as the rules make them for
    that company at this point (one member, prep 3, turn 1), so only the secret is guessed."""
    base = SheetWritten(sheet="?", members=("1/609",), companies=("1/609",), centers={},
                        size=0, command_prep=3, row=3, turn=1, counters=counters,
                        other_sheet=(), vehicle=False)
    for name in NAMES:
        for center in CENTERS:
            for size in SIZES:
                yield f"{name} {center} {size}", base.model_copy(update={
                    "sheet": name, "centers": {"1/609": center}, "size": size, "row": 3 + size})


def sheet_guesses(public: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The guessed ``sheet_written`` payloads (see :func:`_sheets`)."""
    for guess, event in _sheets(public["counters"]):
        yield guess, event.payload()


def undone_guesses(public: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every ``undone`` payload an opponent might try: its summary is what the rules say of
    each guessed sheet (the attacker runs the same software)."""
    for guess, event in _sheets({}):
        yield guess, {**public, "summary": TCS.describe(event)}


def crack(shown: EventRecord,
          guesses: Callable[[Mapping[str, Any]], Iterable[tuple[str, dict[str, Any]]]]
          ) -> tuple[str | None, int]:
    """Hash every guess against the event's hash, from what the opponent holds of it: its
    redacted payload (public parts) and the chain's fields. Returns (the guess that matched,
    guesses tried)."""
    public = {k: v for k, v in shown.payload.items() if k != WITHHELD}
    tried = 0
    for guess, payload in guesses(public):
        tried += 1
        if event_hash(shown.campaign_id, shown.seq, shown.type, payload, shown.recorded_at,
                      shown.prev_hash) == shown.hash:
            return guess, tried
    return None, tried


def without_blind(whole: EventRecord, shown: EventRecord) -> EventRecord:
    """The control: the event as it would be with no blind (re-hashed), as the opponent would
    hold it (the same public parts: a blind is never shown). Its recorded command (``made_by``,
    withheld too) is left out as well: the guesses here do not rebuild it, though an attacker
    could, from each guess, as the rules parse a ``write_sheet``."""
    bare = whole.model_copy(update={"payload": {k: v for k, v in whole.payload.items()
                                                if k not in (BLIND, MADE_BY)}})
    return bare.model_copy(update={"hash": bare.expected_hash(), "payload": shown.payload})


SECRET_SHEET = {"kind": "write_sheet", "sheet": "S-dacha", "members": ["1/609"],
                "centers": {"1/609": "31.10"}, "size": 2, "attest": True}
TRUTH = "S-dacha 31.10 2"


def test_the_guess_space_holds_the_secret_and_the_attack_is_real() -> None:
    guesses = [g for g, _ in _sheets({})]
    assert len(set(guesses)) == len(NAMES) * len(CENTERS) * 4 == 23_040 and TRUTH in guesses


def _attack(whole: EventRecord, shown: EventRecord,
            guesses: Callable[[Mapping[str, Any]], Iterable[tuple[str, dict[str, Any]]]]
            ) -> None:
    """The attack fails on the event as shown; the control (no blind) finds the secret."""
    assert is_redacted(shown) and BLIND not in shown.payload
    found, tried = crack(shown, guesses)
    assert found is None, f"#{whole.seq} {whole.type}: the hash gave away {found!r}"
    assert tried == len(NAMES) * len(CENTERS) * 4
    assert BLIND in whole.payload
    assert crack(without_blind(whole, shown), guesses)[0] == TRUTH


@pytest.fixture(scope="module")
def by_mail(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[EventRecord],
                                                               list[EventRecord]]:
    """The Soviets write a sheet and undo it in their database; the turn file for Finland is
    imported there. Returns (the Soviet log, the log Finland's database stores)."""
    folder = tmp_path_factory.mktemp("mail")
    dbs = {side: Session(folder / f"{side}.sqlite3") for side in ("finland", "soviet")}
    cards = [new_seat(dbs[side], side) for side in ("finland", "soviet")]
    campaign = create_seated(dbs["soviet"], SCENARIO, cards, name="mail").id
    execute(dbs["soviet"], campaign, SECRET_SHEET)
    dbs["soviet"].undo(campaign)
    export_turn(dbs["soviet"], campaign, folder / "turn.json", for_seat="finland")
    import_turn(dbs["finland"], folder / "turn.json")
    logs = []
    for side in ("soviet", "finland"):
        with dbs[side]._store() as store:
            logs.append(list(store.events(campaign)))
    return logs[0], logs[1]


def test_by_mail_an_undone_secret_cannot_be_guessed_from_its_hash(
        by_mail: tuple[list[EventRecord], list[EventRecord]]) -> None:
    soviet, finland = by_mail
    undone = finland[-1]
    assert undone.type == "undone" and set(undone.payload) == {"target", "v", WITHHELD}
    _attack(soviet[-1], undone, undone_guesses)


def test_by_mail_the_written_sheet_cannot_be_guessed_from_its_hash(
        by_mail: tuple[list[EventRecord], list[EventRecord]]) -> None:
    soviet, finland = by_mail
    written = finland[1]
    assert written.type == "sheet_written" and "sheet" not in written.payload
    _attack(soviet[1], written, sheet_guesses)


def test_every_event_that_hides_anything_carries_a_blind(tmp_path: Path) -> None:
    session = Session(tmp_path / "c.sqlite3")
    ref = two_sided(session, seed="readme")  # a legacy seed, typed as a word
    session.undo(ref)  # the check of Finland's sheet
    session.undo(ref)  # the third turn
    records = list(session.load(ref, whole=True).events)
    hides = event_secrets(records)
    assert {r.type for r, h in zip(records, hides, strict=True) if h.secret} == {
        "created", "sheet_written", "turn_advanced", "implementation_checked", "undone"}
    for r, h in zip(records, hides, strict=True):
        assert (BLIND in r.payload) == h.secret, (r.seq, r.type)


def test_a_seed_typed_as_a_word_cannot_be_guessed_from_the_created_hash(tmp_path: Path) -> None:
    session = Session(tmp_path / "c.sqlite3")
    ref = two_sided(session, seed="readme")
    whole = session.load(ref, whole=True).events[0]
    shown = redact_events([whole], FINLAND)[0]
    assert "seed" not in shown.payload and shown.payload[WITHHELD] == {"@referee": None}
    words = [*WORDS, "readme", "seed", "test", "demo", "tolvajarvi", "42", "1234"]

    def seeds(public: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        return ((w, {**public, "seed": w}) for w in words)

    assert BLIND in whole.payload
    assert crack(shown, seeds) == (None, len(words))
    assert crack(without_blind(whole, shown), seeds)[0] == "readme"


# --- on a shared web server: a side's filtered export ------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    from web.conftest import database
    from web.seats_table import open_table

    for db in database(request.param, tmp_path):
        yield from open_table(db, tmp_path)


def _export(table: Any, side: str) -> list[EventRecord]:
    document = table.people[side].get(f"/api/campaigns/{table.ref}/export").json()
    return [EventRecord.model_validate(e) for e in document["events"]]


def test_on_the_web_an_undone_turn_looks_like_any_turn_and_cannot_be_guessed(
        table: Any) -> None:
    # The Soviets advance a turn (their sheet accrues) and undo it; Finland exports.
    assert table.command("soviet", {"kind": "turn", "skip_fo": True}).status_code == 201
    undo = table.people["soviet"].post(f"/api/campaigns/{table.ref}/undo",
                                       {"expected_version": table.version()})
    assert undo.status_code == 201, undo.text
    whole = _export(table, "referee")
    shown = _export(table, "finland")
    turn, undone = shown[-2], shown[-1]
    assert (turn.type, undone.type) == ("turn_advanced", "undone")
    assert [a["sheet"] for a in whole[-2].payload["accruals"]] == ["S-lair"]
    assert turn.payload["accruals"] == [] and "S-lair" not in json.dumps(undone.payload)
    assert set(undone.payload) == {"target", "v", WITHHELD}
    # One opaque part per party, as for a turn with no Soviet sheet (the in-memory test above).
    assert turn.payload[WITHHELD] == undone.payload[WITHHELD] == {"@referee": None,
                                                                   "soviet": None}

    real = whole[-2].payload["accruals"][0]

    def summaries(public: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        base = TurnAdvanced.model_validate({**whole[-2].payload, "accruals": []})
        for name in (*NAMES, "S-lair"):
            for added in range(1, 4):
                for total in range(1, 13):
                    accrual = Accrual.model_validate(
                        {**real, "sheet": name, "added": added, "total": total})
                    summary = TCS.describe(base.model_copy(update={"accruals": (accrual,)}))
                    yield f"{name} {added} {total}", {**public, "summary": summary}

    found, tried = crack(undone, summaries)
    assert found is None, f"the undone turn's hash gave away {found!r}"
    assert tried == (len(NAMES) + 1) * 36 and BLIND in whole[-1].payload
    truth = f"S-lair {real['added']} {real['total']}"
    assert crack(without_blind(whole[-1], undone), summaries)[0] == truth


def test_the_reveal_checks_a_partial_log_in_either_format(
        games: dict[int, list[EventRecord]]) -> None:
    from rallypoint.core.visibility import check_reveal

    log = games[2]
    new = redact_events(log, FINLAND)
    old = redact_events(log, FINLAND, like=[
        r.model_copy(update={"payload": {"$redacted": []}}) for r in log])
    assert check_reveal(new, log, FINLAND) is None and check_reveal(old, log, FINLAND) is None
    # A public part shown falsely is caught in both formats.
    turn = next(n for n, r in enumerate(log) if r.type == "turn_advanced")
    for seen in (new, old):
        lie = [*seen]
        lie[turn] = seen[turn].model_copy(update={"payload": {**seen[turn].payload,
                                                              "night": True}})
        problem = check_reveal(lie, log, FINLAND)
        assert problem is not None and problem.seq == log[turn].seq


# --- redaction-washing: a sender marking a public event redacted ---------------------------------


def test_a_public_event_sent_as_redacted_is_refused(tmp_path: Path) -> None:
    # Finland records a loss, then forges it in its turn file: the counter comes back whole and
    # the event is marked redacted, so that the Soviets could not check it against its hash;
    # the file is re-signed with Finland's own seat key (the digest of withheld payloads too).
    from rallypoint.core.errors import IntegrityError
    from test_pbem_hidden import OTHER, _key, _resign, start

    game = start(tmp_path, "washing")
    execute(game.dbs["finland"], game.campaign, {"kind": "loss", "counter": "1/ErP112-1"})
    path = game.export("finland")
    data = json.loads(path.read_text(encoding="utf-8"))
    loss = data["events"][-1]
    assert loss["type"] == "loss" and not is_redacted(EventRecord.model_validate(loss))
    counter = loss["payload"]["counters"]["1/ErP112-1"]
    loss["payload"]["counters"]["1/ErP112-1"] = {**counter, "steps": 5, "pile": "map"}
    loss["payload"][WITHHELD] = {"finland": None}
    _resign(data, _key(game.dbs["finland"], game.campaign, "finland"))
    path.write_text(json.dumps(data), encoding="utf-8")
    soviet = game.dbs[OTHER["finland"]]
    before = len(list(soviet.load(game.campaign, whole=True).events))
    with pytest.raises(IntegrityError, match=r"event #\d+ arrives redacted, but a 'loss' event "
                                             "never hides anything"):
        import_turn(soviet, path)
    assert len(list(soviet.load(game.campaign, whole=True).events)) == before


# --- by mail: an owed accrual comes whether or not a sheet accrues --------------------------------


@pytest.fixture(scope="module")
def owed_by_mail(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[list[Any], int,
                                                                                   int]]:
    """With 0, 1 and 2 hidden Soviet sheets, by mail: Finland advances two turns and sends
    them; the Soviet database settles what it owes on import and exports its turn file.
    Returns, per game, what that file holds after Finland's turns (type and payload of each
    event), how many owed events the import appended, and how many accruals the Soviets' own
    copy of them holds."""
    from redteam_kit import seated
    from tcs_partial_kit import SCENARIO_TOML

    found = {}
    for hidden in (0, 1, 2):
        tmp = tmp_path_factory.mktemp(f"owed{hidden}")
        scenario = tmp / "two_sides.toml"
        scenario.write_text(SCENARIO_TOML, encoding="utf-8")
        game = seated(tmp, scenario, ("finland", "soviet"), "owed")
        for sheet in SOVIET_SHEETS[:hidden]:
            game.command("soviet", sheet.model_dump(mode="json", exclude={"expected_version"}))
        if hidden:
            game.send("soviet")
        for _ in range(2):
            game.command("finland", {"kind": "turn", "skip_fo": True})
        owed = import_turn(game.dbs["soviet"], game.export("finland")).owed
        data = json.loads(game.export("soviet").read_text(encoding="utf-8"))
        last_turn = max(e["seq"] for e in data["events"] if e["type"] == "turn_advanced")
        after = [{"type": e["type"], "payload": e["payload"]} for e in data["events"]
                 if e["seq"] > last_turn]
        own = game.dbs["soviet"].load(game.campaign, whole=True).events[-1].payload
        found[hidden] = (after, owed, len(own.get("accruals") or ()))
    return found


def test_by_mail_an_owed_accrual_comes_with_0_1_or_2_hidden_sheets_alike(
        owed_by_mail: dict[int, tuple[list[Any], int, int]]) -> None:
    # Before issue 18 closed, a database with no pending sheet appended nothing after the other
    # side's turns, so the mere arrival of an ``accrued`` said "a sheet accrues here".
    shown = {n: after for n, (after, _, _) in owed_by_mail.items()}
    assert [len(after) for after in shown.values()] == [1, 1, 1]
    assert {after[0]["type"] for after in shown.values()} == {"accrued"}
    assert shape(shown[0]) == shape(shown[1]) == shape(shown[2])
    assert shown[0] == shown[1] == shown[2]  # the payloads too: nothing but the turn
    # Not vacuous: the Soviets' own copies hold 0, 2 and 4 accruals (2 turns per sheet).
    assert [(owed, own) for _, owed, own in owed_by_mail.values()] == [(1, 0), (1, 2), (1, 4)]
