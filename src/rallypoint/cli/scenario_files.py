"""``rallypoint scenario init|check|import-csv`` and ``rallypoint schema``: writing one's own
scenario from the terminal. The checks, the starting files and the schemas are the session's
(:mod:`rallypoint.session.scenarios`, :mod:`rallypoint.session.schemas`); this module prints."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from rallypoint.cli.session import JsonOpt, console, err_console, guarded, print_json

if TYPE_CHECKING:
    from rallypoint.core.problems import Problem

app = typer.Typer(
    help="Write your own scenario: a commented starting file, a check that lists every problem, "
         "a table from a spreadsheet.", no_args_is_help=True)

RulesetArg = Annotated[str, typer.Argument(
    help="The ruleset's name (`rallypoint rules` lists them).")]


@app.command()
def init(
    ruleset: RulesetArg,
    file: Annotated[Path | None, typer.Argument(
        help="The scenario file to write (default: print it). Its schema is written beside it.",
        show_default=False)] = None,
    force: Annotated[bool, typer.Option(help="Overwrite FILE if it exists.")] = False,
) -> None:
    """Write a commented starting scenario that `rallypoint new` accepts as written."""
    from rallypoint.session import write_atomically
    from rallypoint.session.scenarios import starter_text, with_schema_line
    from rallypoint.session.schemas import schema_text

    with guarded():
        text = starter_text(ruleset)
        if file is None:
            typer.echo(text, nl=False)
            return
        _refuse_existing(file, force)
        schema = f"{ruleset}-scenario.schema.json"
        write_atomically(file.parent / schema, schema_text(f"{ruleset}-scenario"), "the schema")
        write_atomically(file, with_schema_line(text, f"./{schema}"), "the scenario")
    console.print(f"wrote {escape(str(file))}, a {ruleset} scenario `rallypoint new` accepts as "
                  f"written, and {schema} beside it (its #:schema line lets a TOML editor check "
                  f"the file). Edit it, then `rallypoint scenario check {escape(str(file))}`.",
                  highlight=False)


def _refuse_existing(file: Path, force: bool) -> None:
    """Refuse to overwrite a file (someone's own scenario) unless told to."""
    from rallypoint.core.errors import DataFileError

    if file.exists() and not force:
        raise DataFileError(f"{str(file)!r} already exists", where=str(file),
                            fix="Give another file name, or --force to overwrite it.")


@app.command()
def check(
    file: Annotated[Path, typer.Argument(
        help="Scenario TOML file, or a shipped scenario's name (see `rallypoint scenarios`).")],
    as_json: JsonOpt = False,
) -> None:
    """List every problem of a scenario file (exit 2 if any), as `rallypoint new` words them."""
    from rallypoint.cli.scenario_titles import shipped_scenario
    from rallypoint.core.inputs import read_text
    from rallypoint.session.scenarios import check_scenario

    with guarded():
        path = shipped_scenario(file)
        problems = check_scenario(None, read_text(path, "scenario file"), file=str(path))
    if as_json:
        print_json([p.to_dict() for p in problems])
    elif not problems:
        console.print(f"{escape(str(path))}: no problems; `rallypoint new {escape(str(path))}` "
                      "accepts it.", highlight=False, soft_wrap=True)
    else:
        _print_problems(problems, str(path), "`rallypoint new` stops at the first")
    if problems:
        raise typer.Exit(2)


@app.command("import-csv")
def import_csv(
    ruleset: RulesetArg,
    table: Annotated[Path, typer.Argument(
        help="The CSV a spreadsheet exported: the ruleset's table (its counters, units or "
             "roster); docs/scenarios.md lists the columns.")],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The scenario file to write (default: print it).")] = None,
    into: Annotated[Path | None, typer.Option(
        help="The scenario whose other parts (sides, formations, turn track...) the table joins "
             "(default: the ruleset's starting file, `rallypoint scenario init`).")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite --output if it exists.")] = False,
) -> None:
    """Make a scenario from a spreadsheet's table; every bad cell is one line (row, column)."""
    from rallypoint.core.inputs import read_text
    from rallypoint.session import write_atomically
    from rallypoint.session.scenarios import import_table, with_schema_line
    from rallypoint.session.schemas import schema_text

    with guarded():
        if output is not None:
            _refuse_existing(output, force)
        made = import_table(
            ruleset, read_text(table, "table"), table_file=str(table),
            base=read_text(into, "scenario file") if into is not None else None,
            base_file=str(into) if into is not None else "", out_file=str(output or "scenario"))
        if not made.problems:
            if output is None:
                typer.echo(made.text, nl=False)
                return
            schema = f"{ruleset}-scenario.schema.json"
            write_atomically(output.parent / schema, schema_text(f"{ruleset}-scenario"),
                             "the schema")
            write_atomically(output, with_schema_line(made.text, f"./{schema}"), "the scenario")
    if made.problems:
        _print_problems(made.problems, str(table), "nothing was written")
        raise typer.Exit(2)
    console.print(f"wrote {escape(str(output))} (and {schema} beside it); `rallypoint scenario "
                  "check` finds no problem in it.", highlight=False)


def _print_problems(problems: Sequence[Problem], file: str, then: str) -> None:
    """Each problem as the one line `rallypoint new` would print for it, then a count."""
    for problem in problems:
        err_console.print(f"[bold red]error[/] [dim](bad-data-file)[/]: "
                          f"{escape(problem.message)}", highlight=False, soft_wrap=True)
    count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
    err_console.print(f"{count} in {escape(file)}; {then}.", highlight=False, soft_wrap=True)


def schema(
    name: Annotated[str | None, typer.Argument(
        help="The schema: each ruleset's scenario (NAME-scenario), its other files, or "
             "campaign-export (none: list them).", show_default=False)] = None,
) -> None:
    """Print the JSON Schema of a file rallypoint reads (docs/schemas/NAME.schema.json)."""
    from rallypoint.session.schemas import schema_names, schema_text

    with guarded():
        if name is not None:
            typer.echo(schema_text(name), nl=False)
            return
        names = schema_names()
    for found in names:
        console.print(found, highlight=False)
    console.print("Print one with `rallypoint schema NAME > NAME.schema.json`.", highlight=False)


def register(core: typer.Typer) -> None:
    """Add ``schema`` to the top-level app (``scenario`` is a sub-app of its own)."""
    core.command()(schema)
