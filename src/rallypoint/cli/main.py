"""``rallypoint``: the command line. Campaign verbs here; ruleset verbs under ``rallypoint tcs``."""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from typer.models import CommandInfo

from rallypoint.cli import (
    campaign_verbs,
    completion,
    generic,
    pbem,
    reveal,
    scenario_files,
    serve,
    usage,
)
from rallypoint.cli.generic import renderer
from rallypoint.cli.scenario_titles import shipped_scenario
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
from rallypoint.core.erased import rules_of
from rallypoint.core.registry import plugins

_SETTINGS: dict[str, Any] = dict(
    name="rallypoint",
    help="Rules engine and campaign keeper for wargame recovery: rest, rally and replacements.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
core_app = typer.Typer(**_SETTINGS)
"""The top-level verbs (``new``, ``show``, ``log`` ...); :data:`app` adds every sub-app."""

def _print_version(value: bool) -> None:
    # Eager: ``rallypoint --version`` answers before typer asks for a subcommand.
    if value:
        from importlib.metadata import version

        console.print(f"rallypoint {version('rallypoint')}", highlight=False)
        raise typer.Exit()


@core_app.callback()
def main(
    db: Annotated[str | None, typer.Option(
        "--db", envvar="RALLYPOINT_DB",
        help="SQLite database file, or a postgresql://user:password@host/db URL (default: "
             "RALLYPOINT_DB, else the user data dir).")] = None,
    show_version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version,
        help="Print rallypoint's version and exit.")] = False,
) -> None:
    """Rules engine and campaign keeper for wargame recovery."""
    SETTINGS.db = db
    SETTINGS.ruleset = None


@core_app.command()
def new(
    scenario: Annotated[Path, typer.Argument(
        help="Scenario TOML file, or a shipped scenario's name or the start of it (example1, "
             "farm; see `rallypoint scenarios`).")],
    name: Annotated[str | None, typer.Option(help="Campaign name (default: file name).")] = None,
    seed: Annotated[str | None, typer.Option(help="Dice seed (default: random).")] = None,
) -> None:
    """Create a campaign from a scenario file or a shipped scenario."""
    with guarded():
        info = session().create(shipped_scenario(scenario), name=name, seed=seed)
    console.print(f"created campaign [bold]{escape(info.name)}[/] ({info.ruleset}, "
                  f"id {info.id[:8]})", highlight=False)
    _start_notes(info.name)


def _start_notes(name: str) -> None:
    """What a ruleset wants said when a campaign starts (``start_notes``, optional: see
    :class:`rallypoint.core.ruleset.StartNotes`), one ``note:`` line each."""
    c = current(name)
    notes = getattr(rules_of(c.ruleset), "start_notes", None)
    for line in notes(c.state) if notes is not None else ():
        console.print(f"[yellow]note[/]: {escape(line)}", highlight=False)


@core_app.command("list")
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


