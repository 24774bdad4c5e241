"""``rallypoint``: the command line. Campaign verbs here; ruleset verbs under ``rallypoint tcs``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from rallypoint.cli import campaign_verbs, usage
from rallypoint.cli.session import (
    SETTINGS,
    CampaignOpt,
    JsonOpt,
    campaign_ref,
    console,
    current,
    execute,
    guarded,
    print_json,
    session,
)
from rallypoint.core.ruleset import plugin, plugins

app = typer.Typer(
    name="rallypoint",
    help="Rules engine and campaign keeper for wargame recovery: rest, rally and replacements.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

@app.callback()
def main(
    db: Annotated[Path | None, typer.Option(
        "--db", envvar="RALLYPOINT_DB",
        help="SQLite database file (default: RALLYPOINT_DB, else the user data dir).")] = None,
) -> None:
    """Rules engine and campaign keeper for wargame recovery."""
    SETTINGS.db = db
    SETTINGS.ruleset = None


@app.command()
def new(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    name: Annotated[str | None, typer.Option(help="Campaign name (default: file name).")] = None,
    seed: Annotated[str | None, typer.Option(help="Dice seed (default: random).")] = None,
) -> None:
    """Create a campaign from a scenario file."""
    with guarded():
        info = session().create(scenario, name=name, seed=seed)
    console.print(f"created campaign [bold]{escape(info.name)}[/] ({info.ruleset}, "
                  f"id {info.id[:8]})", highlight=False)


@app.command("list")
def list_(as_json: JsonOpt = False) -> None:
    """List the campaigns in the database."""
    from rich.table import Table
    from rich.text import Text

    with guarded():
        infos = session().campaigns(missing_ok=False)
    if as_json:
        print_json([i.model_dump(mode="json") for i in infos])
        return
    table = Table("name", "ruleset", "id", "version", "last active")
    for i in infos:
        version = f"{i.version} (cut from {i.head_seq})" if i.cut else str(i.version)
        # Text, not markup: a name like 'x[/]' shows as typed and cannot break the table.
        table.add_row(Text(i.name), Text(i.ruleset), i.id[:8], version,
                      Text(i.last_recorded_at[:19]))
    console.print(table)


@app.command()
def show(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Show a campaign's current state."""
    from rallypoint.session import campaign_view

    c = current(campaign)
    if as_json:
        print_json(campaign_view(c))
        return
    plugin(c.ruleset.name).load("render")(c)


@app.command()
def log(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """The event log: every event, every roll with purpose, modifiers and odds."""
    from rich.markup import escape

    from rallypoint.session import log_entries

    entries = log_entries(current(campaign, whole=True))
    if as_json:
        print_json([e.to_json() for e in entries])
        return
    for e in entries:
        style = "strike dim" if e.undone else ""
        console.print(f"[dim]#{e.seq:<3}[/] [{style}]{escape(e.summary)}[/]" if style else
                      f"[dim]#{e.seq:<3}[/] {escape(e.summary)}", highlight=False)


@app.command()
def undo(campaign: CampaignOpt = None) -> None:
    """Undo the latest command (appends an 'undone' event; history is kept)."""
    with guarded():
        done = session().undo(campaign_ref(campaign))
    console.print(f"undone #{done.record.payload['target']}: "
                  f"{done.record.payload['summary'].splitlines()[0]}", highlight=False)


@app.command()
def verify(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Check a campaign's hash chain and head; exit 1 if any event was edited, lost or cut."""
    with guarded():
        if campaign is None and not session().campaigns(missing_ok=False):
            console.print("no campaigns")
            raise typer.Exit(1)
        report = session().verify(campaign_ref(campaign))
    if as_json:
        print_json(report.model_dump(mode="json"))
    elif report.ok:
        console.print(f"[green]ok[/]: {report.events} events, hash chain intact, head at "
                      f"#{report.head_seq}", highlight=False)
    else:
        problem = report.problem
        console.print(f"[red]BROKEN[/] at #{problem.seq if problem else '?'}: "
                      f"{escape(problem.reason) if problem else ''}", highlight=False)
    if not report.ok:
        raise typer.Exit(1)


campaign_verbs.register(app)
usage.install()


@app.command()
def scenarios(as_json: JsonOpt = False) -> None:
    """List the scenario files shipped with each ruleset."""
    from rallypoint.core.ruleset import registered

    found = [(name, str(path)) for name, ruleset in registered().items()
             for path in ruleset.example_scenarios()]
    if as_json:
        print_json([{"ruleset": name, "path": path} for name, path in found])
        return
    for name, path in found:
        console.print(f"{name}: {path}", highlight=False, soft_wrap=True)


@app.command()
def demo() -> None:
    """Play TCS Example #1 with its own dice, then a squares rally and a platoon week."""
    from rallypoint.cli.demo import run_demo

    run_demo()


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    db: Annotated[Path | None, typer.Option(
        "--db", help="SQLite database file (default: the global --db, RALLYPOINT_DB, or the "
        "user data dir).")] = None,
    allow_host: Annotated[list[str] | None, typer.Option(
        help="Another host name the server may be reached under (repeatable).")] = None,
) -> None:
    """Serve the campaigns in the browser (pages and a JSON API at /api)."""
    from rallypoint.store import default_db_path
    from rallypoint.web.server import serve as run_server

    run_server(db or SETTINGS.db or default_db_path(), host=host, port=port,
               allowed_hosts=tuple(allow_host or ()))


def _entering(ruleset: str) -> Callable[[], None]:
    """A group callback noting which ruleset's verbs run, so another's campaign is refused."""
    def callback() -> None:
        SETTINGS.ruleset = ruleset
    return callback


# Each installed ruleset brings its verbs (`rallypoint tcs ...`); no ruleset is named here.
for _plugin in plugins().values():
    if _plugin.cli is not None:
        app.add_typer(_plugin.load("cli"), name=_plugin.name, callback=_entering(_plugin.name))
app.add_typer(importlib.import_module("rallypoint.cli.odds").app, name="odds")
app.add_typer(importlib.import_module("rallypoint.cli.simulate").app, name="simulate")


def run() -> None:
    """Console-script entry point."""
    app()


__all__ = ["app", "execute", "run"]
