"""The session API: the one path every front end takes from a request to a stored event."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from rallypoint.core.errors import (
    IllegalNowError,
    MalformedInputError,
    StaleVersionError,
    UnknownIdError,
)
from rallypoint.core.registry import get_ruleset
from rallypoint.rulesets.tcs.commands import AdvanceTurn, RecordLoss
from rallypoint.session import Campaign, Session

DOCS = Path(__file__).resolve().parents[1] / "docs" / "api.md"
SHEET = {"kind": "write_sheet", "sheet": "rest", "members": ["ErP112"], "size": 1,
         "attest": True, "centers": {"1/ErP112": "23.15", "2/ErP112": "17.21",
                                     "3/ErP112": "8.21", "MG/ErP112": "8.21"}}


def _scenario(prefix: str = "example1") -> Path:
    return next(p for p in get_ruleset("tcs").example_scenarios() if p.name.startswith(prefix))


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session(tmp_path / "c.sqlite3")
    s.create(_scenario(), name="tolvajarvi", seed="test")
    return s


def test_api_doc_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), {})  # the docs' own asserts are the test


def test_campaigns_are_named_explicitly(session: Session, tmp_path: Path) -> None:
    info = session.create(_scenario("example2"), name="lechanowka", seed="x")
    assert [c.name for c in session.campaigns()] == ["tolvajarvi", "lechanowka"]
    assert session.resolve("lechanowka") == info
    assert session.resolve(info.id) == info
    assert session.resolve(info.id[:6]) == info
    with pytest.raises(UnknownIdError) as caught:
        session.resolve("nope")
    assert caught.value.code == "unknown-id"
    assert "'tolvajarvi'" in str(caught.value)


def test_a_scenario_without_a_ruleset_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\n', encoding="utf-8")
    s = Session(tmp_path / "c.sqlite3")
    with pytest.raises(Exception) as caught:
        s.create(bad)
    assert getattr(caught.value, "code", None) == "bad-data-file"
    assert s.campaigns() == []


def test_execute_takes_a_model_json_or_a_builder(session: Session) -> None:
    one = session.execute("tolvajarvi", AdvanceTurn(expected_version=1))
    two = session.execute("tolvajarvi", {"kind": "turn", "expected_version": 2})
    three = session.execute("tolvajarvi", lambda c: AdvanceTurn(expected_version=c.version))
    assert [e.record.seq for e in (one, two, three)] == [2, 3, 4]
    assert not any(e.retried for e in (one, two, three))
    assert session.view("tolvajarvi")["state"]["turn"] == 4
    assert three.summary.startswith("turn 4")
    assert three.to_json()["type"] == "turn_advanced"


def test_bad_json_names_the_field(session: Session) -> None:
    with pytest.raises(MalformedInputError) as caught:
        session.execute("tolvajarvi", {"kind": "turn"})
    assert caught.value.where == "expected_version"
    with pytest.raises(MalformedInputError):
        session.execute("tolvajarvi", {"kind": "nonsense", "expected_version": 1})
    assert session.load("tolvajarvi").version == 1


def test_unused_scripted_dice_write_nothing(session: Session) -> None:
    session.execute("tolvajarvi", {**SHEET, "expected_version": 1})
    session.execute("tolvajarvi", {"kind": "turn", "expected_version": 2})
    with pytest.raises(MalformedInputError) as caught:
        session.execute("tolvajarvi", {"kind": "check", "sheet": "rest", "expected_version": 3},
                        dice="1,1,1")
    assert "used 2" in str(caught.value)
    assert session.load("tolvajarvi").version == 3


def test_a_benign_race_is_retried_once(session: Session) -> None:
    # Two players both saw version 1; both advance the turn. The second is still legal.
    first = session.execute("tolvajarvi", AdvanceTurn(expected_version=1))
    second = session.execute("tolvajarvi", AdvanceTurn(expected_version=1))
    assert (first.retried, second.retried) == (False, True)
    assert second.record.seq == 3


def test_a_race_that_makes_the_command_illegal_is_refused(session: Session) -> None:
    counter = "1/ErP112-1"
    session.execute("tolvajarvi", RecordLoss(expected_version=1, counter=counter, steps=3))
    with pytest.raises(StaleVersionError) as caught:
        session.execute("tolvajarvi", RecordLoss(expected_version=1, counter=counter, steps=3))
    assert caught.value.code == "stale-version"
    assert "refused" in caught.value.what and "version 2" in caught.value.what
    assert session.load("tolvajarvi").version == 2


def test_a_version_from_the_future_is_stale(session: Session) -> None:
    with pytest.raises(StaleVersionError):
        session.execute("tolvajarvi", AdvanceTurn(expected_version=7))


def test_a_writer_landing_between_read_and_write_is_retried(session: Session) -> None:
    other = Session(session.path)
    calls: list[int] = []

    def build(c: Campaign) -> AdvanceTurn:
        calls.append(c.version)
        if len(calls) == 1:  # another request lands while this one is deciding
            other.execute("tolvajarvi", AdvanceTurn(expected_version=c.version))
        return AdvanceTurn(expected_version=c.version)

    done = session.execute("tolvajarvi", build)
    assert calls == [1, 2]
    assert done.retried and done.record.seq == 3


def test_one_session_serves_many_threads(session: Session) -> None:
    errors: list[BaseException] = []

    def worker() -> None:
        for _ in range(5):
            try:
                session.execute("tolvajarvi", lambda c: AdvanceTurn(expected_version=c.version))
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # A retried command may still lose a second race; every other one must have landed.
    assert all(isinstance(e, StaleVersionError) for e in errors), errors
    assert session.load("tolvajarvi").version == 1 + 20 - len(errors)
    assert session.verify("tolvajarvi").ok


def _implemented(session: Session) -> int:
    session.execute("tolvajarvi", {**SHEET, "expected_version": 1})
    for v in range(2, 8):
        session.execute("tolvajarvi", {"kind": "turn", "expected_version": v})
    session.execute("tolvajarvi", {"kind": "morale", "expected_version": 8,
                                   "formation": "ErP112", "value": 2, "reason": ""})
    return session.execute("tolvajarvi", {"kind": "check", "sheet": "rest", "expected_version": 9},
                           dice="5,5,5,1,4").campaign.version


def test_answer_by_named_policy(session: Session) -> None:
    version = _implemented(session)
    pending = session.pending("tolvajarvi")
    assert [d.key for d in pending] == [f"distribute:{c}/ErP112" for c in (1, 2, 3)]
    with pytest.raises(UnknownIdError) as caught:
        session.answer("tolvajarvi", "greedy")
    assert "rebuild, heal_first" in str(caught.value)
    with pytest.raises(IllegalNowError):
        session.answer("tolvajarvi", "rebuild", decision="MG/ErP112")
    done = session.answer("tolvajarvi", "rebuild", decision="2/ErP112", expected_version=version)
    assert done.summary == "2/ErP112 distributes 4 step(s): resurrect 2/ErP112-dead at 4"
    assert [d.subject for d in done.pending] == ["1/ErP112", "3/ErP112"]
    # The default policy (the first) answers the next pending decision.
    after = session.answer("tolvajarvi")
    assert after.summary.startswith("1/ErP112 distributes 3 step(s)")


def test_log_undo_export_import(session: Session, tmp_path: Path) -> None:
    session.execute("tolvajarvi", RecordLoss(expected_version=1, counter="1/ErP112-1", steps=1))
    with pytest.raises(StaleVersionError):
        session.undo("tolvajarvi", expected_version=1)
    undone = session.undo("tolvajarvi", expected_version=2)
    assert undone.summary == "undo #2: 1/ErP112-1 loses 1 step(s) (combat)"
    log = session.log("tolvajarvi")
    assert [(e.seq, e.type, e.undone) for e in log] == [
        (1, "created", False), (2, "loss", True), (3, "undone", False)]
    assert log[0].summary == "campaign 'tolvajarvi' created (tcs)"
    assert log[1].to_json()["rolls"] == []
    with pytest.raises(IllegalNowError):
        session.undo("tolvajarvi")
    assert session.export("tolvajarvi", tmp_path / "out.json") == 3
    other = Session(tmp_path / "other.sqlite3")
    assert other.import_file(tmp_path / "out.json").version == 3
    assert other.view("tolvajarvi") == session.view("tolvajarvi")


def test_play_runs_until_told_to_stop(session: Session) -> None:
    after = session.play("tolvajarvi", lambda c: AdvanceTurn(expected_version=c.version)
                         if c.version < 11 else None)
    assert after.version == 11
    assert session.view("tolvajarvi")["state"]["turn"] == 11
