"""TCS in the lab: ``rallypoint odds tcs-recovery``, ``tcs-implementation``, ``tcs-fo`` and
``tcs-morale``; ``rallypoint simulate tcs``, ``tcs-recovery`` and ``tcs-fo``.

Joined to ``rallypoint odds`` and ``rallypoint simulate`` through the tcs plugin."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rallypoint.cli.kit import (
    DEFAULT_CHUNKS,
    ChunksOpt,
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
    fraction,
    guarded,
    lab_table,
    odds_table,
    options,
    pct,
    plot_variants,
    policy_of,
    print_json,
    run_jobs,
    run_variants,
    variant_sets,
)

if TYPE_CHECKING:
    from rallypoint.lab.kit import SimResult

MAX_HORIZON = 500
"""Most turns (or FO hours) an exact table runs to: far past any TCS scenario's length, and the
fractions of longer ones run to thousands of digits."""

odds = typer.Typer()
"""The ruleset's commands of ``rallypoint odds`` (joined through its plugin's ``odds_cli``)."""


@odds.command("tcs-recovery")
def tcs_recovery_odds(
    modifier: Annotated[int, typer.Option(help="Everything added to the die (morale, "
                                               "battalion morale, nationality, scenario).")],
    as_json: JsonOpt = False,
) -> None:
    """Steps recovered on each column of the recovery table for one die + MODIFIER."""

    from rallypoint.rulesets.tcs.front import odds

    result = odds.tcs_recovery(modifier)
    if as_json:
        print_json(result)
        return
    table = lab_table("column", "steps: p", title=f"recovery roll, 1d6 {modifier:+d}")
    for column, dist in result["columns"].items():
        table.add_row(column, ", ".join(f"{k}: {p} ({pct(p)})" for k, p in dist.items()))
    console.print(table)


@odds.command("tcs-implementation")
def tcs_implementation_odds(
    row: Annotated[int, typer.Option(help="Command prep + Op Sheet size.", min=1, max=20)],
    weighted_turns: Annotated[int, typer.Option(help="Weighted turns accrued.", min=0,
                                                max=10_000)],
    per_turn: Annotated[int | None, typer.Option(
        help="Weighted turns added each later turn: show the turns until implementation.",
        min=0, max=10_000)] = None,
    horizon: Annotated[int, typer.Option(help="Turns to show with --per-turn.", min=1,
                                         max=MAX_HORIZON)] = 24,
    as_json: JsonOpt = False,
) -> None:
    """Chance a Recovery Op Sheet implements: a d66 against the Prep. Defense line's cell."""
    from rallypoint.rulesets.tcs.front import odds

    with guarded():
        result = odds.tcs_implementation(row, weighted_turns, per_turn, horizon)
    if as_json:
        print_json(result)
        return
    console.print(f"row {row}, {weighted_turns} weighted turns → column {result['column']}, "
                  f"needs {result['needed'] or '–'}: P = {result['p']} ({pct(result['p'])})",
                  highlight=False)
    if per_turn is not None:
        _turns_table(result, per_turn)
        later = result["later"]
        exact = f" = {later}" if len(later) <= 24 else ""
        console.print(f"not within {horizon} turns: {pct(later)}{exact}", highlight=False)


def _turns_table(result: dict[str, Any], per_turn: int) -> None:
    """Turn, the chance of implementing on it and by it, as percentages (the exact fractions,
    which grow to 30-digit denominators, are in ``--json``)."""

    if not result["turns"]:
        return
    table = lab_table("turn", "on this turn", "by this turn",
                      title=f"turns until implementation (+{per_turn} weighted turns a turn; "
                            "exact fractions: --json)")
    for turn, p in result["turns"].items():
        table.add_row(turn, pct(p), pct(result["cumulative"][turn]))
    console.print(table)


@odds.command("tcs-fo")
def tcs_fo_odds(
    number: Annotated[int, typer.Option(help="FO Recovery Number (AFH 12, GD'41 11, BW 9).")],
    horizon: Annotated[int, typer.Option(help="Hours to show.", min=1, max=MAX_HORIZON)] = 24,
    as_json: JsonOpt = False,
) -> None:
    """A dead Soviet FO's chance to return each whole hour, and hours until he does."""
    from rallypoint.rulesets.tcs.front import odds

    result = odds.tcs_fo(number, horizon)
    if as_json:
        print_json(result)
        return
    console.print(f"2d6 ≥ {number}: {result['per_hour']} per hour ({pct(result['per_hour'])})",
                  highlight=False)
    odds_table("hours until the FO returns", result["hours"], "hour")


@odds.command("tcs-morale")
def tcs_morale_odds(as_json: JsonOpt = False) -> None:
    """Battalion morale points recovered (one die halved, rounded up)."""
    from rallypoint.rulesets.tcs.front import odds

    result = odds.tcs_morale()
    if as_json:
        print_json(result)
        return
    odds_table("battalion morale recovery", result["points"], "points")


simulate = typer.Typer()
"""The ruleset's commands of ``rallypoint simulate`` (joined through its plugin's
``simulate_cli``)."""


