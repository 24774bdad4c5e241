"""What is due next (``rallypoint.core.due``): each ruleset's typed answer, and the CLI's words.

Oracles: the calendar a test lays out itself (platoon), the seed's turn structure (squares), and
the rules' own refusals: what ``due`` names must be what the rules then accept.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import platoon_kit
from rallypoint.cli.due import due_line
from rallypoint.cli.main import app
from rallypoint.core.due import Due, due_of
from rallypoint.core.errors import IllegalNowError
from rallypoint.rulesets.platoon.front.campaign import platoon_state
from rallypoint.rulesets.platoon.year import check_year_end

runner = CliRunner()


def test_platoon_says_the_battle_a_rest_day_then_the_years_end() -> None:
    c = platoon_kit.campaign(action_days=(1, 2, 3), days=10)
    state = platoon_state(c)
    assert due_of(c.ruleset, state) == (
        Due("report", "day 1 holds an action: report its battle", "report"),)
    day4 = replace(state, day=4)
    assert due_of(c.ruleset, day4) == (Due(
        "year_end", "year 1's calendar is played out (its last action was day 3): the year "
        "ends (14.9)", "year_end"),)
    laid = replace(state, action_days=(1, 5), day=2)
    assert due_of(c.ruleset, laid) == (Due(
        "rest", "day 2: no action today, the day passes as rest; the next action is on day 5",
        "rest"),)


@pytest.mark.parametrize("day", range(1, 9))
def test_the_year_end_is_due_exactly_when_the_rules_allow_it(day: int) -> None:
    # Attacker: a 'due' that offered 14.9 a day early would send the player to a refusal.
    c = platoon_kit.campaign(action_days=(2, 4, 6), days=10)
    state = replace(platoon_state(c), day=day)
    said = [d.command for d in due_of(c.ruleset, state)]
    try:
        check_year_end(state)
        allowed = not state.action_today
    except IllegalNowError:
        allowed = False
    assert ("year_end" in said) == allowed == (day > 6)


def test_the_cli_words_each_due_item_with_its_command() -> None:
    assert due_line("platoon", Due("rest", "day 2: no action today", "rest")) == (
        "due: day 2: no action today (`rallypoint platoon rest`)")
    assert due_line("squares", Due("rally", "28th Foot may be rallied by Kempt", "rally",
                                   "28th")) == ("due: 28th Foot may be rallied by Kempt "
                                                "(`rallypoint squares rally LEADER 28th`)")
    assert due_line("tcs", Due("no_orders", "2/ErP112 was attacked")) == (
        "due: 2/ErP112 was attacked")


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "due.sqlite3"
    monkeypatch.setenv("RALLYPOINT_DB", str(path))
    monkeypatch.setenv("COLUMNS", "200")
    return path


def _ok(*args: str) -> str:
    result = runner.invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return str(result.output)


def test_autoplay_stops_when_the_year_is_played_out_and_says_so(db: Path) -> None:
    # The bug: after the year's last action, autoplay and rest played days on with no word.
    _ok("platoon", "create", "--name", "y", "--seed", "1", "--dice-seed", "x", "--days", "7")
    out = _ok("platoon", "autoplay", "--days", "20")
    assert "day 3 (action)" in out and "day 4" not in out.split("written")[0]
    assert out.rstrip().endswith("due: year 1's calendar is played out (its last action was "
                                 "day 3): the year ends (14.9) (`rallypoint platoon year-end`)")
    out = _ok("platoon", "rest")    # a decision comes first: nothing else is due till then
    assert "1 decision(s) pending" in out and "due:" not in out
    out = _ok("platoon", "resolve", "--all", "--policy", "by_trade")
    assert "due: year 1's calendar is played out" in out
    out = _ok("platoon", "year-end")
    assert "year 1 → 2" in out


def test_squares_writes_end_with_what_is_due(db: Path) -> None:
    _ok("new", "farm_below_the_ridge", "--name", "ridge", "--seed", "ridge")
    out = _ok("squares", "turn")
    assert out.rstrip().splitlines()[-1] == (
        "due: 28th Foot may be rallied by Kempt or Wellington "
        "(`rallypoint squares rally LEADER 28th`)")
