"""``rallypoint odds``: exact values, checked against independent brute-force enumerations.

The enumerations below use the seed's and the reference facts' tables typed in here, not the
ruleset's data file, so a wrong data file or a wrong reading fails these tests.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.rulesets.platoon.front import odds as platoon_odds
from rallypoint.rulesets.squares.front import odds as squares_odds
from rallypoint.rulesets.tcs.front import odds as tcs_odds

runner = CliRunner()

# Seed 000, the recovery table: rows 1-3, 4-7, 8-10, 11-13, 14+; columns Inf, Hwy, TO, Tank.
SEED_TABLE = [(3, (5, 2, 1, 2)), (7, (4, 1, 1, 1)), (10, (3, 1, 1, 0)), (13, (2, 0, 0, 0)),
              (99, (1, 0, 0, 0))]
COLUMNS = ("inf", "hwy", "to", "tank")
# tcs-core-facts.md: Prep. Defense thresholds and rows 1, 3 and 6 of the Implementation Table.
PREP = [1, 12, 18, 24, 30, 36, 42, 49, 56, 63, 71]
ROWS = {1: [61, 52, 44, 35, 32, 24, 24, 21, 14, 12, 11],
        3: [64, 63, 55, 52, 44, 35, 31, 26, 24, 21, 14],
        6: [0, 65, 65, 64, 62, 56, 52, 46, 43, 34, 32]}


def _steps(total: int, column: int) -> int:
    for high, row in SEED_TABLE:
        if total <= high:
            return row[column]
    raise AssertionError


def _brute_recovery(modifier: int) -> dict[str, dict[str, str]]:
    result: dict[str, dict[str, str]] = {}
    for c, name in enumerate(COLUMNS):
        counts: dict[int, int] = {}
        for die in range(1, 7):
            s = _steps(die + modifier, c)
            counts[s] = counts.get(s, 0) + 1
        result[name] = {str(k): _f(Fraction(n, 6)) for k, n in sorted(counts.items())}
    return result


def _f(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


@pytest.mark.parametrize("modifier", range(-2, 16))
def test_tcs_recovery_matches_enumeration(modifier: int) -> None:
    assert tcs_odds.tcs_recovery(modifier) == {"modifier": modifier,
                                           "columns": _brute_recovery(modifier)}


def _d66_at_least(cell: int) -> Fraction:
    hits = sum(1 for a, b in itertools.product(range(1, 7), repeat=2) if a * 10 + b >= cell)
    return Fraction(hits, 36)


def _column(wt: int) -> int | None:
    reached = [i + 1 for i, t in enumerate(PREP) if wt >= t]
    return reached[-1] if reached else None


@pytest.mark.parametrize("row", sorted(ROWS))
@pytest.mark.parametrize("wt", [0, 1, 11, 12, 17, 18, 30, 48, 49, 70, 71, 200])
def test_tcs_implementation_matches_enumeration(row: int, wt: int) -> None:
    column = _column(wt)
    cell = ROWS[row][column - 1] if column else 0
    p = _d66_at_least(cell) if cell else Fraction(0)
    assert tcs_odds.tcs_implementation(row, wt) == {
        "row": row, "weighted_turns": wt, "column": column,
        "needed": str(cell) if cell else None, "p": _f(p)}


def test_tcs_implementation_turns_until() -> None:
    result = tcs_odds.tcs_implementation(3, 18, per_turn=3, horizon=30)
    waiting, expected = Fraction(1), {}
    for t in range(1, 31):
        col = _column(18 + 3 * t)
        assert col is not None
        p = _d66_at_least(ROWS[3][col - 1])
        expected[str(t)] = _f(waiting * p)
        waiting *= 1 - p
    assert result["turns"] == expected
    assert result["later"] == _f(waiting)
    total = sum(Fraction(v) for v in result["turns"].values()) + Fraction(result["later"])
    assert total == 1


def test_row_nine_cannot_implement() -> None:
    assert tcs_odds.tcs_implementation(9, 30)["p"] == "0"
    assert tcs_odds.tcs_implementation(9, 30, per_turn=3, horizon=4)["turns"] == {}


@pytest.mark.parametrize(("number", "per_hour"), [(12, "1/36"), (11, "1/12"), (9, "5/18")])
def test_tcs_fo(number: int, per_hour: str) -> None:
    hits = sum(1 for a, b in itertools.product(range(1, 7), repeat=2) if a + b >= number)
    assert _f(Fraction(hits, 36)) == per_hour
    result = tcs_odds.tcs_fo(number, horizon=3)
    p = Fraction(per_hour)
    assert result == {"number": number, "per_hour": per_hour,
                      "hours": {"1": _f(p), "2": _f((1 - p) * p), "3": _f((1 - p) ** 2 * p)},
                      "later": _f((1 - p) ** 3)}


def test_tcs_morale_one_die_halved_rounded_up() -> None:
    assert tcs_odds.tcs_morale() == {"points": {"1": "1/3", "2": "1/3", "3": "1/3"}}


def test_platoon_rolls() -> None:
    result = platoon_odds.platoon()
    assert result["man_arrival_days"] == {"3": "1/3", "4": "1/3", "5": "1/3"}
    assert result["tank_arrival_days"] == {str(d): "1/6" for d in range(5, 11)}
    assert result["light_wound_days"] == {"3": "1/3", "4": "1/3", "5": "1/3"}
    assert result["transfer"] == "1/6"
    # Section 8 skill, green column (mean 40, spread 10): 40 + 10 (2d6 - 7)/5, half up.
    counts: dict[int, int] = {}
    for a, b in itertools.product(range(1, 7), repeat=2):
        exact = 40 + Fraction(10 * (a + b - 7), 5)
        value = int(exact + Fraction(1, 2)) if exact >= 0 else int(exact)
        counts[value] = counts.get(value, 0) + 1
    assert result["section8_by_progress"]["skill"]["0"] == {
        str(k): _f(Fraction(n, 36)) for k, n in sorted(counts.items())}


def test_odds_cli_json_shapes() -> None:
    out = runner.invoke(app, ["odds", "tcs-recovery", "--modifier", "3", "--json"])
    assert json.loads(out.output) == {"modifier": 3, "columns": {
        "inf": {"3": "1/3", "4": "2/3"}, "hwy": {"1": "1"}, "to": {"1": "1"},
        "tank": {"0": "1/3", "1": "2/3"}}}
    out = runner.invoke(app, ["odds", "tcs-implementation", "--row", "3", "--weighted-turns",
                              "18", "--json"])
    assert json.loads(out.output) == {"row": 3, "weighted_turns": 18, "column": 3,
                                      "needed": "55", "p": "2/9"}
    out = runner.invoke(app, ["odds", "tcs-fo", "--number", "12", "--json"])
    assert json.loads(out.output)["per_hour"] == "1/36"
    for args in (["odds", "tcs-recovery", "--modifier", "3"], ["odds", "platoon"],
                 ["odds", "tcs-morale"], ["odds", "tcs-fo", "--number", "9"],
                 ["odds", "tcs-implementation", "--row", "3", "--weighted-turns", "18",
                  "--per-turn", "3"]):
        assert runner.invoke(app, args).exit_code == 0


def _brute_rally(modifier: int) -> dict[str, object]:
    # Seed 003: 'If the result is 6 or more ... passed'; 'If the result is 0 or less, the unit
    # breaks'. Typed in here, not read from the squares data file.
    counts = {"pass": 0, "no_effect": 0, "break": 0}
    for die in range(1, 7):
        total = die + modifier
        counts["pass" if total >= 6 else "break" if total <= 0 else "no_effect"] += 1
    return {"modifier": modifier,
            **{k: _f(Fraction(n, 6)) for k, n in counts.items() if n}}


@pytest.mark.parametrize("modifier", range(-8, 9))
def test_squares_rally_matches_enumeration(modifier: int) -> None:
    assert squares_odds.squares_rally(modifier) == _brute_rally(modifier)


def test_squares_rally_cli_json_shape() -> None:
    out = runner.invoke(app, ["odds", "squares-rally", "--modifier", "1", "--json"])
    assert json.loads(out.output) == {"modifier": 1, "pass": "1/3", "no_effect": "2/3"}
    out = runner.invoke(app, ["odds", "squares-rally", "--modifier", "-2", "--json"])
    assert json.loads(out.output) == {"modifier": -2, "no_effect": "2/3", "break": "1/3"}
    assert runner.invoke(app, ["odds", "squares-rally", "--modifier", "0"]).exit_code == 0
    out = runner.invoke(app, ["odds", "squares-rally"])
    assert out.exit_code == 2


def test_squares_rally_by_situation_names_each_modifier() -> None:
    from rallypoint.core.registry import get_ruleset

    farm = str(get_ruleset("squares").example_scenarios()[0])
    out = runner.invoke(app, ["odds", "squares-rally", "--scenario", farm, "--json"])
    rows = json.loads(out.output)
    row = next(r for r in rows if (r["leader"], r["unit"], r["rally"]) ==
               ("kempt", "28th", "disorder"))
    assert [m["value"] for m in row["modifiers"]] == [2, -3, 1, 1]
    assert row["modifier"] == 1
    for r in rows:
        brute = _brute_rally(r["modifier"])
        assert {k: r[k] for k in ("pass", "no_effect", "break") if k in r} == {
            k: v for k, v in brute.items() if k != "modifier"}
        assert sum(m["value"] for m in r["modifiers"]) == r["modifier"]
    assert runner.invoke(app, ["odds", "squares-rally", "--scenario", farm]).exit_code == 0
