"""Sweeps over many variants, and variants that replace a table or a number of a data file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rallypoint.cli.lab_output import sweep_grid, typed_value
from rallypoint.cli.main import app
from rallypoint.core.errors import DataFileError, MalformedInputError
from rallypoint.lab.backend import Backend
from rallypoint.lab.variants import read_variant
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.front.lab_sim import RestSpec, created, scenario_path, simulate_rest

runner = CliRunner()


def test_sweep_grid_is_every_combination_first_values_first() -> None:
    grid = sweep_grid(["odd_pile_limit=floor,ceil", "size=1,2,3"])
    assert grid[0] == {"odd_pile_limit": "floor", "size": 1}
    assert len(grid) == 6 and grid[-1] == {"odd_pile_limit": "ceil", "size": 3}
    tables = sweep_grid(["recovery_table.inf=5,4,3,2,1;6,5,4,3,2"])
    assert tables == [{"recovery_table.inf": [5, 4, 3, 2, 1]},
                      {"recovery_table.inf": [6, 5, 4, 3, 2]}]
    assert typed_value("true") is True and typed_value("2.5") == 2.5
    with pytest.raises(MalformedInputError, match="one value"):
        sweep_grid(["size=1"])


def _json(args: list[str]) -> Any:
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def test_platoon_sweep_paired_by_seed_with_differences_to_the_baseline(tmp_path: Path) -> None:
    data = _json(["simulate", "platoon", "--runs", "300", "--seed", "4", "--json",
                  "--sweep", "fatigue.night_recovery=10,30",
                  "--sweep", "cohesion.stranger_loss=15,5"])
    labels = [v["label"] for v in data["variants"]]
    assert labels == ["fatigue.night_recovery=10, cohesion.stranger_loss=15",
                      "fatigue.night_recovery=10, cohesion.stranger_loss=5",
                      "fatigue.night_recovery=30, cohesion.stranger_loss=15",
                      "fatigue.night_recovery=30, cohesion.stranger_loss=5"]
    assert data["baseline"] == labels[0]
    rows = {lb: {r["metric"]: r for r in rs} for lb, rs in data["difference_to_baseline"].items()}
    rested = rows[labels[2]]
    # Paired by seed: the battles roll the same, so what fatigue cannot touch does not move.
    assert rested["men_lost"]["diff"] == 0 and rested["men_lost"]["paired"]
    assert rested["fatigue_mean"]["ci95"][1] < 0
    assert rested["days_shaken"]["diff"] < 0
    assert rows[labels[1]]["final_cohesion"]["ci95"][0] > 0
    plot = tmp_path / "fan.png"
    out = runner.invoke(app, ["simulate", "platoon", "--runs", "40", "--seed", "4",
                              "--sweep", "fatigue.night_recovery=10,20,30", "--plot", str(plot)])
    assert out.exit_code == 0, out.output
    assert "sweep over fatigue.night_recovery" in out.output and "fatigue_mean" in out.output
    assert plot.stat().st_size > 1000 and (tmp_path / "fan-sweep.png").stat().st_size > 1000
    assert not (tmp_path / "fan-b.png").exists()  # variants overlaid in one fan chart


def test_a_table_column_variant_changes_what_the_table_gives() -> None:
    path = str(scenario_path("example1"))
    changed = created(RestSpec(path, parameters={"recovery_table.inf": [6, 5, 4, 3, 2]}))
    rows = tcs_state(changed).rules.recovery_table.rows
    assert [r.steps[0] for r in rows] == [6, 5, 4, 3, 2]
    assert [r.steps[1] for r in rows] == [2, 1, 1, 0, 0]  # other columns untouched
    base = simulate_rest(RestSpec(path), 60, 3, 4, Backend(workers=1))
    more = simulate_rest(RestSpec(path, parameters={"recovery_table.inf": [6, 5, 4, 3, 2]}),
                         60, 3, 4, Backend(workers=1))
    assert more.metrics["steps_rolled"].mean() > base.metrics["steps_rolled"].mean()


@pytest.mark.parametrize(("name", "value", "match"), [
    ("recovery_table.inf", [5, 4, 3], "5 step counts"),
    ("recovery_table.inf", ["a", "b", "c", "d", "e"], "integer"),
    ("implementation.nothing", 3, "names nothing"),
    ("weighted_turns.fired", [1, 2], "one number"),
])
def test_a_bad_data_variant_is_refused_before_any_run(name: str, value: Any, match: str) -> None:
    with pytest.raises(DataFileError, match=match):
        created(RestSpec(str(scenario_path("example1")), parameters={name: value}))


def test_bad_variant_on_the_command_line_is_one_line_exit_2() -> None:
    out = runner.invoke(app, ["simulate", "tcs", "--runs", "5",
                              "--param", "recovery_table.inf=5,4"])
    assert out.exit_code == 2
    assert "recovery_table.inf" in out.output and "Traceback" not in out.output


def test_variant_files_are_compared_with_the_baseline(tmp_path: Path) -> None:
    gentle = tmp_path / "gentle.toml"
    gentle.write_text('label = "gentler table"\n[parameters]\nodd_pile_limit = "ceil"\n'
                      '[data]\n"recovery_table.inf" = [6, 5, 4, 3, 2]\n', encoding="utf-8")
    assert read_variant(gentle) == ("gentler table", {"odd_pile_limit": "ceil",
                                                      "recovery_table.inf": [6, 5, 4, 3, 2]})
    data = _json(["simulate", "tcs", "--runs", "40", "--seed", "2", "--json",
                  "--variant", str(gentle)])
    assert data["a"]["label"] == "defaults" and data["b"]["label"] == "gentler table"
    bad = tmp_path / "bad.toml"
    bad.write_text('colour = "red"\n', encoding="utf-8")
    with pytest.raises(DataFileError, match="unknown key"):
        read_variant(bad)
    out = runner.invoke(app, ["simulate", "tcs", "--runs", "5", "--variant", str(bad)])
    assert out.exit_code == 2
