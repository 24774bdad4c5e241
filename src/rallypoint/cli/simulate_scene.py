"""``rallypoint simulate scene``: any ruleset's lab part, from the command line.

A ruleset whose plugin names a ``lab`` part (:class:`rallypoint.core.parts.LabPart`, the
simulation its campaign's lab page draws) is simulated here too, whether or not it brings
simulate commands of its own: the same runs, through its real rules, summarised per metric.
A ruleset without one falls back on the rolls its rules declare open at the scenario's start,
each sampled beside its exact odds (:mod:`rallypoint.lab.declared`).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from rallypoint.cli.lab_output import lab_table
from rallypoint.cli.session import JsonOpt, console, guarded, print_json
from rallypoint.core.errors import MalformedInputError, UnknownIdError
from rallypoint.core.parts import LabPart, is_lab_part
from rallypoint.core.registry import plugin, ruleset_line_fix

if TYPE_CHECKING:
    from rallypoint.lab.declared import RollSample

ScenarioArg = Annotated[Path, typer.Argument(
    help="A scenario file, or a shipped scenario's name (`rallypoint scenarios` lists them).",
    show_default=False)]


def scene(scenario: ScenarioArg,
          runs: Annotated[int, typer.Option(help="How many runs.", min=1, max=100_000)] = 200,
          seed: Annotated[int, typer.Option(help="The runs' seed (the same seed, the same "
                                                 "runs).")] = 1,
          as_json: JsonOpt = False) -> None:
    """Simulate a scenario through its ruleset's lab part (the lab page's simulation), in this
    process: each metric's mean, least and greatest over the runs."""
    from rallypoint.cli.scenario_titles import shipped_scenario

    with guarded():
        path = shipped_scenario(scenario)
        name, part = _lab_part_of(path)
        if part is None:
            rolls = _declared_rolls(name, path, runs, seed)
        else:
            values = part.simulate(path, runs, seed)
    if part is None:
        _print_rolls(name, path, runs, seed, rolls, as_json=as_json)
        return
    summary = {metric: _summary(values[metric]) for metric in part.metrics}
    if as_json:
        print_json({"ruleset": name, "scenario": path.stem, "runs": runs, "seed": seed,
                    "metrics": summary})
        return
    console.print(f"{escape(path.stem)} ({name}): {runs} runs, seed {seed}", highlight=False)
    table = lab_table("metric", "mean", "least", "greatest")
    for metric, found in summary.items():
        table.add_row(metric, *(_shown(found[k]) for k in ("mean", "least", "greatest")))
    console.print(table)


def _lab_part_of(path: Path) -> tuple[str, LabPart | None]:
    """The ruleset a scenario file names and its lab part (``None``: it names none).

    Raises:
        MalformedInputError: The file cannot be read or names no ruleset.
        UnknownIdError: No such ruleset.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MalformedInputError(
            f"cannot read the scenario {str(path)!r}: {exc}", where=str(path),
            fix="Give a scenario file or a shipped scenario's name.") from None
    name = data.get("ruleset")
    if not isinstance(name, str):
        raise MalformedInputError(f"{path.name!r} does not say which ruleset it is for",
                                  where=f"{path}:1", fix=ruleset_line_fix())
    found = plugin(name)
    if found.lab is None:
        return name, None
    part = found.load("lab", is_lab_part)
    return name, part


def _declared_rolls(name: str, path: Path, runs: int, seed: int) -> tuple[RollSample, ...]:
    """The generic lab run of a ruleset without a lab part: its declared rolls, sampled.

    Raises:
        UnknownIdError: Its rules declare no roll open at the scenario's start either.
    """
    # Imported here: the lab's dice import numpy, which no other command should pay for
    # (tests/test_instant.py).
    from rallypoint.lab.declared import declared_at_start, sample_declared

    nodes = declared_at_start(name, path)
    if not nodes:
        raise UnknownIdError(
            f"the {name} ruleset has no lab part to simulate and declares no roll open at the "
            f"start of {path.stem!r}",
            fix="`rallypoint simulate --help` lists what the lab runs.")
    return sample_declared(nodes, runs, seed)


def _print_rolls(name: str, path: Path, runs: int, seed: int, rolls: tuple[RollSample, ...], *,
                 as_json: bool) -> None:
    if as_json:
        print_json({"ruleset": name, "scenario": path.stem, "runs": runs, "seed": seed,
                    "rolls": [{"title": r.title, "dice": r.dice, "outcomes": [
                        {"outcome": o.outcome, "exact": str(o.exact), "seen": o.seen}
                        for o in r.outcomes]} for r in rolls]})
        return
    console.print(f"{escape(path.stem)} ({name}): {runs} runs, seed {seed}, of each roll open "
                  "at the start (no lab part)", highlight=False)
    for sampled in rolls:
        table = lab_table("outcome", "exact", "seen", "share",
                          title=f"{sampled.title} ({sampled.dice})")
        for o in sampled.outcomes:
            table.add_row(escape(o.outcome), f"{o.exact} ({float(o.exact):.1%})", str(o.seen),
                          f"{o.seen / sampled.runs:.1%}")
        console.print(table)


def _summary(values: Sequence[float]) -> dict[str, float | None]:
    seen = [float(v) for v in values if not math.isnan(float(v))]
    if not seen:
        return {"mean": None, "least": None, "greatest": None}
    return {"mean": sum(seen) / len(seen), "least": min(seen), "greatest": max(seen)}


def _shown(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}".rstrip("0").rstrip(".")
