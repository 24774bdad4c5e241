"""Per-ruleset page views: what a ruleset's campaign page shows, built from library values.

A view module ``rallypoint.web.rulesets.<ruleset name>`` provides ``TEMPLATE`` and
``context(campaign) -> dict``; a ruleset without one gets the generic page (its JSON state, its
pending decisions and a command form), so a fourth ruleset works in the browser unchanged.
Nothing here decides anything: views read states, pending decisions and odds from the library.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rallypoint.web.rulesets import generic


def view_module(ruleset: str) -> ModuleType:
    """The view module for a ruleset, else :mod:`.generic`."""
    name = f"rallypoint.web.rulesets.{ruleset}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return generic
