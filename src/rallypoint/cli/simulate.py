"""``rallypoint simulate …``: Monte Carlo runs of whole rests, campaigns and rally chains.

Every command takes ``--runs``, ``--seed``, ``--chunks``, ``--workers``, ``--scheduler``,
``--csv``, ``--plot`` and ``--json``; the same seed and chunks give the same numbers on any
backend. numpy, matplotlib and dask are imported only when a command runs.
"""

from __future__ import annotations

import typer

from rallypoint.cli.simulate_scene import scene

app = typer.Typer(help="Monte Carlo: each ruleset's whole rests, campaigns or scenes, many "
                       "times (numpy, local cores or a Dask cluster).",
                  no_args_is_help=True)


@app.callback()
def _needs_the_lab() -> None:
    # Before any command imports numpy: a player's install without the lab gets one line.
    from rallypoint.cli.session import guarded
    from rallypoint.extras import Extra, require

    with guarded():
        require(Extra.LAB)


def _join_rulesets() -> None:
    """Each installed ruleset's simulate commands become ``rallypoint simulate`` commands."""
    from rallypoint.cli.generic import is_typer_app
    from rallypoint.core.registry import plugins

    for plugin in plugins().values():
        if plugin.simulate_cli is not None:
            part = plugin.load("simulate_cli", is_typer_app)
            app.registered_commands.extend(part.registered_commands)


_join_rulesets()
app.command("scene")(scene)
