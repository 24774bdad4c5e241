"""``odds tcs-implementation --per-turn``: the cumulative column and the decimals a person reads."""

from __future__ import annotations

import json
from fractions import Fraction

from typer.testing import CliRunner

from rallypoint.cli.lab_output import pct as _pct
from rallypoint.cli.main import app
from rallypoint.rulesets.tcs.front import odds

runner = CliRunner()


def test_cumulative_is_one_minus_still_waiting() -> None:
    result = odds.tcs_implementation(3, 18, per_turn=3, horizon=30)
    running = Fraction(0)
    for turn, p in result["turns"].items():
        running += Fraction(p)
        assert Fraction(result["cumulative"][turn]) == running
    assert running + Fraction(result["later"]) == 1


def test_percentages_never_round_a_chance_to_certainty_or_nothing() -> None:
    assert _pct("1/3") == "33.33%"
    assert _pct("1") == "100.00%" and _pct("0") == "0.00%"
    assert _pct("1/1000000") == "< 0.01%"
    assert _pct("999999/1000000") == "> 99.99%"


def test_per_turn_table_shows_decimals_and_the_running_total() -> None:
    out = runner.invoke(app, ["odds", "tcs-implementation", "--row", "5", "--weighted-turns", "0",
                              "--per-turn", "3"], env={"COLUMNS": "80"})
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert any("by this turn" in line for line in lines)
    first = next(line for line in lines if line.startswith("1 "))
    assert "2.78%" in first  # 1/36, on the turn and by it
    last = next(line for line in lines if line.startswith("24 "))
    assert "> 99.99%" in last
    assert all(len(line) <= 80 for line in lines)
    data = json.loads(runner.invoke(app, ["odds", "tcs-implementation", "--row", "5",
                                          "--weighted-turns", "0", "--per-turn", "3",
                                          "--horizon", "2", "--json"]).output)
    assert data["cumulative"] == {"1": "1/36", "2": "71/1296"}
