"""``rallypoint odds …``: exact odds of every roll, from the rules' own chance nodes.

Each installed ruleset's odds commands join here through its plugin's ``odds_cli``."""

from __future__ import annotations

import typer

app = typer.Typer(help="Exact odds of every roll (fractions, from the rules' own chance nodes).",
                  no_args_is_help=True)


def _join_rulesets() -> None:
    """Each installed ruleset's odds commands become ``rallypoint odds`` commands."""
    from rallypoint.core.ruleset import plugins

    for plugin in plugins().values():
        if plugin.odds_cli is not None:
            app.registered_commands.extend(plugin.load("odds_cli").registered_commands)


_join_rulesets()
