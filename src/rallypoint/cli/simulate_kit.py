"""What the ``rallypoint simulate`` commands of every ruleset share: the variant options
(``--param``, ``--compare``, ``--sweep``, ``--variant``), running one job per variant, and the
plots of variants and their differences. Heavy modules are imported inside the functions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rallypoint.cli.lab_output import (
    Common,
    note,
    parse_overrides,
    run_jobs,
    sweep_grid,
    variant_labels,
)

if TYPE_CHECKING:
    from rallypoint.lab.results import SimResult

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


def options(runs: int, seed: int | None, chunks: int, workers: int | None,
            scheduler: str | None, csv: Path | None, plot: Path | None,
            as_json: bool) -> Common:
    """The options every simulate command takes, in one value."""
    return Common(runs, seed, chunks, workers, scheduler, csv, plot, as_json)


def variant_sets(param: list[str] | None, compare: list[str] | None,
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


def run_variants(common: Common, name: str, labels: list[str], specs: list[Any],
                 simulate: Callable[..., SimResult]) -> tuple[list[SimResult], float]:
    """Run ``simulate(spec, runs, entropy, chunks, backend, tick)`` once per variant."""
    def job(spec: Any) -> Any:
        return lambda b, e, tick: simulate(spec, common.runs, e, common.chunks, b, tick)

    return run_jobs(common, [(f"{name} {lb}", job(spec))
                             for lb, spec in zip(labels, specs, strict=True)])


def policy_of(overrides: dict[str, Any], default: str) -> tuple[str, dict[str, Any]]:
    """``policy=NAME`` among the overrides picks the variant's policy; the rest are data
    parameters."""
    rest = dict(overrides)
    return str(rest.pop("policy", default)), rest


def plot_variants(common: Common, results: list[SimResult], labels: list[str],
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
    written += plot_differences(common, results, labels, metrics, title, comparison, sweeping)
    note(common, "wrote " + ", ".join(str(p) for p in written))


def plot_differences(common: Common, results: list[SimResult], labels: list[str],
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


def fraction(text: str) -> Any:
    from fractions import Fraction

    return Fraction(text)


