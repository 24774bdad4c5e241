"""Platoon campaigns and squares rally chains: shapes, totals, and the exact law of a chain."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.lab.backend import Backend
from rallypoint.lab.rollers import generator, root_sequence
from rallypoint.rulesets.platoon.front.lab_setup import SERIES, PlatoonSpec, prepare
from rallypoint.rulesets.platoon.front.lab_setup import scenario_path as platoon_scenario
from rallypoint.rulesets.platoon.front.lab_sim import simulate_platoon
from rallypoint.rulesets.squares.front.lab_sim import (
    ChainSpec,
    exact_chain,
    rally_chains,
    simulate_chains,
)

HERE = Backend(workers=1)


def test_platoon_year_series_and_totals() -> None:
    spec = PlatoonSpec(str(platoon_scenario(None)), intensity=2, years=1)
    result = simulate_platoon(spec, 6, 21, 3, HERE)
    days = result.parameters["days"]
    assert days == result.parameters["year_days"] == 30
    assert result.parameters["battle"] == "STAND-IN"
    assert any("STAND-IN" in n for n in result.notes)
    assert set(result.series) == set(SERIES)
    for values in result.series.values():
        assert values.shape == (6, days)
    fit = result.series["fit_tanks"]
    assert fit.min() >= 0 and fit.max() <= 5
    assert (result.series["morale"] <= 90).all()
    assert np.array_equal(result.metrics["men_lost"], result.series["men_lost"].sum(axis=1))
    # Actions on days 1-3 of each week: 14 in 30 days, fought or withdrawn.
    assert set(result.metrics["actions_fought"]) == {14.0}
    # The year's end on day 30 hands out five new tanks, all fit.
    assert set(fit[:, -1]) == {5.0}


def test_platoon_days_and_parameters() -> None:
    path = str(platoon_scenario(None))
    short = simulate_platoon(PlatoonSpec(path, days=5), 3, 2, 3, HERE)
    assert short.series["morale"].shape == (3, 5)
    tired = simulate_platoon(PlatoonSpec(path, days=5, parameters={"fatigue.fight": 40}), 3, 2, 3,
                             HERE)
    assert tired.series["mean_fatigue"][:, 0].mean() > short.series["mean_fatigue"][:, 0].mean()
    with pytest.raises(MalformedInputError):
        prepare(PlatoonSpec(path, intensity=9))
    with pytest.raises(MalformedInputError):
        prepare(PlatoonSpec(path, policy="nobody"))


def test_rally_chain_kernel_matches_the_exact_law() -> None:
    n = 40_000
    for modifier in (-2, 0, 1, 3):
        law = exact_chain(modifier)
        chains = rally_chains(generator(root_sequence(modifier + 10)), modifier, n)
        q = 1 / law["mean_attempts"]
        se = math.sqrt((1 - q) / q**2 / n)
        assert abs(chains["attempts"].mean() - law["mean_attempts"]) < 5 * se, modifier
        p = float(Fraction(law["passes"]))
        se_p = math.sqrt(p * (1 - p) / n) or 1e-12
        assert abs(chains["passed"].mean() - p) <= 5 * se_p, modifier
        share = float(np.mean(chains["attempts"] == 1))
        assert abs(share - q) < 5 * math.sqrt(q * (1 - q) / n)


def test_rally_chain_exact_law_by_hand() -> None:
    # +0: pass on a 6, break never (0 or less needs a die of 0): 1 in 6 ends each attempt.
    assert exact_chain(0) == {"attempt": {"no_effect": "5/6", "pass": "1/6"}, "passes": "1",
                              "mean_attempts": 6.0}
    # -3: pass never, break on 1-3.
    law = exact_chain(-3)
    assert law["passes"] == "0" and law["mean_attempts"] == 2.0
    # +5 with a break at 0: a die of 1 is 6, a pass.
    assert exact_chain(5)["attempt"] == {"pass": "1"}


def test_scalar_chains_through_the_rules_agree_with_the_kernel() -> None:
    # Kempt rallies the disordered 28th in the walled farm: +2 disorder, -3 SP lost, +1 friendly
    # fortification, +1 no enemy visible = +1: a pass on 5 or 6, never a break.
    spec = ChainSpec(leader="kempt", unit="28th", kind="disorder")
    kernel = simulate_chains(spec, 20_000, 4, 4, HERE)
    scalar = simulate_chains(ChainSpec(leader="kempt", unit="28th", kind="disorder", scalar=True),
                             400, 4, 4, HERE)
    assert kernel.parameters["modifier"] == scalar.parameters["modifier"] == 1
    assert [m["value"] for m in kernel.parameters["modifiers"]] == [2, -3, 1, 1]
    assert set(scalar.metrics["passed"]) == {1.0}
    se = math.sqrt(6 / 400)  # geometric with q = 1/3: variance (1 - q)/q² = 6
    assert abs(scalar.metrics["attempts"].mean() - 3.0) < 5 * se
    assert abs(kernel.metrics["attempts"].mean() - 3.0) < 5 * math.sqrt(6 / 20_000)


def test_a_situation_the_rules_refuse_is_refused() -> None:
    with pytest.raises(IllegalNowError):
        simulate_chains(ChainSpec(leader="kempt", unit="79th", kind="sp"), 10, 1, 1, HERE)
    with pytest.raises(MalformedInputError):
        simulate_chains(ChainSpec(scalar=True), 10, 1, 1, HERE)
