"""TCS rests with interruptions: losses, companies forced off their centers, FO deaths and the
hourly returns, played through the real rules."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from rallypoint.cli.main import app
from rallypoint.core.errors import MalformedInputError
from rallypoint.lab.backend import Backend
from rallypoint.lab.results import FloatArray
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.front.lab_sim import (
    Interruptions,
    RestSpec,
    prepared,
    scenario_path,
    simulate_rest,
)

HERE = Backend(workers=1)
runner = CliRunner()
FO = '''
[[formations.companies.counters]]
id = "FO-1"
type = "hwy"
kind = "fo"
steps = 1
target = "P"
'''


def _rest(interruptions: Interruptions, scenario: str = "example1",
          runs: int = 80) -> dict[str, FloatArray]:
    spec = RestSpec(str(scenario_path(scenario)), interruptions=interruptions)
    return simulate_rest(spec, runs, 7, 4, HERE).metrics


def test_losses_during_the_rest_cost_steps_back() -> None:
    calm, shot_at = _rest(Interruptions()), _rest(Interruptions(loss=0.5))
    assert "steps_lost" not in calm
    assert shot_at["steps_lost"].mean() > 0.5
    assert shot_at["steps_back"].mean() < calm["steps_back"].mean()


def test_forced_off_every_turn_cancels_the_sheet_and_sends_half_the_dead_very_dead() -> None:
    forced = _rest(Interruptions(forced_off=1.0), runs=10)
    companies = len(tcs_state(prepared(RestSpec(str(scenario_path("example1"))))).sheets["rest"]
                    .companies)
    assert set(forced["left_center"]) == {float(companies)}
    assert set(forced["implemented"]) == {0.0}
    assert np.isnan(forced["turns_to_implementation"]).all()
    # Nothing comes back, and half of each company's Dead Pile goes Very Dead: 3 counters in
    # example 1, the same every run (the rules pick them, no die is rolled).
    assert set(forced["counters_back"]) == {0.0} and set(forced["steps_back"]) == {0.0}
    assert set(forced["very_dead"]) == {3.0}


def test_fo_deaths_and_hourly_returns(tmp_path: Path) -> None:
    scenario = tmp_path / "fo.toml"
    scenario.write_text(scenario_path("example2").read_text(encoding="utf-8") + FO,
                        encoding="utf-8")
    metrics = _rest(Interruptions(fo_loss=0.5), str(scenario), runs=150)
    assert (metrics["fo_killed"] >= 1).mean() > 0.9
    # 2d6 ≥ 11 (GD '41) each whole hour: some come back, never more than died.
    assert metrics["fo_returned"].sum() > 0
    assert (metrics["fo_returned"] <= metrics["fo_killed"]).all()


def test_bad_interruptions_are_refused() -> None:
    with pytest.raises(MalformedInputError, match="not a chance"):
        prepared(RestSpec(str(scenario_path("example1")),
                          interruptions=Interruptions(loss=1.5)))
    with pytest.raises(MalformedInputError, match="no FO counter"):
        prepared(RestSpec(str(scenario_path("example1")),
                          interruptions=Interruptions(fo_loss=0.1)))
    out = runner.invoke(app, ["simulate", "tcs", "--runs", "5", "--forced-off", "-1"])
    assert out.exit_code == 2 and "Traceback" not in out.output
    out = runner.invoke(app, ["simulate", "tcs", "--runs", "20", "--seed", "3",
                              "--loss-chance", "0.3", "--json"])
    assert out.exit_code == 0 and '"steps_lost"' in out.output


def test_the_rest_carries_the_exact_law_of_turns_to_implementation() -> None:
    from fractions import Fraction

    spec = RestSpec(str(scenario_path("example1")), interruptions=Interruptions(loss=0.2))
    result = simulate_rest(spec, 400, 11, 4, HERE)
    law = {int(t): Fraction(p) for t, p in result.exact["turns_to_implementation"].items()}
    assert sum(law.values()) + Fraction(result.exact["not_within_turns"]) == 1
    # Losses do not touch the sheet's weighted turns: the law holds beside them.
    mean = sum(t * p for t, p in law.items()) / sum(law.values())
    seen = result.metrics["turns_to_implementation"]
    seen = seen[~np.isnan(seen)]
    assert abs(seen.mean() - float(mean)) < 5 * seen.std() / np.sqrt(len(seen))
    forced = simulate_rest(RestSpec(str(scenario_path("example1")),
                                    interruptions=Interruptions(forced_off=0.1)), 4, 1, 1, HERE)
    assert forced.exact == {}  # a company forced off cancels at random: no law given