@core_app.command()
def show(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Show a campaign's current state."""
    from rallypoint.session import campaign_view

    c = current(campaign)
    rounds = _dice_rounds(c.campaign_id)
    if as_json:
        view = campaign_view(c)
        print_json({**view, "dice_rounds": [r.to_json() for r in rounds]} if rounds else view)
        return
    renderer(c.ruleset.name)(c)
    for r in rounds:  # dice rounds by mail (docs/dice.md, "Stalled rounds")
        console.print(r.line(), highlight=False)


def _dice_rounds(campaign_id: str) -> tuple[Any, ...]:
    """The campaign's dice rounds by mail still open, withdrawn or void (two-seat play)."""
    from rallypoint.session.stall import rounds_of

    with guarded():
        return rounds_of(session(), campaign_id)


@core_app.command()
def log(
    campaign: CampaignOpt = None, as_json: JsonOpt = False,
    last: Annotated[int | None, typer.Option(
        "--last", min=1, help="Only the newest N events.")] = None,
    since: Annotated[int | None, typer.Option(
        "--since", min=1, help="Only events from #SEQ on.")] = None,
    pager: Annotated[bool | None, typer.Option(
        "--pager/--no-pager", help="Page the log through $PAGER (default: when the terminal "
        "is too short for it).")] = None,
) -> None:
    """The event log: every event, every roll with purpose, modifiers and odds."""
    from rich.markup import escape

    from rallypoint.session import log_entries

    entries = log_entries(current(campaign, whole=True), since=since, last=last)
    if as_json:
        print_json([e.to_json() for e in entries])
        return
    lines = []
    for e in entries:
        # Strike-through is lost when piped or under NO_COLOR: the word "(undone)" is not.
        lines.append(f"[dim]#{e.seq:<3}[/] [strike dim]{escape(e.summary)}[/] [yellow](undone)[/]"
                     if e.undone else f"[dim]#{e.seq:<3}[/] {escape(e.summary)}")
    paged = pager if pager is not None else (
        console.is_terminal and sum(x.count("\n") + 1 for x in lines) > console.height)
    if paged:
        with console.pager(styles=True):
            for line in lines:
                console.print(line, highlight=False)
        return
    for line in lines:
        console.print(line, highlight=False)


@core_app.command()
def where() -> None:
    """Print the database this command line uses (--db, else RALLYPOINT_DB, else the data dir)."""
    console.print(escape(str(session().location)), highlight=False, soft_wrap=True)


@core_app.command()
def undo(campaign: CampaignOpt = None) -> None:
    """Undo the latest command (appends an 'undone' event; history is kept)."""
    with guarded():
        done = session().undo(campaign_ref(campaign))
    console.print(f"{escape(done.campaign.name)}: undone #{done.record.payload['target']}: "
                  f"{escape(done.record.payload['summary'].splitlines()[0])}", highlight=False)


@core_app.command()
def verify(
    file: Annotated[Path | None, typer.Argument(
        help="An export file to re-check offline instead, every roll included (- for "
             "standard input).")] = None,
    campaign: CampaignOpt = None, as_json: JsonOpt = False,
) -> None:
    """Check a campaign's hash chain and head; exit 1 if any event was edited, lost or cut."""
    if file is not None:
        from rallypoint.cli.verify_file import verify_file

        verify_file(file, as_json)
        return
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


pbem.register(core_app)  # export, import: turn files
reveal.register(core_app)  # the end of a campaign played by mail with hidden parts
campaign_verbs.register(core_app)
generic.register(core_app)  # play: any ruleset's command from its fields
serve.register(core_app)  # the web app, on this machine or hosted
scenario_files.register(core_app)  # schema (scenario init/check/import-csv: SUB_APPS)
usage.install()
completion.install()  # --install-completion names the start-up file it edits


@core_app.command()
def scenarios(as_json: JsonOpt = False) -> None:
    """List the shipped scenarios: the name `rallypoint new` takes, the ruleset and the title."""
    from rich.table import Table
    from rich.text import Text

    from rallypoint.cli.scenario_titles import shipped_scenarios

    found = shipped_scenarios()
    if as_json:
        print_json([{"name": s.name, "ruleset": s.ruleset, "title": s.title, "path": str(s.path)}
                    for s in found])
        return
    table = Table("name", "ruleset", "title", box=None, padding=(0, 2, 0, 0))
    for s in found:
        # Text, not markup: a title is the scenario author's words, brackets and all.
        table.add_row(Text(s.name, overflow="fold"), s.ruleset, Text(s.title))
    console.print(table)
    console.print("Start one with `rallypoint new NAME` (or the start of NAME).",
                  highlight=False)


@core_app.command()
def demo() -> None:
    """Play TCS Example #1 with its own dice, then a squares rally and a platoon week."""
    from rallypoint.cli.demo import run_demo

    run_demo()


def _entering(ruleset: str) -> Callable[[], None]:
    """A group callback noting which ruleset's verbs run, so another's campaign is refused."""
    def callback() -> None:
        SETTINGS.ruleset = ruleset
    return callback


SUB_APPS: dict[str, str] = {"odds": "rallypoint.cli.odds:app",
                            "simulate": "rallypoint.cli.simulate:app",
                            "seat": "rallypoint.cli.pbem:seat_app",
                            "dice": "rallypoint.cli.pbem:dice_app",
                            "rules": "rallypoint.cli.rules:app",
                            "scenario": "rallypoint.cli.scenario_files:app"}
"""The sub-apps that are not a ruleset's (each ruleset's comes from its plugin)."""


def _sub_apps() -> dict[str, str]:
    """Every sub-app by name (``rallypoint tcs ...``, ``rallypoint odds ...``), imported lazily."""
    found = {p.name: p.cli for p in plugins().values() if p.cli is not None}
    return {**found, **SUB_APPS}


def _load(reference: str) -> typer.Typer:
    module, _, attribute = reference.partition(":")
    loaded: typer.Typer = getattr(importlib.import_module(module), attribute)
    return loaded


def build(path: Sequence[str] = ()) -> typer.Typer:
    """The command line: everything, or only what the words of a command line name.

    ``path`` is the command's leading words (``["show"]``, ``["tcs", "turn"]``). Typer turns
    every registered command into a click command on each run (evaluating its annotations), which
    costs milliseconds per command; a player's command needs only its own. Words that name
    nothing known build everything, so the error lists and suggests every command.
    """
    built = typer.Typer(**_SETTINGS)
    built.registered_callback = core_app.registered_callback
    subs = _sub_apps()
    head = path[0] if path else None
    verbs = _named(core_app.registered_commands, head)
    everything = head is None or (head not in subs and not verbs)
    built.registered_commands = list(core_app.registered_commands) if everything else verbs
    for name, reference in subs.items():
        if everything or head == name:
            sub = _load(reference)
            wanted = _named(sub.registered_commands, path[1] if len(path) > 1 else None)
            if head == name and wanted:
                sub = copy.copy(sub)
                sub.registered_commands = wanted
            # A ruleset's verbs note which ruleset runs, so another's campaign is refused.
            if name in plugins():
                built.add_typer(sub, name=name, callback=_entering(name))
            else:  # keeps the sub-app's own callback (simulate's check for the lab extra)
                built.add_typer(sub, name=name)
    return built


def _named(commands: Sequence[CommandInfo], name: str | None) -> list[CommandInfo]:
    """The commands called ``name`` (typer's own naming: a function's name, ``_`` as ``-``)."""
    return [c for c in commands if name is not None and name == (
        c.name or (c.callback.__name__.replace("_", "-") if c.callback else None))]


def _words(argv: Sequence[str]) -> list[str]:
    """The leading words of a command line (at most two), past ``--db PATH``; none at all for a
    top-level option such as ``--help``."""
    words: list[str] = []
    rest = iter(argv)
    for arg in rest:
        if arg == "--db" and not words:
            next(rest, None)
        elif arg.startswith("-"):
            if not words and not arg.startswith("--db="):
                return []
            if words:
                break
        else:
            words.append(arg)
            if len(words) == 2:
                break
    return words


def __getattr__(name: str) -> typer.Typer:
    # ``rallypoint.cli.main.app`` (tests, docs): the whole command line, built on first use.
    if name == "app":
        globals()["app"] = built = build()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run() -> None:
    """Console-script entry point: builds only the commands the command line names.

    A command at the table lives a fraction of a second and allocates its modules, models and
    state once. The cyclic collector is made lazier (its full passes over the growing heap of
    imported modules cost tens of milliseconds and find nothing), and whatever is alive at the
    end is frozen, so the interpreter's shutdown does not trace it all once more.
    """
    import gc
    import sys

    gc.set_threshold(_GC_THRESHOLD, *gc.get_threshold()[1:])
    try:
        built = build(_words(sys.argv[1:]))
        if "--help" in sys.argv[1:]:
            import typer.main

            from rallypoint.cli.glossary import annotate

            # Help explains the game words it uses (row, d66, SP ...) in an epilog.
            command = typer.main.get_command(built)
            annotate(command)
            command(prog_name="rallypoint")
        else:
            built()
    finally:
        gc.freeze()


_GC_THRESHOLD = 20_000
"""Allocations between young-generation collections for a command (Python's default: 700)."""


__all__ = ["build", "core_app", "execute", "run"]
