"""Scenario files for front ends: check one for every problem, turn one into a campaign's form.

The CLI's ``rallypoint scenario check`` and the web builder's live validation both call
:func:`check_scenario`, so they report the same problems in the same words as ``rallypoint new``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rallypoint.core.problems import Problem
from rallypoint.core.ruleset import get_ruleset
from rallypoint.core.scenario_check import check_data, check_text, scenario_from

__all__ = ["Problem", "check_scenario", "scenario_from", "starter_text", "with_schema_line"]


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
    starter = getattr(rules, "starter_scenario", None)
    path = starter() if starter is not None else rules.example_scenarios()[0]
    return Path(path).read_text(encoding="utf-8")


def with_schema_line(text: str, schema: str) -> str:
    """``text`` with taplo's ``#:schema PATH`` comment as its first line (replacing one there), so
    a TOML editor (Even Better TOML) completes and checks the file against that schema."""
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith("#:schema "):
        lines = lines[1:]
    return f"#:schema {schema}\n" + "".join(lines)
