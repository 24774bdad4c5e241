"""Scenario files for front ends: check one for every problem, turn one into a campaign's form.

The CLI's ``rallypoint scenario check`` and the web builder's live validation both call
:func:`check_scenario`, so they report the same problems in the same words as ``rallypoint new``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rallypoint.core.csvtable import ScenarioTable, on_rows, read_rows, table_of, write_rows
from rallypoint.core.erased import rules_of
from rallypoint.core.errors import DataFileError, UnknownIdError
from rallypoint.core.problems import Problem
from rallypoint.core.registry import get_ruleset, plugins
from rallypoint.core.scenario_check import check_data, check_text, scenario_from
from rallypoint.core.tomlfile import parse_toml
from rallypoint.core.tomlwrite import dumps
from rallypoint.errors import Hint

__all__ = ["Imported", "Problem", "check_scenario", "import_table", "scenario_from",
           "starter_text", "table_csv", "with_schema_line"]


def check_scenario(ruleset: str | None, scenario: str | Mapping[str, Any], *,
                   file: str = "") -> list[Problem]:
    """Every problem of a scenario, in file order of the steps ``new`` takes (``[]``: none).

    Args:
        ruleset: The ruleset it must be for; ``None``: the one its ``ruleset = "..."`` line names.
        scenario: The TOML text of a scenario file, or its data already parsed (a mapping as the
            TOML would give; then no problem has a line number).
        file: The file name to put in messages (``""``: none).

    Returns:
        Each problem once: what is wrong, its file, line and field, and how to fix it; the
        first is the one ``rallypoint new`` would report.

    Example:
        >>> from rallypoint.session.scenarios import check_scenario
        >>> [p.where for p in check_scenario("squares", 'ruleset = "squares"')]
        ['scenario', 'grid', 'sides', 'brigades', 'units']
    """
    if isinstance(scenario, str):
        return check_text(scenario, file, ruleset)
    return check_data(scenario, file=file, ruleset=ruleset)


def starter_text(ruleset: str) -> str:
    """A commented starting scenario of ``ruleset`` that ``rallypoint new`` accepts as written:
    the ruleset's own (``starter_scenario``), else its first shipped example.

    Raises:
        UnknownIdError: No ruleset of that name.
    """
    rules = get_ruleset(ruleset)
    starter = getattr(rules_of(rules), "starter_scenario", None)
    path = starter() if starter is not None else rules.example_scenarios()[0]
    return Path(path).read_text(encoding="utf-8")


def with_schema_line(text: str, schema: str) -> str:
    """``text`` with taplo's ``#:schema PATH`` comment as its first line (replacing one there), so
    a TOML editor (Even Better TOML) completes and checks the file against that schema."""
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith("#:schema "):
        lines = lines[1:]
    return f"#:schema {schema}\n" + "".join(lines)


@dataclass(frozen=True)
class Imported:
    """What :func:`import_table` made: the scenario's TOML text, and every problem (none: ``new``
    accepts the text as it is)."""

    text: str
    problems: tuple[Problem, ...]


def import_table(ruleset: str, table_text: str, *, base: str | None = None, table_file: str = "",
                 base_file: str = "", out_file: str = "") -> Imported:
    """A scenario made of a spreadsheet's table (counters, units, a roster) and the rest of a base
    scenario (default: the ruleset's starting file).

    Args:
        ruleset: The ruleset whose table it is.
        table_text: The CSV text.
        base: The base scenario's TOML text; its own entries of the table are replaced.
        table_file: The CSV's name, for messages.
        base_file: The base file's name, for messages and the made file's first comment.
        out_file: The made file's name, for the problems of the scenario made.

    Returns:
        The made text and every problem: each bad cell with its row and column (nothing else is
        judged then), else each row that cannot be placed, else the made scenario's problems as
        ``rallypoint scenario check`` reports them.

    Raises:
        UnknownIdError: No ruleset of that name, or one without a table.
    """
    rules = get_ruleset(ruleset)
    table = table_of(rules)
    if table is None:
        raise UnknownIdError(f"the {ruleset} ruleset has no table to import",
                             fix="Write its scenario as TOML (`rallypoint scenario init`).",
                             instead=Hint.FIX_FIELD)
    rows, problems = read_rows(table, table_text, table_file)
    if problems:
        return Imported("", tuple(problems))
    base_text = base if base is not None else starter_text(ruleset)
    try:
        base_data = parse_toml(base_text, base_file or "the base scenario")
    except DataFileError as exc:
        return Imported("", (Problem(exc.what, exc.fix or "", field=exc.where or ""),))
    data, placed = table.merge(base_data, rows)
    if placed:
        return Imported("", tuple(replace(p, file=table_file) for p in placed))
    text = _made_header(ruleset, table, len(rows), table_file, base_file) + dumps(data)
    made = check_scenario(ruleset, text, file=out_file)
    return Imported(text, tuple(on_rows(made, data, rows, table_file)))


def _made_header(ruleset: str, table: ScenarioTable, count: int, table_file: str,
                 base_file: str) -> str:
    """The made file's first comment: where it came from."""
    rest = f"the rest of {base_file}" if base_file else f"the {ruleset} starting file"
    return (f"# Made by `rallypoint scenario import-csv`: {count} {table.what}(s) from "
            f"{table_file or 'a table'}, {rest}.\n")


def table_csv(ruleset: str, scenario: str) -> str:
    """A scenario's table (counters, units, roster) as CSV, the columns import-csv reads.

    A scenario that generates its table when the campaign is created (a platoon's roster from its
    seed) gives the table generated.

    Raises:
        DataFileError: The scenario's text is not TOML, or (for a generated table) not valid.
        UnknownIdError: No ruleset of that name, or one without a table.
    """
    rules = get_ruleset(ruleset)
    table = table_of(rules)
    if table is None:
        raise UnknownIdError(f"the {ruleset} ruleset has no table",
                             fix=f"Use a ruleset that has one: {_with_tables()}.")
    data = parse_toml(scenario, "the scenario")
    rows = table.rows(data)
    if not rows:
        rows = table.rows(scenario_from(data, ruleset=ruleset))
    return write_rows(table, rows)


def _with_tables() -> str:
    """The installed rulesets whose scenarios take a table (for a refusal's fix)."""
    return ", ".join(n for n in plugins() if table_of(get_ruleset(n)) is not None) or "none"
