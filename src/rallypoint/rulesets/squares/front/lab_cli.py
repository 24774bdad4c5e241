"""Squares in the lab: ``rallypoint odds squares-rally`` and ``rallypoint simulate squares``.

Joined to ``rallypoint odds`` and ``rallypoint simulate`` through the squares plugin."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rallypoint.cli.kit import (
    DEFAULT_CHUNKS,
    ChunksOpt,
    CsvOpt,
    JsonOpt,
    PlotOpt,
    RunsOpt,
    SchedulerOpt,
    SeedOpt,
    WorkersOpt,
    console,
    emit,
    guarded,
    lab_table,
    odds_table,
    options,
    plot_variants,
    print_json,
    run_jobs,
    shipped_scenario,
)

if TYPE_CHECKING:
    from rallypoint.lab.kit import SimResult

odds = typer.Typer()
"""The ruleset's commands of ``rallypoint odds`` (joined through its plugin's ``odds_cli``)."""


@odds.command("squares-rally")
def squares_rally_odds(
    modifier: Annotated[int | None, typer.Option(
        help="Total modifier of the rally test (one die + M: pass on 6+, break on 0 or less).")]
    = None,
    scenario: Annotated[Path | None, typer.Option(
        help="A squares battle (a file, or a shipped one by name: farm): the odds of every "
             "rally allowed at its start, each modifier named.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """A rally test's chance to pass, do nothing or break: by modifier, or by situation."""
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.rulesets.squares.front import odds

    with guarded():
        if (modifier is None) == (scenario is None):
            raise MalformedInputError("give --modifier or --scenario (one of them)",
                                      fix="e.g. --modifier 1, or --scenario farm.")
        if modifier is not None:
            result: Any = odds.squares_rally(modifier)
        else:
            assert scenario is not None
            result = odds.squares_situations(shipped_scenario(scenario))
    if as_json:
        print_json(result)
        return
    if modifier is not None:
        odds_table(f"rally test, 1d6 {modifier:+d}",
               {k: result[k] for k in ("pass", "no_effect", "break") if k in result})
        return

    table = lab_table("leader", "unit", "rally", "modifiers", "M", "pass", "no effect",
                      "break", title=f"rallies allowed at the start of {scenario}")
    for row in result:
        named = "\n".join(f"{m['value']:+d} {m['name']}" for m in row["modifiers"])
        table.add_row(row["leader"], row["unit"], row["rally"], named or "none",
                      f"{row['modifier']:+d}",
                      *(row.get(k, "0") for k in ("pass", "no_effect", "break")))
    console.print(table)


simulate = typer.Typer()
"""The ruleset's commands of ``rallypoint simulate`` (joined through its plugin's
``simulate_cli``)."""


@simulate.command()
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
    from rallypoint.rulesets.squares.front import lab_sim as squares_sim

    common = options(runs, seed, chunks, workers, scheduler, csv, plot, as_json)
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
            plot_variants(common, results, labels, ["attempts"],
                           f"rally chains, 1d6 {resolved[0].modifier:+d}", comparison,
                           {"attempts": geometric})


def _print_chain_exact(result: SimResult) -> None:
    exact = result.exact
    attempt = ", ".join(f"{k.replace('_', ' ')} {p}" for k, p in exact["attempt"].items())
    console.print(f"exact: each attempt {attempt}; the chain ends in a pass with "
                  f"p = {exact['passes']}, after {exact['mean_attempts']:.4g} attempts on "
                  "average", highlight=False, soft_wrap=True)
