"""Session preview: a command decided in memory shows its result or refusal; nothing is stored,
and no seeded die is used."""

from __future__ import annotations

from pathlib import Path

import pytest

from rallypoint.core.registry import get_ruleset
from rallypoint.session import Session
from rallypoint.session.preview import preview

CENTERS = {"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21", "MG/ErP112": "8.21"}


@pytest.fixture
def implemented(tmp_path: Path) -> tuple[Session, str]:
    """Example #1 in a store, up to its implemented sheet (the seed's dice 6,6 then 5,1,4)."""
    session = Session(tmp_path / "s.db")
    scenario = next(p for p in get_ruleset("tcs").example_scenarios()
                    if p.name.startswith("example1"))
    info = session.create(scenario, name="ex1", seed="s")
    session.execute("ex1", {"kind": "write_sheet", "expected_version": 1, "sheet": "rest",
                            "members": ["ErP112"], "centers": CENTERS, "size": 1,
                            "attest": True})
    for v in range(2, 8):
        session.execute("ex1", {"kind": "turn", "expected_version": v})
    session.execute("ex1", {"kind": "morale", "expected_version": 8, "formation": "ErP112",
                            "value": 2})
    session.execute("ex1", {"kind": "check", "expected_version": 9, "sheet": "rest"},
                    dice="6,6,5,1,4")
    return session, info.id


def test_a_legal_distribution_previews_what_recording_gives(
        implemented: tuple[Session, str]) -> None:
    session, cid = implemented
    before = session.load(cid)
    command = {"kind": "distribute", "company": "1/ErP112", "resurrect": {"1/ErP112-d-1": 3},
               "very_dead": ["1/ErP112-d-2"]}
    seen = preview(before, command)
    assert seen.legal and seen.rolls == () and seen.after is not None
    assert seen.summary is not None and "1/ErP112 distributes 3 step(s)" in seen.summary
    assert session.load(cid).version == before.version  # nothing stored
    done = session.execute(cid, {**command, "expected_version": before.version})
    assert done.campaign.state == seen.after.state


def test_an_illegal_distribution_previews_its_refusal(implemented: tuple[Session, str]) -> None:
    session, cid = implemented
    seen = preview(session.load(cid), {"kind": "distribute", "company": "1/ErP112",
                                       "heal": {"1/ErP112-1": 2},
                                       "resurrect": {"1/ErP112-d-1": 3}})
    assert not seen.legal and seen.after is None and seen.error is not None
    assert seen.error.code == "illegal-now" and "spends 5 steps" in seen.error.message
    bad = preview(session.load(cid), {"kind": "distribute"})
    assert bad.error is not None and bad.error.code == "malformed-input"


def test_a_rolling_command_lists_its_roll_and_uses_no_die(
        implemented: tuple[Session, str]) -> None:
    session, cid = implemented
    for company in ("1/ErP112", "2/ErP112"):
        session.answer(cid, "rebuild", decision=company)
    last = session.load(cid)
    seen = preview(last, {"kind": "distribute", "company": "3/ErP112",
                          "resurrect": {"3/ErP112-d-1": 2, "3/ErP112-d-2": 2},
                          "very_dead": ["3/ErP112-d-3", "3/ErP112-d-4"]})
    assert seen.legal and seen.summary is None
    assert [r.purpose for r in seen.rolls] == ["ErP 112th battalion morale recovery"]
    assert seen.to_json()["state"] is None  # the roll's result is not shown as a fact
    # The seeded dice are untouched: recording now rolls what it would have without a preview.
    twin = Session(session.path.with_name("twin.db"))
    twin.import_file(_export(session, cid))
    a = session.answer(cid, "rebuild", decision="3/ErP112")
    b = twin.answer(cid, "rebuild", decision="3/ErP112")
    assert a.record.payload == b.record.payload


def _export(session: Session, cid: str) -> Path:
    path = session.path.with_name("export.json")
    session.export(cid, path)
    return path
