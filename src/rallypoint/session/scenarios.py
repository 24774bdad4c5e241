"""Scenario files for front ends: check one for every problem, turn one into a campaign's form.

The CLI's ``rallypoint scenario check`` and the web builder's live validation both call
:func:`check_scenario`, so they report the same problems in the same words as ``rallypoint new``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rallypoint.core.problems import Problem
from rallypoint.core.scenario_check import check_data, check_text, scenario_from

__all__ = ["Problem", "check_scenario", "scenario_from"]


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
