"""``rallypoint demo``: each installed ruleset's scripted scene, played through the CLI path.

A throwaway database in a temporary folder; each ruleset whose plugin names a ``demo`` part
(:class:`rallypoint.core.parts.DemoPart`) plays its scene there in the parts' order, printing
every step. A ruleset without one is left out.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from rallypoint.cli.session import SETTINGS, guarded
from rallypoint.core.parts import DemoPart, is_demo_part
from rallypoint.core.registry import plugins


def demo_parts() -> list[DemoPart]:
    """Every installed ruleset's demo part, in the order they play (ties: by ruleset name)."""
    parts: list[tuple[int, str, DemoPart]] = []
    for name, found in plugins().items():
        if found.demo is not None:
            part = found.load("demo", is_demo_part)
            parts.append((part.order, name, part))
    return [part for _, _, part in sorted(parts, key=lambda p: p[:2])]


def run_demo() -> None:
    """Play every ruleset's demo scene in one temporary database and print every step."""
    previous = SETTINGS.db
    with tempfile.TemporaryDirectory(prefix="rallypoint-demo-") as tmp, guarded():
        SETTINGS.db = Path(tmp) / "demo.sqlite3"
        try:
            for part in demo_parts():
                part.play()
        finally:
            SETTINGS.db = previous
