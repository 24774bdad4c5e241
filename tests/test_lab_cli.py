"""``rallypoint simulate …``: every command with --json, files written, bad input refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app

runner = CliRunner()
FAST = ("--workers", "1", "--chunks", "4", "--seed", "7")


def simulate(*args: str) -> Any:
    out = runner.invoke(app, ["simulate", *args, *FAST, "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def metric(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in data["summary"] if r["metric"] == name)


def test_simulate_tcs_json() -> None:
    data = simulate("tcs", "--runs", "20", "--turns", "20")
    assert data["simulation"] == "tcs" and data["runs"] == 20
    assert data["seed"]["entropy"] == 7 and data["seed"]["chunks"] == 4
    assert data["parameters"]["row"] == 3 and data["parameters"]["policy"] == "rebuild"
    assert metric(data, "counters_back")["mean"] == 4


def test_simulate_tcs_variant_comparison_end_to_end(tmp_path: Path) -> None:
    out = runner.invoke(app, ["simulate", "tcs", "--runs", "16", "--compare",
                              "odd_pile_limit=ceil", *FAST, "--json", "--csv",
                              str(tmp_path / "t.csv"), "--plot", str(tmp_path / "t.svg")])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["a"]["label"] == "defaults" and data["b"]["label"] == "odd_pile_limit=ceil"
    row = next(r for r in data["difference"] if r["metric"] == "counters_back")
    assert row == {"metric": "counters_back", "mean_a": 4.0, "mean_b": 5.0, "diff": 1.0,
                   "se": 0.0, "ci95": [1.0, 1.0], "n": 16, "paired": True}
    for name in ("t.csv", "t-b.csv", "t.svg", "t-compare.svg"):
        assert (tmp_path / name).stat().st_size > 100, name


def test_simulate_tcs_policy_variant_and_text_output() -> None:
    out = runner.invoke(app, ["simulate", "tcs", "--runs", "8", "--scenario", "example2",
                              "--compare", "policy=heal_first", *FAST])
    assert out.exit_code == 0, out.output
    assert "variant comparison" in out.output and "seed 7, " in out.output


def test_simulate_tcs_recovery_json_beside_exact() -> None:
    data = simulate("tcs-recovery", "--modifier", "3", "--runs", "20000", "--row", "3")
    assert data["exact"]["steps"]["inf"] == {"3": "1/3", "4": "2/3"}
    assert set(data["histograms"]["steps_inf"]) == {"3", "4"}
    assert data["histograms"]["steps_hwy"] == {"1": 20000}
    assert data["exact"]["implementation"]["row"] == 3


def test_simulate_tcs_fo_compare_numbers(tmp_path: Path) -> None:
    out = runner.invoke(app, ["simulate", "tcs-fo", "--number", "9", "--compare-number", "12",
                              "--runs", "20000", *FAST, "--json", "--plot",
                              str(tmp_path / "fo.png")])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    row = data["difference"][0]
    assert row["metric"] == "hours_to_return"
    # Exact means 18/5 = 3.6 and 36 hours: the difference is far beyond its interval.
    assert row["mean_a"] == pytest.approx(3.6, abs=0.2)
    assert row["mean_b"] == pytest.approx(36, abs=2)
    assert row["ci95"][0] > 30
    assert data["a"]["exact"] == {"per_hour": "5/18", "mean_hours": 3.6}
    assert (tmp_path / "fo.png").stat().st_size > 1000
    assert (tmp_path / "fo-compare.png").stat().st_size > 1000


def test_simulate_platoon_json_with_fan_chart(tmp_path: Path) -> None:
    out = runner.invoke(app, ["simulate", "platoon", "--days", "8", "--intensity", "2",
                              "--runs", "4", *FAST, "--json", "--plot", str(tmp_path / "fan.png"),
                              "--csv", str(tmp_path / "p.csv")])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["parameters"]["battle"] == "STAND-IN"
    assert len(data["series"]["fit_tanks"]["median"]) == 8
    assert (tmp_path / "fan.png").stat().st_size > 1000
    assert (tmp_path / "p.steps.csv").exists()


def test_simulate_squares_json_modifier_and_situation() -> None:
    data = simulate("squares", "--modifier", "-1", "--runs", "5000")
    # One die spans six totals and the thresholds seven: a chain can pass or break, never both.
    assert data["exact"]["attempt"] == {"break": "1/6", "no_effect": "5/6"}
    assert data["exact"]["passes"] == "0"
    assert metric(data, "passed")["max"] == 0
    both = simulate("squares", "--leader", "kempt", "--unit", "28th", "--scalar", "--runs", "40")
    assert both["a"]["label"] == "vectorised" and both["b"]["label"] == "scalar engine"
    assert both["b"]["parameters"]["engine"] == "scalar"
    assert both["a"]["parameters"]["modifier"] == 1


@pytest.mark.parametrize("args", [
    ("tcs", "--param", "odd_pile_limit=sometimes"),
    ("tcs", "--param", "no_such_thing=1"),
    ("tcs", "--policy", "hoard"),
    ("tcs", "--scenario", "example9"),
    ("tcs-fo", "--number", "13"),
    ("tcs-recovery", "--modifier", "1", "--column", "cavalry"),
    ("platoon", "--intensity", "9"),
    ("squares",),
    ("squares", "--modifier", "1", "--leader", "kempt"),
    ("squares", "--leader", "kempt", "--unit", "79th", "--kind", "sp"),
    ("tcs-fo", "--number", "9", "--runs", "0"),
    ("tcs-fo", "--number", "9", "--scheduler", "nonsense"),
])
def test_bad_input_is_one_line_exit_2(args: tuple[str, ...]) -> None:
    extra = ["--workers", "1"] + ([] if "--runs" in args else ["--runs", "10"])
    out = runner.invoke(app, ["simulate", *args, *extra])
    assert out.exit_code == 2, out.output
    assert len(out.output.strip().splitlines()) == 1, out.output