@simulate.command()
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
    from rallypoint.rulesets.tcs.front import lab_sim

    common = options(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        labels, variants = variant_sets(param, compare, sweep, variant)
        path = str(lab_sim.scenario_path(scenario))
        chances = lab_sim.Interruptions(loss_chance, forced_off, fo_loss)
        specs = []
        for v in variants:
            chosen, data = policy_of(v, policy)
            specs.append(lab_sim.RestSpec(path, chosen, turns, size, data, chances))
        for spec in specs:
            lab_sim.prepared(spec)
        results, elapsed = run_variants(common, "tcs", labels, specs, lab_sim.simulate_rest)
        comparison = emit(common, results, labels, elapsed, "simulate tcs (battalion rest)",
                          sweeping=bool(sweep) or len(variants) > 2)
        if plot:
            laws = {lb: {"turns_to_implementation": {
                float(t): float(fraction(p)) for t, p in law.items()}}
                for lb, r in zip(labels, results, strict=True)
                if (law := r.exact.get("turns_to_implementation"))}
            plot_variants(common, results, labels, ["steps_back", "counters_back", "very_dead",
                                                     "turns_to_implementation",
                                                     "battalion_morale"],
                           f"TCS rest: {Path(path).name}, policy {policy}", comparison,
                           sweeping=bool(sweep) or len(variants) > 2, by_variant=laws)


@simulate.command("tcs-recovery")
def tcs_recovery(
    modifier: Annotated[int, typer.Option(help="Everything added to the die (morale, battalion "
                                               "morale, nationality, scenario).")],
    column: Annotated[list[str] | None, typer.Option(
        help="Recovery table column (inf, hwy, to, tank; repeatable; default all).")] = None,
    row: Annotated[int | None, typer.Option(
        help="Also simulate turns to implementation for this Implementation Table row.")]
    = None,
    per_turn: Annotated[int, typer.Option(help="Weighted turns accrued each turn (with --row).",
                                          min=0, max=10_000)] = 3,
    turns: Annotated[int, typer.Option(help="Turns checked (with --row).", min=1,
                                       max=MAX_HORIZON)] = 24,
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
    from rallypoint.rulesets.tcs.front import lab_sim
    from rallypoint.rulesets.tcs.front.lab_kernel import RecoverySpec

    common = options(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        columns = tuple(column or ("inf", "hwy", "to", "tank"))
        spec = RecoverySpec(modifier, columns, row, per_turn, turns)
        results, elapsed = run_jobs(common, [("tcs-recovery", lambda b, e, tick:
                                              lab_sim.simulate_recovery(spec, runs, e, chunks, b,
                                                                        tick))])
        emit(common, results, ["kernel"], elapsed, "simulate tcs-recovery",
             extra=_print_recovery_exact)
        if plot:
            result = results[0]
            exact = {f"steps_{c}": {float(k): float(fraction(p)) for k, p in d.items()}
                     for c, d in result.exact["steps"].items()}
            if "implementation" in result.exact:
                exact["turns_to_implementation"] = {
                    float(k): float(fraction(p))
                    for k, p in result.exact["implementation"]["turns"].items()}
            plot_variants(common, results, ["kernel"], list(result.metrics),
                           f"recovery rolls, 1d6 {modifier:+d}", None, exact)


def _print_recovery_exact(result: SimResult) -> None:
    table = lab_table("column", "steps", "sample share", "exact", title="sample vs exact odds")
    hist = result.histograms()
    for column, dist in result.exact["steps"].items():
        counts = hist.get(f"steps_{column}", {})
        for steps, p in dist.items():
            table.add_row(column, steps, f"{counts.get(steps, 0) / result.runs:.5f}",
                          f"{p} = {float(fraction(p)):.5f}")
    console.print(table)


@simulate.command("tcs-fo")
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
    from rallypoint.rulesets.tcs.front import lab_sim

    common = options(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
    with guarded():
        numbers = [number] + ([compare_number] if compare_number is not None else [])
        for n in numbers:
            lab_sim.fo_chance_ok(n)

        def job(n: int) -> Any:
            return lambda b, e, tick: lab_sim.simulate_fo(n, runs, e, chunks, b, tick)

        labels = [f"number={n}" for n in numbers]
        results, elapsed = run_jobs(common, [(lb, job(n))
                                             for lb, n in zip(labels, numbers, strict=True)])
        comparison = emit(common, results, labels, elapsed, "simulate tcs-fo")
        if plot:
            exact = {}
            for lb, r in zip(labels, results, strict=True):
                p = float(fraction(r.exact["per_hour"]))
                exact[lb] = {float(h): p * (1 - p) ** (h - 1) for h in range(1, 400)}
            plot_variants(common, results, labels, ["hours_to_return"],
                           f"hours until a dead FO returns (2d6 ≥ {', '.join(map(str, numbers))}"
                           " each hour)", comparison,
                           by_variant={lb: {"hours_to_return": law} for lb, law in exact.items()})


