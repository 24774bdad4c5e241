"""The fast platoon kernel held to the rules engine: a statistical conformance test.

The kernel (``--engine fast``) is a second implementation of the platoon rules, so every summary
metric and every per-day series it produces is compared with the engine's (``--engine rules``) on
the same scenario and parameters, by two-sample tests:

- per metric and per (series, day): a z on the means (both samples are hundreds of runs or more),
  with the variance of the two samples pooled (what they share if they have one law);
- per whole-number metric: a two-sample chi-square over its values (bins pooled until each
  expected count is at least 5), turned into a z by Wilson–Hilferty.

False-alarm rate: every test runs at ``ALPHA / m`` for the ``m`` tests of a configuration
(Bonferroni), so a correct kernel fails a configuration with probability at most ``ALPHA`` =
1/1000 for a random seed. The seeds are fixed, so the outcome is repeatable: a failure is either
a real difference or that 1-in-1000 seed, and then a second seed settles it.

The planted-change tests prove the comparison can fail: a small rule change made in one
implementation only (a rounding, a table entry, a stand-in rule) must be caught.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from rallypoint.lab.backend import Backend
from rallypoint.lab.results import SimResult
from rallypoint.rulesets.platoon import battle
from rallypoint.rulesets.platoon.front import lab_fast as platoon_fast
from rallypoint.rulesets.platoon.front import lab_fast_state as platoon_fast_state
from rallypoint.rulesets.platoon.front.lab_setup import METRICS, SERIES, PlatoonSpec
from rallypoint.rulesets.platoon.front.lab_setup import scenario_path as platoon_scenario
from rallypoint.rulesets.platoon.front.lab_sim import simulate_platoon
from rallypoint.rulesets.platoon.ruleset import RULESET as PLATOON
from rallypoint.rulesets.platoon.section9 import Hooks

pytestmark = pytest.mark.slow

ALPHA = 1e-3
HERE = Backend(workers=1)
RULES_RUNS, FAST_RUNS = 400, 20_000


@dataclass(frozen=True)
class Config:
    """One scenario-and-parameters case of the conformance test."""

    name: str
    spec: PlatoonSpec
    seed: int
    rules_runs: int = RULES_RUNS


PATH = str(platoon_scenario(None))
CONFIGS = [
    Config("a year at intensity 1, by_trade", PlatoonSpec(PATH, intensity=1), 101),
    Config("two years at intensity 4, wait_for_depot (withdrawals, waiting seats, year 2)",
           PlatoonSpec(PATH, intensity=4, years=2, policy="wait_for_depot"), 202, 250),
]


def run(config: Config, engine: str, runs: int) -> SimResult:
    """One side of the comparison (in-process, 8 chunks)."""
    return simulate_platoon(replace(config.spec, engine=engine), runs, config.seed, 8, HERE)


def mean_z(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    """z for the difference of two means, with the variance of both samples together (what
    both share if they have one law: unlike Welch's, it stays sound for a rare event that one
    sample happens never to show)."""
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    var = float(np.concatenate([a, b]).var(ddof=1))
    se = math.sqrt(var / len(a) + var / len(b))
    diff = float(b.mean() - a.mean())
    if se == 0:
        return 0.0 if diff == 0 else math.inf
    return diff / se


def chi_square_z(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    """Two-sample chi-square over the values of a whole-number metric, as a Wilson–Hilferty z."""
    values = np.union1d(a, b)
    ca = np.array([(a == v).sum() for v in values], dtype=np.float64)
    cb = np.array([(b == v).sum() for v in values], dtype=np.float64)
    share = len(a) / (len(a) + len(b))
    bins_a, bins_b, run_a, run_b = [], [], 0.0, 0.0
    for x, y in zip(ca, cb, strict=True):
        run_a, run_b = run_a + x, run_b + y
        if (run_a + run_b) * min(share, 1 - share) >= 5:
            bins_a.append(run_a)
            bins_b.append(run_b)
            run_a = run_b = 0.0
    if bins_a:
        bins_a[-1] += run_a
        bins_b[-1] += run_b
    if len(bins_a) < 2:
        return 0.0
    oa, ob = np.array(bins_a), np.array(bins_b)
    total = oa + ob
    ea, eb = total * share, total * (1 - share)
    chi2 = float(((oa - ea) ** 2 / ea + (ob - eb) ** 2 / eb).sum())
    k = len(oa) - 1
    return float(((chi2 / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k)))


def differences(rules: SimResult, fast: SimResult) -> list[str]:
    """Every test that fails at the Bonferroni level, described; empty when all pass."""
    tests: list[tuple[str, float, bool]] = []
    for name in METRICS:
        a, b = rules.metrics[name], fast.metrics[name]
        tests.append((f"mean of {name}", mean_z(a, b), True))
        seen = np.concatenate([a[~np.isnan(a)], b[~np.isnan(b)]])
        if np.all(seen == np.round(seen)):
            tests.append((f"distribution of {name}", chi_square_z(a, b), False))
    for name in SERIES:
        for day in range(rules.series[name].shape[1]):
            tests.append((f"{name} on day {day + 1}", mean_z(rules.series[name][:, day],
                                                               fast.series[name][:, day]), True))
    level = ALPHA / len(tests)
    two_sided = NormalDist().inv_cdf(1 - level / 2)
    one_sided = NormalDist().inv_cdf(1 - level)
    return [f"{what}: z = {z:.2f}" for what, z, both in tests
            if (abs(z) if both else z) > (two_sided if both else one_sided)]


@pytest.fixture(scope="module")
def rules_results() -> list[SimResult]:
    return [run(c, "rules", c.rules_runs) for c in CONFIGS]


@pytest.fixture(scope="module")
def fast_results() -> list[SimResult]:
    return [run(c, "fast", FAST_RUNS) for c in CONFIGS]


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[c.name for c in CONFIGS])
def test_fast_kernel_conforms_to_the_rules_engine(index: int, rules_results: list[SimResult],
                                                  fast_results: list[SimResult]) -> None:
    rules, fast = rules_results[index], fast_results[index]
    assert set(rules.metrics) == set(fast.metrics) == set(METRICS)
    assert set(rules.series) == set(fast.series) == set(SERIES)
    assert differences(rules, fast) == []


def test_a_rounding_planted_in_the_kernel_is_caught(monkeypatch: pytest.MonkeyPatch,
                                                    rules_results: list[SimResult]) -> None:
    # 14.1 rounded up instead of down: a night gives back one point more, now and then.
    def evening(p: Any, t: Any, fought: Any) -> None:
        pct = np.where(fought, t.n["fatigue.night_recovery"], t.n["fatigue.rest_recovery"])
        p.fat -= (p.fat * pct + 99) // 100
        p.pfat -= (p.pfat * t.n["fatigue.rest_recovery"] + 99) // 100
        together = p.occ.any(axis=2)
        p.coh[...] = np.where(together, np.maximum(p.coh, np.minimum(
            t.n["cohesion.cap"], p.coh + t.n["cohesion.per_day"])), p.coh)

    monkeypatch.setattr(platoon_fast, "_evening", evening)
    found = differences(rules_results[0], run(CONFIGS[0], "fast", FAST_RUNS))
    assert any("fatigue" in f for f in found)


def test_a_parameter_misread_by_the_kernel_is_caught(monkeypatch: pytest.MonkeyPatch,
                                                     rules_results: list[SimResult]) -> None:
    # The 9.6 stand-in's loss read as 10 instead of 15 by the kernel alone.
    original = platoon_fast_state.Tables.from_state

    def misread(state: Any) -> Any:
        tables = original(state)
        return replace(tables, n={**tables.n, "cohesion.stranger_loss": 10})

    monkeypatch.setattr(platoon_fast_state.Tables, "from_state", staticmethod(misread))
    monkeypatch.setattr(platoon_fast, "_TABLES", {})
    found = differences(rules_results[0], run(CONFIGS[0], "fast", FAST_RUNS))
    assert any("cohesion" in f for f in found)


def test_a_table_entry_changed_in_the_engine_is_caught(monkeypatch: pytest.MonkeyPatch,
                                                       fast_results: list[SimResult]) -> None:
    # A hit tank's man lightly wounded on 5 or 6 instead of 6 only, in the rules alone.
    tables = {**battle.MAN_TABLES, battle.TankResult.HIT: {5: battle.ManResult.LIGHT,
                                                           6: battle.ManResult.LIGHT}}
    monkeypatch.setattr(battle, "MAN_TABLES", tables)
    found = differences(run(CONFIGS[0], "rules", RULES_RUNS), fast_results[0])
    assert any("light_wounds" in f for f in found)


def test_a_stand_in_rule_changed_in_the_engine_is_caught(monkeypatch: pytest.MonkeyPatch,
                                                         fast_results: list[SimResult]) -> None:
    # The 9.6 stand-in (a stranger's cost to a crew) halved in the rules alone.
    monkeypatch.setattr(PLATOON, "hooks", Hooks(
        cohesion_after_stranger=lambda c, rules: max(0, c - rules.n("cohesion", "stranger_loss")
                                                     // 2)))
    found = differences(run(CONFIGS[0], "rules", RULES_RUNS), fast_results[0])
    assert any("cohesion" in f for f in found)
