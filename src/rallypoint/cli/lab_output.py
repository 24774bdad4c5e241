"""What every ``rallypoint simulate`` command shares: seeds, backends, progress, and output
(Rich tables, JSON, CSV files, plots). Heavy modules are imported inside the functions."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rallypoint.cli.session import console, err_console, print_json

if TYPE_CHECKING:
    from rallypoint.lab.backend import Backend
    from rallypoint.lab.results import Comparison, SimResult, Sweep

RunsOpt = Annotated[int, typer.Option(help="How many runs (campaigns, companies, chains).",
                                      min=1, max=100_000_000)]
SeedOpt = Annotated[int | None, typer.Option(
    help="Entropy of the root numpy SeedSequence (default: fresh, printed so it can be "
         "repeated).")]
ChunksOpt = Annotated[int, typer.Option(
    help="Chunks the runs are split into, each with its own spawned seed. Results depend on "
         "this, never on the worker count.", min=1, max=100_000)]
WorkersOpt = Annotated[int | None, typer.Option(
    help="Local worker processes (1 runs in this process; unset: one per core).", min=1,
    max=256)]
SchedulerOpt = Annotated[str | None, typer.Option(
    help="Dask scheduler address (e.g. tcp://10.0.0.5:8786): run the chunks on that cluster.")]


def _output_file(suffixes: tuple[str, ...]) -> Callable[[Path | None], Path | None]:
    """An option callback refusing, before any run starts, a file that could not be written
    at the end: a missing folder (not made on a typo's behalf) or a suffix not among
    ``suffixes`` (any suffix when there are none)."""
    def check(path: Path | None) -> Path | None:
        if path is None:
            return None
        if suffixes and path.suffix.lower() not in suffixes:
            raise typer.BadParameter(f"cannot write {_short(path.name)!r}: give a file ending "
                                     f"in {' or '.join(suffixes)}")
        if not path.parent.is_dir():
            raise typer.BadParameter(f"no folder {_short(str(path.parent))!r} to write into: "
                                     "make it first, or give another path")
        if path.is_dir():
            raise typer.BadParameter(f"{_short(str(path))!r} is a folder: give a file name")
        return path
    return check


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


CsvOpt = Annotated[Path | None, typer.Option(
    help="Write the per-run values to this CSV file (seed and parameters in '#' lines).",
    callback=_output_file(()))]
PlotOpt = Annotated[Path | None, typer.Option(help="Write a plot to this .png or .svg file.",
                                              callback=_output_file((".png", ".svg")))]


@dataclass(frozen=True)
class Common:
    """The options every simulate command takes."""

    runs: int
    seed: int | None
    chunks: int
    workers: int | None
    scheduler: str | None
    csv: Path | None
    plot: Path | None
    as_json: bool

    def backend(self) -> Backend:
        """Where the chunks run."""
        from rallypoint.lab.backend import Backend

        return Backend(workers=self.workers, scheduler=self.scheduler)

    def entropy(self) -> int:
        """The root entropy: ``--seed``, else fresh entropy from the OS."""
        from rallypoint.lab.rollers import entropy_of, root_sequence

        return entropy_of(root_sequence(self.seed))


Job = Callable[["Backend", int, Callable[[int], None]], "SimResult"]
"""A simulation waiting for its backend, entropy and progress callback."""


@contextmanager
def _progress(title: str, total: int, enabled: bool) -> Iterator[Callable[[int], None]]:
    if not enabled:
        yield lambda _: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    # On stderr and transient: stdout stays clean for tables, JSON and pipes.
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=err_console,
                  transient=True) as bar:
        task = bar.add_task(title, total=total)
        yield lambda done: bar.update(task, completed=done)


def run_jobs(common: Common, jobs: Sequence[tuple[str, Job]]) -> tuple[list[SimResult], float]:
    """Run each job (one per variant) on the chosen backend, with a progress bar of chunks."""
    from rallypoint.lab.backend import split_runs

    backend, entropy = common.backend(), common.entropy()
    backend.resolved_workers()
    chunks = len(split_runs(common.runs, common.chunks))
    began = time.perf_counter()
    results = []
    for label, job in jobs:
        # A bar only on a terminal: piped, it would leave a blank line on stderr per variant.
        shown = not common.as_json and err_console.is_terminal
        with _progress(f"{label} ({backend.describe()})", chunks, shown) as tick:
            results.append(job(backend, entropy, tick))
    return results, time.perf_counter() - began


def _num(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def lab_table(*columns: Any, title: str | None = None) -> Any:
    """A lab table that fits 80 columns: a rule under the header, no side or inner borders; its
    title, if any, printed now on a line of its own (a title over a narrow table would wrap)."""
    from rich import box
    from rich.table import Table

    if title is not None:
        console.print(escape(title), highlight=False)
    return Table(*columns, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))


def _metric_column(metrics: Sequence[str]) -> Any:
    """The metric names in full (folded only on a terminal too narrow even for them)."""
    from rich.table import Column

    return Column("metric", overflow="fold", min_width=min(24, max(map(len, metrics),
                                                                   default=6)))


def run_line(title: str, what: str, elapsed: float, backend: str, seed: dict[str, Any]) -> str:
    """What ran, how long, where, and the seed that repeats it, in words (the generator and
    numpy version are in ``--json``)."""
    return (f"[bold]{escape(title)}[/]: {what} in {elapsed:.2f} s ({backend}) · "
            f"seed {seed['entropy']}, {seed['chunks']} chunks (--seed repeats it)")


def print_result(result: SimResult, elapsed: float, backend: str, title: str) -> None:
    """The summary table, what the run was, its seed, and its notes."""
    console.print(run_line(title, f"{result.runs} runs", elapsed, backend, result.seed_info()),
                  highlight=False)
    rows = result.summary()
    table = lab_table(_metric_column([r["metric"] for r in rows]), "n", "mean", "se", "sd",
                     "p10", "median", "p90")
    for row in rows:
        table.add_row(row["metric"], str(row["n"]), *(_num(row[k]) for k in (
            "mean", "se", "sd", "p10", "median", "p90")))
    console.print(table)
    for note in result.notes:
        console.print(f"[dim]note: {escape(note)}[/]", highlight=False)


def print_comparison(comparison: Comparison) -> None:
    """The variants side by side (A and B, named above the table): means, B − A, its standard
    error and 95 % interval."""
    paired = comparison.rows and comparison.rows[0].paired
    console.print(f"variant comparison, A: {escape(comparison.label_a)} · B: "
                  f"{escape(comparison.label_b)} (" + ("paired run by run: same seed and chunks"
                                                       if paired else "independent runs") + ")",
                  highlight=False)
    table = lab_table(_metric_column([r.metric for r in comparison.rows]), "A", "B", "B − A",
                     "se", "95 % interval")
    for r in comparison.rows:
        table.add_row(r.metric, _num(r.mean_a), _num(r.mean_b), _num(r.diff), _num(r.se),
                      f"{_num(r.low)} … {_num(r.high)}")
    console.print(table)


def emit(common: Common, results: list[SimResult], labels: list[str], elapsed: float,
         title: str, extra: Callable[[SimResult], None] | None = None,
         sweeping: bool = False) -> Comparison | None:
    """Print (table or JSON) one result, two variants and their comparison, or a sweep's
    variants against its baseline; write the CSV."""
    from rallypoint.lab.results import compare

    if len(results) > 2 or sweeping:
        emit_sweep(common, results, labels, elapsed, title, extra)
        return None
    comparison = compare(results[0], results[1], labels[0], labels[1]) if len(results) > 1 \
        else None
    if common.as_json:
        print_json(comparison.to_json() if comparison else results[0].to_json())
    else:
        backend = common.backend().describe()
        for label, result in zip(labels, results, strict=True):
            print_result(result, elapsed / len(results),
                         backend, f"{title} [{label}]" if comparison else title)
            if extra:
                extra(result)
        if comparison:
            print_comparison(comparison)
    if common.csv:
        paths = list(results[0].write_csv(common.csv))
        if comparison:
            from rallypoint.lab.plots import companion

            paths += results[1].write_csv(companion(common.csv, "b"))
        note(common, "wrote " + ", ".join(str(p) for p in paths))
    return comparison


def note(common: Common, text: str) -> None:
    """A line about files written: stdout normally, stderr under ``--json``."""
    (err_console if common.as_json else console).print(escape(text), highlight=False,
                                                       soft_wrap=True)


def typed_value(text: str) -> Any:
    """``true``/``false``, a whole number, a decimal, a comma-separated list of them (a table's
    column: ``5,4,3,2,1``), else the text."""
    if "," in text:
        return [typed_value(part.strip()) for part in text.split(",")]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def parse_overrides(values: list[str] | None, option: str) -> dict[str, Any]:
    """``--param name=value`` → ``{name: value}`` with booleans, numbers and lists typed."""
    from rallypoint.cli.session import pairs

    return {key: typed_value(text) for key, text in pairs(values, option).items()}


def sweep_grid(values: list[str]) -> list[dict[str, Any]]:
    """``--sweep a=1,2 --sweep b=x,y`` → every combination, the first values' first.

    Values are separated by ``,`` — or by ``;`` when one holds a table column
    (``recovery_table.inf=5,4,3,2,1;4,4,3,2,1``).
    """
    import itertools

    from rallypoint.cli.session import pairs
    from rallypoint.core.errors import MalformedInputError

    axes: list[list[tuple[str, Any]]] = []
    for name, text in pairs(values, "--sweep").items():
        parts = text.split(";") if ";" in text else text.split(",")
        choices = [typed_value(p.strip()) for p in parts if p.strip()]
        if len(choices) < 2 and len(values) == 1:
            raise MalformedInputError(f"--sweep {name}={text!r} holds one value",
                                      fix=f"Give two or more, like --sweep {name}=A,B.")
        axes.append([(name, c) for c in choices])
    return [dict(combo) for combo in itertools.product(*axes)]


def variant_labels(base: dict[str, Any], other: dict[str, Any] | None) -> list[str]:
    """Labels of the variants: A's overrides (or ``defaults``) and B's."""
    from rallypoint.lab.results import label

    labels = [label(base)]
    if other is not None:
        labels.append(label({**base, **other}))
    return labels


def emit_sweep(common: Common, results: list[SimResult], labels: list[str], elapsed: float,
               title: str, extra: Callable[[SimResult], None] | None = None) -> Sweep:
    """A sweep: each variant's summary, then per metric every variant's mean and its difference
    to the baseline (the first) with the paired 95 % interval; CSV per variant."""
    from rallypoint.lab.results import sweep

    found = sweep(results, labels)
    if common.as_json:
        print_json(found.to_json())
    else:
        what = f"{len(results)} variants × {results[0].runs} runs"
        console.print(run_line(title, what, elapsed, common.backend().describe(),
                               results[0].seed_info()) + " (every variant in full: --json)",
                      highlight=False)
        if extra:
            extra(results[0])
        print_sweep(found)
        for note_text in results[0].notes:
            console.print(f"[dim]note: {escape(note_text)}[/]", highlight=False)
    if common.csv:
        from rallypoint.lab.plots import companion

        paths: list[Path] = []
        for n, result in enumerate(results):
            paths += result.write_csv(common.csv if n == 0 else companion(common.csv, f"v{n}"))
        note(common, "wrote " + ", ".join(str(p) for p in paths))
    return found


def print_sweep(found: Sweep) -> None:
    """One table: per metric (its name on a line of its own, so long names and long variant
    labels share the width), every variant's mean, its difference to the baseline (the first
    variant), the paired standard error and 95 % interval."""
    from rich.table import Column
    from rich.text import Text

    from rallypoint.lab.results import short_labels

    short, names = short_labels(found.labels)
    base, labels = short[0], dict(zip(found.labels, short, strict=True))
    metrics = list(found.results[0].metrics)
    console.print(f"sweep over {escape(names)}: {len(found.labels)} variants, each against the "
                  f"baseline {escape(base)} (paired run by run: same seed and chunks)",
                  highlight=False)
    table = lab_table(Column("metric, variant", overflow="fold"), "mean", "− baseline", "se",
                      Column("95 % interval", overflow="fold"))
    summaries = {row["metric"]: row for row in found.results[0].summary()}
    for metric in metrics:
        table.add_row(Text(metric, style="bold"), "", "", "", "")
        table.add_row(f"  {base}", _num(summaries[metric]["mean"]), "baseline", "", "")
        rows = [next((r for r in rs if r.metric == metric), None) for rs in found.rows.values()]
        for lb, r in zip(found.rows, rows, strict=True):
            if r is None:
                table.add_row(f"  {labels[lb]}", "–", "", "", "")
                continue
            table.add_row(f"  {labels[lb]}", _num(r.mean_b), _num(r.diff), _num(r.se),
                          f"{_num(r.low)} … {_num(r.high)}")
    console.print(table)


def pct(text: str) -> str:
    """A percentage to two decimals that never rounds a possible event to 0 or a chance short
    of certainty to 100."""
    p = Fraction(text)
    shown = f"{float(p) * 100:.2f}%"
    if 0 < p < 1 and shown in ("0.00%", "100.00%"):
        return "< 0.01%" if shown == "0.00%" else "> 99.99%"
    return shown


def odds_table(title: str, rows: dict[str, str], key: str = "outcome") -> None:
    """Exact odds by outcome: the fraction and its percentage."""
    table = lab_table(key, "p", "%", title=title)
    for k, p in rows.items():
        table.add_row(k, p, pct(p))
    console.print(table)
