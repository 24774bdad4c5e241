"""``rallypoint odds …``: exact odds of every roll, from the rules' own chance nodes.

Each installed ruleset's odds commands join here through its plugin's ``odds_cli``; ``odds now``
works for every ruleset that declares its open rolls (:class:`~rallypoint.core.ruleset.
ChanceNodes`), with or without commands of its own."""

from __future__ import annotations

import typer

from rallypoint.cli.session import CampaignOpt, JsonOpt, console, current, print_json

app = typer.Typer(help="Exact odds of every roll (fractions, from the rules' own chance nodes).",
                  no_args_is_help=True)


@app.command("now")
def now(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Exact odds of each roll the campaign's rules could make now (any ruleset)."""
    from rich.markup import escape

    from rallypoint.core.erased import chance_nodes
    from rallypoint.dice import fraction_text

    c = current(campaign)
    declared = chance_nodes(c.ruleset, c.state)
    if as_json:
        print_json([{"roll": d.title, "dice": d.node.dice.label,
                     "modifiers": [{"name": m.name, "value": m.value} for m in d.node.modifiers],
                     "odds": {k: fraction_text(p) for k, p in d.odds().items()}}
                    for d in declared])
        return
    if not declared:
        console.print(f"{escape(c.ruleset.name)} declares no open rolls (see `rallypoint odds "
                      "--help` for its own tables)", highlight=False)
    for d in declared:
        mods = "".join(f" {m}" for m in d.node.modifiers)
        odds = ", ".join(f"{k} {fraction_text(p)}" for k, p in d.odds().items())
        console.print(escape(f"{d.title}: {d.node.dice.label}{mods}: {odds}"), highlight=False)


def _join_rulesets() -> None:
    """Each installed ruleset's odds commands become ``rallypoint odds`` commands."""
    from rallypoint.cli.generic import is_typer_app
    from rallypoint.core.registry import plugins

    for plugin in plugins().values():
        if plugin.odds_cli is not None:
            part = plugin.load("odds_cli", is_typer_app)
            app.registered_commands.extend(part.registered_commands)


_join_rulesets()
