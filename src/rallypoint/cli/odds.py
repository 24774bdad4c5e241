"""``rallypoint odds …``: exact odds of every roll, from the rules' own chance nodes."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer

from rallypoint.cli.session import JsonOpt, console, guarded, print_json

app = typer.Typer(help="Exact odds of every roll (fractions, from the rules' own chance nodes).",
                  no_args_is_help=True)
tcs_odds = typer.Typer()
"""The TCS commands of ``rallypoint odds`` (joined through the tcs plugin's ``odds_cli``)."""
platoon_odds = typer.Typer()
"""The platoon commands of ``rallypoint odds``."""
squares_odds = typer.Typer()
"""The squares commands of ``rallypoint odds``."""


def _pct(text: str) -> str:
    """A percentage to two decimals that never rounds a possible event to 0 or a chance short
    of certainty to 100."""
    p = Fraction(text)
    shown = f"{float(p) * 100:.2f}%"
    if 0 < p < 1 and shown in ("0.00%", "100.00%"):
        return "< 0.01%" if shown == "0.00%" else "> 99.99%"
    return shown


def _table(title: str, rows: dict[str, str], key: str = "outcome") -> None:
    from rich.table import Table

    table = Table(key, "p", "%", title=title)
    for k, p in rows.items():
        table.add_row(k, p, _pct(p))
    console.print(table)


@tcs_odds.command("tcs-recovery")
def tcs_recovery(
    modifier: Annotated[int, typer.Option(help="Everything added to the die (morale, "
                                               "battalion morale, nationality, scenario).")],
    as_json: JsonOpt = False,
) -> None:
    """Steps recovered on each column of the recovery table for one die + MODIFIER."""
    from rich.table import Table

    from rallypoint.lab import odds

    result = odds.tcs_recovery(modifier)
    if as_json:
        print_json(result)
        return
    table = Table("column", "steps: p", title=f"recovery roll, 1d6 {modifier:+d}")
    for column, dist in result["columns"].items():
        table.add_row(column, ", ".join(f"{k}: {p} ({_pct(p)})" for k, p in dist.items()))
    console.print(table)


@tcs_odds.command("tcs-implementation")
def tcs_implementation(
    row: Annotated[int, typer.Option(help="Command prep + Op Sheet size.", min=1, max=20)],
    weighted_turns: Annotated[int, typer.Option(help="Weighted turns accrued.", min=0,
                                                max=10_000)],
    per_turn: Annotated[int | None, typer.Option(
        help="Weighted turns added each later turn: show the turns until implementation.")]
    = None,
    horizon: Annotated[int, typer.Option(help="Turns to show with --per-turn.")] = 24,
    as_json: JsonOpt = False,
) -> None:
    """Chance a Recovery Op Sheet implements (Prep. Defense line)."""
    from rallypoint.lab import odds

    with guarded():
        result = odds.tcs_implementation(row, weighted_turns, per_turn, horizon)
    if as_json:
        print_json(result)
        return
    console.print(f"row {row}, {weighted_turns} weighted turns → column {result['column']}, "
                  f"needs {result['needed'] or '–'}: P = {result['p']} ({_pct(result['p'])})",
                  highlight=False)
    if per_turn is not None:
        _turns_table(result, per_turn)
        later = result["later"]
        exact = f" = {later}" if len(later) <= 24 else ""
        console.print(f"not within {horizon} turns: {_pct(later)}{exact}", highlight=False)


def _turns_table(result: dict[str, Any], per_turn: int) -> None:
    """Turn, the chance of implementing on it and by it, as percentages (the exact fractions,
    which grow to 30-digit denominators, are in ``--json``)."""
    from rich.table import Table

    if not result["turns"]:
        return
    table = Table("turn", "on this turn", "by this turn",
                  title=f"turns until implementation (+{per_turn} weighted turns a turn)",
                  caption="exact fractions: --json")
    for turn, p in result["turns"].items():
        table.add_row(turn, _pct(p), _pct(result["cumulative"][turn]))
    console.print(table)


@tcs_odds.command("tcs-fo")
def tcs_fo(
    number: Annotated[int, typer.Option(help="FO Recovery Number (AFH 12, GD'41 11, BW 9).")],
    horizon: Annotated[int, typer.Option(help="Hours to show.")] = 24,
    as_json: JsonOpt = False,
) -> None:
    """A dead Soviet FO's chance to return each whole hour, and hours until he does."""
    from rallypoint.lab import odds

    result = odds.tcs_fo(number, horizon)
    if as_json:
        print_json(result)
        return
    console.print(f"2d6 ≥ {number}: {result['per_hour']} per hour ({_pct(result['per_hour'])})",
                  highlight=False)
    _table("hours until the FO returns", result["hours"], "hour")


@tcs_odds.command("tcs-morale")
def tcs_morale(as_json: JsonOpt = False) -> None:
    """Battalion morale points recovered (one die halved, rounded up)."""
    from rallypoint.lab import odds

    result = odds.tcs_morale()
    if as_json:
        print_json(result)
        return
    _table("battalion morale recovery", result["points"], "points")


@platoon_odds.command("platoon")
def platoon(as_json: JsonOpt = False) -> None:
    """The platoon's rolls: arrival delays, transfers, wound healing, section 8 draws."""
    from rallypoint.lab import odds

    result: dict[str, Any] = odds.platoon()
    if as_json:
        print_json(result)
        return
    for key in ("man_arrival_days", "tank_arrival_days", "light_wound_days"):
        _table(key.replace("_", " "), result[key], "days")
    console.print(f"an arriving man is a transfer: {result['transfer']}", highlight=False)
    for attribute, by_progress in result["section8_by_progress"].items():
        for progress, dist in by_progress.items():
            console.print(f"{attribute} at progress {progress}: " + ", ".join(
                f"{k}: {p}" for k, p in dist.items()), highlight=False, soft_wrap=True)


@squares_odds.command("squares-rally")
def squares_rally(
    modifier: Annotated[int | None, typer.Option(
        help="Total modifier of the rally test (one die + M: pass on 6+, break on 0 or less).")]
    = None,
    scenario: Annotated[Path | None, typer.Option(
        help="A squares battle: the odds of every rally allowed at its start, each modifier "
             "named.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """A rally test's chance to pass, do nothing or break: by modifier, or by situation."""
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.lab import odds

    with guarded():
        if (modifier is None) == (scenario is None):
            raise MalformedInputError("give --modifier or --scenario (one of them)",
                                      fix="e.g. --modifier 1, or --scenario farm.toml.")
        if modifier is not None:
            result: Any = odds.squares_rally(modifier)
        else:
            assert scenario is not None
            result = odds.squares_situations(scenario)
    if as_json:
        print_json(result)
        return
    if modifier is not None:
        _table(f"rally test, 1d6 {modifier:+d}",
               {k: result[k] for k in ("pass", "no_effect", "break") if k in result})
        return
    from rich.table import Table

    table = Table("leader", "unit", "rally", "modifiers", "M", "pass", "no effect", "break",
                  title=f"rallies allowed at the start of {scenario}")
    for row in result:
        named = "\n".join(f"{m['value']:+d} {m['name']}" for m in row["modifiers"])
        table.add_row(row["leader"], row["unit"], row["rally"], named or "none",
                      f"{row['modifier']:+d}",
                      *(row.get(k, "0") for k in ("pass", "no_effect", "break")))
    console.print(table)


def _join_rulesets() -> None:
    """Each installed ruleset's odds commands become ``rallypoint odds`` commands."""
    from rallypoint.core.ruleset import plugins

    for plugin in plugins().values():
        if plugin.odds_cli is not None:
            app.registered_commands.extend(plugin.load("odds_cli").registered_commands)


_join_rulesets()
