"""Platoon in the lab: ``rallypoint odds platoon`` and ``rallypoint simulate platoon``.

Joined to ``rallypoint odds`` and ``rallypoint simulate`` through the platoon plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from rallypoint.cli.kit import (
    DEFAULT_CHUNKS,
    FAST_CHUNKS,
    CompareOpt,
    CsvOpt,
    JsonOpt,
    ParamOpt,
    PlotOpt,
    RunsOpt,
    SchedulerOpt,
    SeedOpt,
    SweepOpt,
    VariantOpt,
    WorkersOpt,
    console,
    emit,
    guarded,
    note,
    odds_table,
    options,
    plot_differences,
    policy_of,
    print_json,
    run_variants,
    variant_sets,
)

if TYPE_CHECKING:
    from rallypoint.cli.kit import Common
    from rallypoint.lab.kit import Comparison, SimResult

odds = typer.Typer()
"""The ruleset's commands of ``rallypoint odds`` (joined through its plugin's ``odds_cli``)."""


@odds.command("platoon")
def platoon_odds(as_json: JsonOpt = False) -> None:
    """The platoon's rolls: arrival delays, transfers, wound healing, section 8 draws."""
    from rallypoint.rulesets.platoon.front import odds

    result: dict[str, Any] = odds.platoon()
    if as_json:
        print_json(result)
        return
    for key in ("man_arrival_days", "tank_arrival_days", "light_wound_days"):
        odds_table(key.replace("_", " "), result[key], "days")
    console.print(f"an arriving man is a transfer: {result['transfer']}", highlight=False)
    for attribute, by_progress in result["section8_by_progress"].items():
        for progress, dist in by_progress.items():
            console.print(f"{attribute} at progress {progress}: " + ", ".join(
                f"{k}: {p}" for k, p in dist.items()), highlight=False, soft_wrap=True)


simulate = typer.Typer()
"""The ruleset's commands of ``rallypoint simulate`` (joined through its plugin's
``simulate_cli``)."""


@simulate.command()
def platoon(
    years: Annotated[int, typer.Option(help="Campaign years (each the scenario's calendar, "
                                            "then the year's end).", min=1, max=100)] = 1,
    days: Annotated[int | None, typer.Option(help="Play this many days instead of whole years.",
                                             min=1, max=36500)] = None,
    intensity: Annotated[int, typer.Option(help="STAND-IN battle intensity (0-6).", min=0,
                                           max=6)] = 1,
    policy: Annotated[str, typer.Option(help="Policy for every decision (by_trade, "
                                             "wait_for_depot).")] = "by_trade",
    scenario: Annotated[str | None, typer.Option(
        help="Platoon scenario file (default: the shipped Italy 1944 platoon).")] = None,
    engine: Annotated[str, typer.Option(
        help="fast: the array kernel, held to the rules by a conformance test; rules: the "
             "ruleset's own transitions, one roll at a time.")] = "fast",
    param: ParamOpt = None,
    compare: CompareOpt = None,
    sweep: SweepOpt = None,
    variant: VariantOpt = None,
    runs: RunsOpt = 1000,
    seed: SeedOpt = None,
    chunks: Annotated[int | None, typer.Option(
        help="Chunks the runs are split into, each with its own spawned seed (default: 8 with "
             "--engine fast, whose chunks are whole arrays of campaigns; 32 with --engine "
             "rules). Results depend on this, never on the worker count.")] = None,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    csv: CsvOpt = None,
    plot: PlotOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Whole platoon campaigns with the STAND-IN battle: fit tanks, fatigue, losses by day."""
    from rallypoint.rulesets.platoon.front.lab_setup import PlatoonSpec, prepare, scenario_path
    from rallypoint.rulesets.platoon.front.lab_sim import simulate_platoon

    # The fast kernel finishes thousands of campaigns before a process pool has started.
    if workers is None and engine == "fast":
        workers = 1
    if chunks is None:
        chunks = FAST_CHUNKS if engine == "fast" else DEFAULT_CHUNKS
    common = options(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        labels, variants = variant_sets(param, compare, sweep, variant)
        path = str(scenario_path(scenario))
        specs = [PlatoonSpec(path, intensity, years, days, *policy_of(v, policy), engine=engine)
                 for v in variants]
        for spec in specs:
            prepare(spec)
        results, elapsed = run_variants(common, "platoon", labels, specs, simulate_platoon)
        comparison = emit(common, results, labels, elapsed,
                          "simulate platoon (STAND-IN battles)",
                          sweeping=bool(sweep) or len(variants) > 2)
        if plot:
            _plot_platoon(common, results, labels, intensity, comparison,
                          bool(sweep) or len(variants) > 2)


PLATOON_PLOTTED = ["men_lost", "withdrawals", "final_morale", "mean_fit_tanks",
                   "fatigue_mean", "days_shaken", "final_cohesion", "final_steadiness"]
"""The platoon metrics drawn in a comparison or sweep (every metric is in the tables and JSON)."""


def _plot_platoon(common: Common, results: list[SimResult], labels: list[str], intensity: int,
                  comparison: Comparison | None, sweeping: bool) -> None:
    from rallypoint.lab.kit import plots

    assert common.plot is not None
    variants = {lb: {k: r.series[k] for k in ("fit_tanks", "mean_fatigue", "morale",
                                              "mean_cohesion")}
                for lb, r in zip(labels, results, strict=True)}
    title = (f"platoon by day, STAND-IN battles at intensity {intensity}, "
             f"{results[0].runs:,} runs" + ("" if len(labels) > 1 else f" [{labels[0]}]"))
    written = [plots.fan_chart(common.plot, variants, title)]
    written += plot_differences(common, results, labels, PLATOON_PLOTTED,
                                 f"platoon, intensity {intensity}", comparison, sweeping)
    note(common, "wrote " + ", ".join(str(p) for p in written))


