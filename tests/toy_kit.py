"""The toy ruleset (tests/data/toy), installed the way a third-party package is.

``tests/data/toy`` holds the package ``rallypoint_toy`` and its ``rallypoint_toy-0.1.dist-info``
(an entry point in the ``rallypoint.rulesets`` group), exactly what ``pip install`` leaves in
site-packages. Putting that folder on ``sys.path`` installs it for this process; nothing in
``src/`` names it. ``RALLYPOINT_TEST_TOY=1`` installs it for a whole test run (conftest), to
check that no test or front end assumes the three shipped rulesets are all there are.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rallypoint.core import registry
from rallypoint.core.visibility import declaration_of

TOY = Path(__file__).parent / "data" / "toy"
SCENARIO = TOY / "rallypoint_toy" / "scenarios" / "ford.toml"


def install() -> None:
    """Put the toy's folder on ``sys.path`` and forget the entry points seen so far."""
    if str(TOY) not in sys.path:
        sys.path.insert(0, str(TOY))
    _forget()


def uninstall() -> None:
    """Take the toy's folder off ``sys.path`` again."""
    while str(TOY) in sys.path:
        sys.path.remove(str(TOY))
    _forget()


def _forget() -> None:
    registry._entry_points.cache_clear()
    declaration_of.cache_clear()


@contextmanager
def installed() -> Iterator[None]:
    """The toy installed for the ``with`` block only (left as it was if already installed)."""
    already = str(TOY) in sys.path
    install()
    try:
        yield
    finally:
        if not already:
            uninstall()
