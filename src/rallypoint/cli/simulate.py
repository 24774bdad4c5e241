"""``rallypoint simulate …``: Monte Carlo runs of whole rests, campaigns and rally chains.

Every command takes ``--runs``, ``--seed``, ``--chunks``, ``--workers``, ``--scheduler``,
``--csv``, ``--plot`` and ``--json``; the same seed and chunks give the same numbers on any
backend. numpy, matplotlib and dask are imported only when a command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rallypoint.cli.lab_output import (
    ChunksOpt,
    Common,
    CsvOpt,
    PlotOpt,
    RunsOpt,
    SchedulerOpt,
    SeedOpt,
    WorkersOpt,
    emit,
    note,
    parse_overrides,
    run_jobs,
    sweep_grid,
    variant_labels,
)
from rallypoint.cli.session import JsonOpt, console, guarded

if TYPE_CHECKING:
    from rallypoint.lab.results import SimResult

app = typer.Typer(help="Monte Carlo: whole TCS rests, platoon campaign years and squares rally "
                       "chains, many times (numpy, local cores or a Dask cluster).",
                  no_args_is_help=True)

DEFAULT_CHUNKS = 32
FAST_CHUNKS = 8
"""The fast platoon kernel's default: each chunk is an array of campaigns, so fewer, larger
chunks (each still its own spawned seed) cost less per campaign."""
ParamOpt = Annotated[list[str] | None, typer.Option(
    "--param", help="Parameter override NAME=VALUE for the run (repeatable; policy=NAME "
                    "picks the policy).")]
SweepOpt = Annotated[list[str] | None, typer.Option(
    "--sweep", help="Run a grid of variants: NAME=V1,V2,... (repeatable: every combination; "
                    "separate table values with ';'). The first combination is the baseline; "
                    "each other is compared with it, paired run by run.")]
VariantOpt = Annotated[list[Path] | None, typer.Option(
    "--variant", help="A variant TOML file (label, [parameters], [data] paths such as "
                      "\"recovery_table.inf\" = [5, 4, 3, 2, 1]) compared with the baseline "
                      "(repeatable).")]
CompareOpt = Annotated[list[str] | None, typer.Option(
    "--compare", help="Also run a variant with NAME=VALUE changed (repeatable; policy=NAME "
                      "too) and compare: means, difference, its standard error and 95 % "
                      "interval.")]


def _common(runs: int, seed: int | None, chunks: int, workers: int | None, scheduler: str | None,
            csv: Path | None, plot: Path | None, as_json: bool) -> Common:
    return Common(runs, seed, chunks, workers, scheduler, csv, plot, as_json)


@app.command()
def tcs(
    runs: RunsOpt = 1000,
    turns: Annotated[int, typer.Option(help="Turns of rest (the sheet is checked each turn the "
                                            "Implementation Table allows).")] = 24,
    policy: Annotated[str, typer.Option(help="Distribution policy: rebuild or heal_first.")]
    = "rebuild",
    scenario: Annotated[str, typer.Option(
        help="TCS scenario file, or a shipped example by name (example1, example2).")]
    = "example1",
    size: Annotated[int, typer.Option(help="Op Sheet size (row = command prep + size).")] = 1,
    loss_chance: Annotated[float, typer.Option(
        help="Each turn, the chance one living counter of the resting companies loses a step.")]
    = 0.0,
    forced_off: Annotated[float, typer.Option(
        help="Each turn, the chance each company on the sheet is forced off its center.")] = 0.0,
    fo_loss: Annotated[float, typer.Option(
        help="Each turn, the chance one of the resting side's FOs is eliminated (dead FOs roll "
             "to return every whole hour).")] = 0.0,
    param: ParamOpt = None,
    compare: CompareOpt = None,
    sweep: SweepOpt = None,
    variant: VariantOpt = None,
    seed: SeedOpt = None,
    chunks: ChunksOpt = DEFAULT_CHUNKS,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    csv: CsvOpt = None,
    plot: PlotOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A battalion's whole rest through the real TCS rules: sheet, turns, checks, distribution."""
    from rallypoint.lab import tcs_sim

    common = _common(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        labels, variants = _variants(param, compare, sweep, variant)
        path = str(tcs_sim.scenario_path(scenario))
        chances = tcs_sim.Interruptions(loss_chance, forced_off, fo_loss)
        specs = []
        for v in variants:
            chosen, data = _policy(v, policy)
            specs.append(tcs_sim.RestSpec(path, chosen, turns, size, data, chances))
        for spec in specs:
            tcs_sim.prepared(spec)
        results, elapsed = _run_variants(common, "tcs", labels, specs, tcs_sim.simulate_rest)
        comparison = emit(common, results, labels, elapsed, "simulate tcs (battalion rest)",
                          sweeping=bool(sweep) or len(variants) > 2)
        if plot:
            laws = {lb: {"turns_to_implementation": {
                float(t): float(_frac(p)) for t, p in law.items()}}
                for lb, r in zip(labels, results, strict=True)
                if (law := r.exact.get("turns_to_implementation"))}
            _plot_variants(common, results, labels, ["steps_back", "counters_back", "very_dead",
                                                     "turns_to_implementation",
                                                     "battalion_morale"],
                           f"TCS rest: {Path(path).name}, policy {policy}", comparison,
                           sweeping=bool(sweep) or len(variants) > 2, by_variant=laws)


def _variants(param: list[str] | None, compare: list[str] | None,
              sweep: list[str] | None = None,
              files: list[Path] | None = None) -> tuple[list[str], list[dict[str, Any]]]:
    """The labels and override sets of the run: ``--param`` alone; ``--param`` + ``--compare``
    when a comparison is asked for; ``--param`` + each combination of the ``--sweep`` grid; or
    ``--param``, then ``--param`` + each ``--variant`` file."""
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.lab.results import label
    from rallypoint.lab.variants import read_variant

    base = parse_overrides(param, "--param")
    if sum(bool(x) for x in (compare, sweep, files)) > 1:
        raise MalformedInputError("--compare, --sweep and --variant cannot be combined",
                                  fix="Use one of them (a --sweep can hold the compared value).")
    if sweep:
        grid = sweep_grid(sweep)
        return [label(g) for g in grid], [{**base, **g} for g in grid]
    if files:
        read = [read_variant(f) for f in files]
        return ([label(base)] + [lb for lb, _ in read],
                [base] + [{**base, **overrides} for _, overrides in read])
    other = parse_overrides(compare, "--compare") if compare else None
    variants = [base] + ([{**base, **other}] if other is not None else [])
    return variant_labels(base, other), variants


def _run_variants(common: Common, name: str, labels: list[str], specs: list[Any],
                  simulate: Callable[..., SimResult]) -> tuple[list[SimResult], float]:
    """Run ``simulate(spec, runs, entropy, chunks, backend, tick)`` once per variant."""
    def job(spec: Any) -> Any:
        return lambda b, e, tick: simulate(spec, common.runs, e, common.chunks, b, tick)

    return run_jobs(common, [(f"{name} {lb}", job(spec))
                             for lb, spec in zip(labels, specs, strict=True)])


def _policy(overrides: dict[str, Any], default: str) -> tuple[str, dict[str, Any]]:
    """``policy=NAME`` among the overrides picks the variant's policy; the rest are data
    parameters."""
    rest = dict(overrides)
    return str(rest.pop("policy", default)), rest


def _plot_variants(common: Common, results: list[SimResult], labels: list[str],
                   metrics: list[str], title: str, comparison: Any,
                   exact: dict[str, dict[float, float]] | None = None,
                   sweeping: bool = False,
                   by_variant: dict[str, dict[str, dict[float, float]]] | None = None) -> None:
    """Histograms (variants overlaid, exact law as dots); with two variants the difference per
    metric, with a sweep every variant against the baseline, in a second file."""
    from rallypoint.lab import plots

    assert common.plot is not None
    data = {lb: r.metrics for lb, r in zip(labels, results, strict=True)}
    written = [plots.histograms(common.plot, data, metrics, title, exact, by_variant)]
    written += _plot_differences(common, results, labels, metrics, title, comparison, sweeping)
    note(common, "wrote " + ", ".join(str(p) for p in written))


def _plot_differences(common: Common, results: list[SimResult], labels: list[str],
                      metrics: list[str], title: str, comparison: Any,
                      sweeping: bool) -> list[Path]:
    from rallypoint.lab import plots
    from rallypoint.lab.results import sweep

    assert common.plot is not None
    if sweeping or len(results) > 2:
        return [plots.sweep_plot(plots.companion(common.plot, "sweep"), sweep(results, labels),
                                 metrics, f"sweep: {title}, {results[0].runs:,} runs each, "
                                          "paired by seed")]
    if comparison is not None:
        return [plots.comparison_bars(plots.companion(common.plot, "compare"), comparison,
                                      metrics)]
    return []


@app.command("tcs-recovery")
def tcs_recovery(
    modifier: Annotated[int, typer.Option(help="Everything added to the die (morale, battalion "
                                               "morale, nationality, scenario).")],
    column: Annotated[list[str] | None, typer.Option(
        help="Recovery table column (inf, hwy, to, tank; repeatable; default all).")] = None,
    row: Annotated[int | None, typer.Option(
        help="Also simulate turns to implementation for this Implementation Table row.")]
    = None,
    per_turn: Annotated[int, typer.Option(help="Weighted turns accrued each turn (with --row).")]
    = 3,
    turns: Annotated[int, typer.Option(help="Turns checked (with --row).")] = 24,
    runs: RunsOpt = 1_000_000,
    seed: SeedOpt = None,
    chunks: ChunksOpt = DEFAULT_CHUNKS,
    workers: WorkersOpt = 1,
    scheduler: SchedulerOpt = None,
    csv: CsvOpt = None,
    plot: PlotOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Company recovery rolls with the vectorised kernel, beside the exact odds."""
    from rallypoint.lab import tcs_sim
    from rallypoint.lab.tcs_kernel import RecoverySpec

    common = _common(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        columns = tuple(column or ("inf", "hwy", "to", "tank"))
        spec = RecoverySpec(modifier, columns, row, per_turn, turns)
        results, elapsed = run_jobs(common, [("tcs-recovery", lambda b, e, tick:
                                              tcs_sim.simulate_recovery(spec, runs, e, chunks, b,
                                                                        tick))])
        emit(common, results, ["kernel"], elapsed, "simulate tcs-recovery (vectorised)",
             extra=_print_recovery_exact)
        if plot:
            result = results[0]
            exact = {f"steps_{c}": {float(k): float(_frac(p)) for k, p in d.items()}
                     for c, d in result.exact["steps"].items()}
            if "implementation" in result.exact:
                exact["turns_to_implementation"] = {
                    float(k): float(_frac(p))
                    for k, p in result.exact["implementation"]["turns"].items()}
            _plot_variants(common, results, ["kernel"], list(result.metrics),
                           f"recovery rolls, 1d6 {modifier:+d}", None, exact)


def _frac(text: str) -> Any:
    from fractions import Fraction

    return Fraction(text)


def _print_recovery_exact(result: SimResult) -> None:
    from rich.table import Table

    table = Table("column", "steps", "sample share", "exact", title="sample vs exact odds")
    hist = result.histograms()
    for column, dist in result.exact["steps"].items():
        counts = hist.get(f"steps_{column}", {})
        for steps, p in dist.items():
            table.add_row(column, steps, f"{counts.get(steps, 0) / result.runs:.5f}",
                          f"{p} = {float(_frac(p)):.5f}")
    console.print(table)


@app.command("tcs-fo")
def tcs_fo(
    number: Annotated[int, typer.Option(help="FO Recovery Number (AFH 12, GD'41 11, BW 9).")],
    compare_number: Annotated[int | None, typer.Option(
        help="Also run this FO Recovery Number and compare the hours to return.")] = None,
    runs: RunsOpt = 1_000_000,
    seed: SeedOpt = None,
    chunks: ChunksOpt = DEFAULT_CHUNKS,
    workers: WorkersOpt = 1,
    scheduler: SchedulerOpt = None,
    csv: CsvOpt = None,
    plot: PlotOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Hours until a dead Soviet FO returns (vectorised), optionally two numbers compared."""
    from rallypoint.lab import tcs_sim

    common = _common(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        numbers = [number] + ([compare_number] if compare_number is not None else [])
        for n in numbers:
            tcs_sim.fo_chance_ok(n)

        def job(n: int) -> Any:
            return lambda b, e, tick: tcs_sim.simulate_fo(n, runs, e, chunks, b, tick)

        labels = [f"number={n}" for n in numbers]
        results, elapsed = run_jobs(common, [(lb, job(n))
                                             for lb, n in zip(labels, numbers, strict=True)])
        comparison = emit(common, results, labels, elapsed, "simulate tcs-fo (vectorised)")
        if plot:
            exact = {}
            for lb, r in zip(labels, results, strict=True):
                p = float(_frac(r.exact["per_hour"]))
                exact[lb] = {float(h): p * (1 - p) ** (h - 1) for h in range(1, 400)}
            _plot_variants(common, results, labels, ["hours_to_return"],
                           f"hours until a dead FO returns (2d6 ≥ {', '.join(map(str, numbers))}"
                           " each hour)", comparison,
                           by_variant={lb: {"hours_to_return": law} for lb, law in exact.items()})


@app.command()
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
    from rallypoint.lab import platoon_sim

    # The fast kernel finishes thousands of campaigns before a process pool has started.
    if workers is None and engine == "fast":
        workers = 1
    if chunks is None:
        chunks = FAST_CHUNKS if engine == "fast" else DEFAULT_CHUNKS
    common = _common(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        labels, variants = _variants(param, compare, sweep, variant)
        path = str(platoon_sim.scenario_path(scenario))
        specs = [platoon_sim.PlatoonSpec(path, intensity, years, days, *_policy(v, policy),
                                         engine=engine) for v in variants]
        for spec in specs:
            platoon_sim.prepare(spec)
        results, elapsed = _run_variants(common, "platoon", labels, specs,
                                         platoon_sim.simulate_platoon)
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
                  comparison: Any, sweeping: bool) -> None:
    from rallypoint.lab import plots

    assert common.plot is not None
    variants = {lb: {k: r.series[k] for k in ("fit_tanks", "mean_fatigue", "morale",
                                              "mean_cohesion")}
                for lb, r in zip(labels, results, strict=True)}
    title = (f"platoon by day, STAND-IN battles at intensity {intensity}, "
             f"{results[0].runs:,} runs" + ("" if len(labels) > 1 else f" [{labels[0]}]"))
    written = [plots.fan_chart(common.plot, variants, title)]
    written += _plot_differences(common, results, labels, PLATOON_PLOTTED,
                                 f"platoon, intensity {intensity}", comparison, sweeping)
    note(common, "wrote " + ", ".join(str(p) for p in written))


@app.command()
def squares(
    modifier: Annotated[int | None, typer.Option(
        help="Total modifier of every rally attempt (vectorised).")] = None,
    scenario: Annotated[str | None, typer.Option(
        help="Squares battle for --leader/--unit (default: the shipped farm battle).")] = None,
    leader: Annotated[str | None, typer.Option(help="Rallying leader (a situation).")] = None,
    unit: Annotated[str | None, typer.Option(help="Testing unit (a situation).")] = None,
    kind: Annotated[str, typer.Option(help="Rally kind: disorder or sp.")] = "disorder",
    scalar: Annotated[bool, typer.Option(
        help="Run the chains through the real squares rules and campaign (needs a situation) "
             "and set them beside the vectorised kernel.")] = False,
    runs: RunsOpt = 100_000,
    seed: SeedOpt = None,
    chunks: ChunksOpt = DEFAULT_CHUNKS,
    workers: WorkersOpt = 1,
    scheduler: SchedulerOpt = None,
    csv: CsvOpt = None,
    plot: PlotOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Rally chains: a leader tests a unit until it passes or breaks, beside the exact law."""
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.lab import squares_sim

    common = _common(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        situated = leader is not None or unit is not None
        if situated == (modifier is not None):
            raise MalformedInputError("give --modifier, or a situation (--leader and --unit)",
                                      fix="e.g. --modifier 1, or --leader kempt --unit 28th.")
        base = squares_sim.ChainSpec(modifier or 0, scenario, leader, unit, kind, False)
        specs = [base] + ([squares_sim.ChainSpec(0, scenario, leader, unit, kind, True)]
                          if scalar else [])
        resolved = [squares_sim.resolve(s)[0] for s in specs]
        squares_sim.check_modifier(resolved[0].modifier)

        def job(spec: squares_sim.ChainSpec) -> Any:
            return lambda b, e, tick: squares_sim.simulate_chains(spec, runs, e, chunks, b, tick)

        labels = ["vectorised"] + (["scalar engine"] if scalar else [])
        results, elapsed = run_jobs(common, [(lb, job(s))
                                             for lb, s in zip(labels, specs, strict=True)])
        comparison = emit(common, results, labels, elapsed, "simulate squares (rally chains)",
                          extra=_print_chain_exact)
        if plot:
            exact = results[0].exact
            p = 1 / exact["mean_attempts"]
            geometric = {float(k): p * (1 - p) ** (k - 1) for k in range(1, 31)}
            _plot_variants(common, results, labels, ["attempts"],
                           f"rally chains, 1d6 {resolved[0].modifier:+d}", comparison,
                           {"attempts": geometric})


def _print_chain_exact(result: SimResult) -> None:
    exact = result.exact
    attempt = ", ".join(f"{k.replace('_', ' ')} {p}" for k, p in exact["attempt"].items())
    console.print(f"exact: each attempt {attempt}; the chain ends in a pass with "
                  f"p = {exact['passes']}, after {exact['mean_attempts']:.4g} attempts on "
                  "average", highlight=False, soft_wrap=True)
