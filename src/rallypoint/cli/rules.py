"""``rallypoint rules …``: what each ruleset reads into its seed text, for a player.

Generic: the readings come from each ruleset's plugin (its optional ``readings`` part), so this
module names no ruleset.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Annotated

import typer

from rallypoint.cli.session import JsonOpt, console, current, guarded, print_json
from rallypoint.core.readings import Reading, readings_of
from rallypoint.core.registry import get_ruleset, plugins

app = typer.Typer(help="The rules as this program reads them: the clauses a seed leaves open.",
                  no_args_is_help=True)


@app.command()
def readings(
    ruleset: Annotated[str | None, typer.Argument(
        help="A ruleset's name (default: every installed ruleset, or the --campaign's).",
        show_default=False)] = None,
    campaign: Annotated[str | None, typer.Option(
        "--campaign", "-c", help="Show this campaign's ruleset, with the setting the campaign "
        "was created with beside each default.", show_default=False)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Every clause the seed leaves open: the reading taken, why, and the switch for the other.

    A switch is a parameter of the ruleset's data file; a scenario sets it in its
    [parameters] table. A campaign keeps the settings it was created with.
    """
    with guarded():
        found = _gather(ruleset, campaign)
    if as_json:
        print_json([{"ruleset": name, "readings": [r.model_dump(mode="json") for r in listed]}
                    for name, _, listed in found])
        return
    for index, (name, title, listed) in enumerate(found):
        if index:
            console.print()
        _print_ruleset(name, title, listed)


def _gather(ruleset: str | None, campaign: str | None
            ) -> list[tuple[str, str, tuple[Reading, ...]]]:
    """(name, title, readings) of the rulesets asked for; with a campaign, its own settings."""
    if campaign is not None:
        c = current(campaign)
        name = c.ruleset.name
        if ruleset is not None and ruleset != name:
            from rallypoint.core.errors import MalformedInputError

            raise MalformedInputError(
                f"campaign {campaign!r} is a {name} campaign, not {ruleset}",
                where="RULESET", fix="Leave the ruleset out, or name the campaign's own.")
        return [(name, c.ruleset.title, readings_of(name, c.created.rules_data))]
    names = [ruleset] if ruleset is not None else list(plugins())
    return [(name, get_ruleset(name).title, readings_of(name)) for name in names]


def _print_ruleset(name: str, title: str, listed: Sequence[Reading]) -> None:
    """One ruleset's readings, each wrapped to the terminal with its labels hanging."""
    width = max(console.width, 40)
    _say(f"{name}: {title}", width)
    count = f"{len(listed)} reading{'s' if len(listed) != 1 else ''}"
    _say(f"{count}; a scenario sets a switch in its [parameters] table." if listed
         else "no readings listed.", width)
    for number, reading in enumerate(listed, 1):
        console.print()
        _say(f"{number}. {reading.clause}", width, hang="   ")
        _say(f"   reading: {reading.reading}", width, hang="            ")
        _say(f"   why: {reading.why}", width, hang="        ")
        _say(f"   switch: {reading.switch} = {reading.default}", width, hang="           ")
        if reading.value is not None:
            _say(f"   this campaign: {reading.switch} = {reading.value}", width,
                 hang="           ")


def _say(text: str, width: int, hang: str = "") -> None:
    """Print ``text`` wrapped to ``width``, continuation lines indented by ``hang``."""
    wrapped = textwrap.fill(text, width=width, subsequent_indent=hang,
                            break_long_words=False, break_on_hyphens=False)
    console.print(wrapped, markup=False, highlight=False, soft_wrap=True)
