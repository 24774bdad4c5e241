"""Lab benchmarks: the platoon's fast kernel against the rules engine, start-up apart from
throughput, and the TCS kernel against the Campaign path. Called by ``bench/run.py``.

Throughput is timed on workers that have already started, imported rallypoint and prepared the
campaign (so start-up is reported on its own line), over several repeats; the median is the
figure and the spread is shown. The fast kernel and the rules engine are timed in the same run,
on the same pool, so their ratio is not skewed by how busy the (shared) machine is at the time.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Any

Figure = Any


def _chunks(spec: Any, runs: int, parts: int, entropy: int) -> list[Any]:
    from rallypoint.lab.backend import make_chunks

    return make_chunks(spec, runs, entropy, parts)


def warm(spec: Any) -> int:
    """Worker start-up: import the lab and prepare the campaign; linger so each worker gets one."""
    from rallypoint.rulesets.platoon.front.lab_setup import prepared

    prepared(spec)
    prepared(replace(spec, engine="rules"))
    time.sleep(0.3)
    return os.getpid()


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    """Wall times of ``repeat`` calls."""
    out = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        out.append(time.perf_counter() - began)
    return out


def _rate(runs: int, times: list[float]) -> tuple[float, float, float]:
    """Median, lowest and highest rate (runs per second)."""
    rates = sorted(runs / t for t in times)
    return statistics.median(rates), rates[0], rates[-1]


def platoon_figures(figure: type, quick: bool) -> list[Figure]:
    """Start-up; fast and rules campaign-years per second on 1 core and on every core; ratio."""
    import multiprocessing

    from rallypoint.rulesets.platoon.front.lab_fast import fast_chunk
    from rallypoint.rulesets.platoon.front.lab_setup import PlatoonSpec, prepare, scenario_path
    from rallypoint.rulesets.platoon.front.lab_sim import platoon_chunk

    cores = os.cpu_count() or 1
    spec = PlatoonSpec(str(scenario_path(None)), intensity=1, years=1, engine="fast")
    rules = replace(spec, engine="rules")
    began = time.perf_counter()
    prepare(spec)
    prep = time.perf_counter() - began
    fast_runs, rules_runs = (2000, 20) if quick else (10_000, 60)
    repeat = 2 if quick else 5
    one_fast = _rate(fast_runs, timed(lambda: [fast_chunk(c) for c in _chunks(
        spec, fast_runs, 1, 1)], repeat))
    one_rules = _rate(rules_runs, timed(lambda: [platoon_chunk(c) for c in _chunks(
        rules, rules_runs, 1, 1)], max(2, repeat - 2)))
    context = multiprocessing.get_context("spawn")
    began = time.perf_counter()
    with ProcessPoolExecutor(max_workers=cores, mp_context=context) as pool:
        pids = set(pool.map(warm, [spec] * cores))
        startup = time.perf_counter() - began
        many_fast = _rate(fast_runs * cores, timed(lambda: list(pool.map(
            fast_chunk, _chunks(spec, fast_runs * cores, cores, 2))), repeat))
        many_rules = _rate(rules_runs * cores, timed(lambda: list(pool.map(
            platoon_chunk, _chunks(rules, rules_runs * cores, cores, 2))), max(2, repeat - 2)))
    load = os.getloadavg()
    ratio, ratio_one = many_fast[0] / many_rules[0], one_fast[0] / one_rules[0]
    shared = (f"the machine is shared with other engineers working at once (load average "
              f"{load[0]:.1f} / {load[1]:.1f} over 1 / 5 min at the end)")
    return [
        figure("platoon start-up", f"{startup:.2f} s pool, {prep * 1000:.0f} ms prepare", "–",
               None, f"{cores} spawned workers importing rallypoint and numpy ({len(pids)} "
               "distinct); `prepare()` = scenario validated, roster built, campaign created "
               "(once per spec per process, cached); not in the throughput below"),
        figure(f"platoon campaign-years, fast kernel ({cores} cores)",
               f"{many_fast[0]:,.0f} /s", "≥ 1 000 /s", many_fast[0] >= 1000,
               f"median of {repeat} runs of {cores} × {fast_runs:,} years of 30 days (STAND-IN "
               f"battles, intensity 1), warm pool; range {many_fast[1]:,.0f}–{many_fast[2]:,.0f}; "
               f"one core in-process {one_fast[0]:,.0f} /s; {shared}"),
        figure(f"platoon campaign-years, rules engine ({cores} cores)",
               f"{many_rules[0]:,.0f} /s", "–", None,
               f"median of {max(2, repeat - 2)} runs of {cores} × {rules_runs} years, same "
               f"pool; range {many_rules[1]:,.0f}–{many_rules[2]:,.0f}; one core in-process "
               f"{one_rules[0]:,.0f} /s"),
        figure("platoon fast ÷ rules (same run)", f"{ratio:,.0f}×", "≥ 30×", ratio >= 30,
               f"{cores} cores; on one core in-process {ratio_one:,.0f}×"),
    ]


def campaign_path_figure(figure: type, quick: bool) -> Figure:
    """Turns to implementation: the vectorised kernel against real ``CheckImplementation``
    commands through a Campaign (the path ``simulate tcs`` plays), per sheet check."""
    from rallypoint.core.campaign import created_event, start
    from rallypoint.core.registry import get_ruleset
    from rallypoint.lab.rollers import NumpyRoller, generator, root_sequence
    from rallypoint.rulesets.tcs.commands import AdvanceTurn, CheckImplementation
    from rallypoint.rulesets.tcs.front.lab_kernel import (
        implementation_cells,
        turns_to_implementation,
    )
    from rallypoint.rulesets.tcs.front.lab_sim import sheet_command

    ruleset = get_ruleset("tcs")
    campaign = start(created_event(ruleset, ruleset.example_scenarios()[0], "bench",
                                   seed="bench"))
    campaign = campaign.execute(sheet_command(campaign.state, 1, campaign.version),
                                NumpyRoller(generator(root_sequence(3))))
    for _ in range(8):
        campaign = campaign.execute(AdvanceTurn(expected_version=campaign.version),
                                    NumpyRoller(generator(root_sequence(3))))
    roller = NumpyRoller(generator(root_sequence(4)))
    checks = 300 if quick else 2000

    def engine() -> None:
        for _ in range(checks):
            campaign.execute(CheckImplementation(expected_version=campaign.version,
                                                 sheet="rest"), roller)

    gen = generator(root_sequence(5))
    rows = 200_000 if quick else 1_000_000

    cells = implementation_cells(campaign.state.rules, 3, 3, 24, 18)

    def kernel() -> None:
        turns_to_implementation(gen, cells, rows)

    e_rate = checks / min(timed(engine, 2))
    k_rate = rows * len(cells) / min(timed(kernel, 3))
    return figure("TCS implementation checks: kernel ÷ Campaign path",
                  f"{k_rate / e_rate:,.0f}×", "≥ 30×", k_rate / e_rate >= 30,
                  f"Campaign.execute(CheckImplementation) on a pending sheet (decide, seal, "
                  f"apply): {e_rate:,.0f} checks/s; vectorised turns to implementation (every "
                  f"sheet's 24 d66 checks rolled): {k_rate / 1e6:.1f} M checks/s; 1 core, best "
                  "of runs")
