"""`rallypoint log` pages a long campaign: `--last N`, `--since SEQ`, and a pager on a terminal.

Only the events shown are described (a page of a 100k-event log must not describe all of them),
and when piped the log is never paged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import build
from rallypoint.core.campaign import Campaign
from rallypoint.session import Session, log_entries

runner = CliRunner()
SCENARIO = Path("src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "c.db"
    session = Session(path)
    session.create(SCENARIO, name="ridge", seed="paging")
    for version in range(1, 8):
        session.execute("ridge", {"kind": "turn", "expected_version": version})
    return path


def _log(db: Path, *args: str) -> list[str]:
    done = runner.invoke(build(["log"]), ["--db", str(db), "log", *args])
    assert done.exit_code == 0, done.output
    return done.output.splitlines()


def test_last_and_since_choose_a_page(db: Path) -> None:
    whole = _log(db)
    assert [line.split()[0] for line in whole] == [f"#{n}" for n in range(1, 9)]
    assert _log(db, "--last", "2") == whole[-2:]
    assert _log(db, "--since", "6") == whole[5:]
    assert _log(db, "--since", "3", "--last", "1") == whole[-1:]
    assert _log(db, "--since", "99") == []
    assert _log(db, "--last", "50") == whole


def test_piped_output_is_never_paged_and_pager_forced_shows_the_same(db: Path) -> None:
    # CliRunner is not a terminal: a forced pager falls back to printing (pydoc's plain pager).
    assert _log(db, "--pager") == _log(db) == _log(db, "--no-pager")


def test_a_page_describes_only_its_events(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    described: list[int] = []
    real = Campaign.describe

    def counting(self: Campaign, seq: int) -> str:
        described.append(seq)
        return real(self, seq)

    monkeypatch.setattr(Campaign, "describe", counting)
    campaign = Session(db).load("ridge", whole=True)
    entries = log_entries(campaign, last=3)
    assert [e.seq for e in entries] == described == [6, 7, 8]


def test_a_bad_page_is_one_line(db: Path) -> None:
    done = runner.invoke(build(["log"]), ["--db", str(db), "log", "--last", "0"])
    assert done.exit_code == 2 and len(done.output.strip().splitlines()) == 1
