"""A two-sided TCS campaign played a little way, for the seats and secrets tests.

Finland writes sheet ``F-hideout`` (center ``22.15``), the Soviets ``S-lair`` (center ``31.10``);
three turns accrue; Finland's sheet implements with the dice 6,6 and recovers 3 steps (die 3),
leaving Finland a pending distribution. Secret strings of each side are listed so tests can
assert they never reach the other side.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rallypoint.session import Session

SCENARIO = Path(__file__).parent / "data" / "tcs_two_sides.toml"
SECRET_OF = {"finland": ("F-hideout", "22.15"), "soviet": ("S-lair", "31.10")}
"""Strings only that side (and the referee) may ever see: sheet names and centers."""

_CLOCK = re.compile(r"\d{2}:\d{2}:\d{2}\.\d+")


def scrub(text: str) -> str:
    """``text`` without its clock times with fractions (``16:05:22.153…`` in a ``recorded_at``),
    whose digits can spell a center such as ``22.15`` by chance: a leak check must not flake."""
    return _CLOCK.sub("", text)

SHEETS = [
    {"kind": "write_sheet", "sheet": "F-hideout", "members": ["ErP112"],
     "centers": {"1/ErP112": "22.15"}, "size": 0, "attest": True},
    {"kind": "write_sheet", "sheet": "S-lair", "members": ["1/609"],
     "centers": {"1/609": "31.10"}, "size": 1, "attest": True},
]


def execute(session: Session, ref: str, command: dict[str, Any], dice: str | None = None) -> Any:
    """Run a command at the campaign's current version."""
    version = session.resolve(ref).version
    return session.execute(ref, {**command, "expected_version": version}, dice=dice)


def two_sided(session: Session, name: str = "both", *, seed: str | None = None) -> str:
    """Create and play the campaign; return its id."""
    info = session.create(SCENARIO, name=name, seed=seed)
    for command in SHEETS:
        execute(session, info.id, command)
    for _ in range(3):
        # The Soviet FO starts dead at 08:00: its hourly roll is let pass (the rules refuse a
        # turn that would silently lose it).
        execute(session, info.id, {"kind": "turn", "skip_fo": True})
    execute(session, info.id, {"kind": "check", "sheet": "F-hideout"}, dice="6,6,3")
    return info.id
