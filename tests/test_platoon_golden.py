"""A golden transcript: thirty seeded days of the shipped Italy 1944 platoon.

Each day every pending decision is answered by the ``by_trade`` policy, then the platoon fights a
STAND-IN battle at intensity 1 on an action day, else rests. Every event's dice come from
``SeededRoller(campaign seed, f"golden/v{version}")``. The transcript is the sequence of the
events' ``describe()`` lines; any change to the rules, the data or the dice shows up as a diff.

Regenerate after an intended change (and read the diff):

    UPDATE_GOLDEN=1 uv run pytest tests/test_platoon_golden.py
"""

from __future__ import annotations

import os
from pathlib import Path

from platoon_kit import play_day
from rallypoint.core.campaign import Campaign, created_event, start
from rallypoint.dice import SeededRoller
from rallypoint.rulesets.platoon import RULESET
from rallypoint.rulesets.platoon.front.campaign import platoon_state

GOLDEN = Path(__file__).parent / "golden" / "platoon_30_days.txt"
SEED = "golden-italy-1944"
DAYS = 30
HEADER = f"""\
# Source: tests/test_platoon_golden.py — the shipped italy_1944.toml scenario,
# campaign seed {SEED!r}, {DAYS} days: decisions by policy by_trade,
# STAND-IN battle intensity 1 on action days, else rest;
# dice SeededRoller(seed, "golden/v<version>").
# Regenerate: UPDATE_GOLDEN=1 uv run pytest tests/test_platoon_golden.py
"""


def _roller(c: Campaign) -> SeededRoller:
    return SeededRoller(c.seed, f"golden/v{c.version}")


def transcript() -> str:
    """Play the golden campaign and return its transcript."""
    scenario = RULESET.example_scenarios()[0]  # Italy, the seed's own setting
    c = start(created_event(RULESET, scenario, "golden", seed=SEED))
    while platoon_state(c).day <= DAYS:
        c = play_day(c, _roller, intensity=1, policy="by_trade")
    lines = [f"#{e.seq} {c.describe(e.seq)}" for e in c.events[1:]]
    s = platoon_state(c)
    lines.append(f"# end: day {s.day}, actions {s.fought}/{len(s.action_days)}, morale {s.morale}, "
                 f"serving {sum(m.status.value == 'serving' for m in s.men.values())}, "
                 f"killed {sum(m.status.value == 'killed' for m in s.men.values())}, "
                 f"evacuated {sum(m.status.value == 'evacuated' for m in s.men.values())}")
    return HEADER + "\n".join(lines) + "\n"


def test_transcript_is_deterministic() -> None:
    assert transcript() == transcript()


def test_golden_transcript_of_thirty_days() -> None:
    text = transcript()
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "run UPDATE_GOLDEN=1 uv run pytest tests/test_platoon_golden.py"
    assert text == GOLDEN.read_text(encoding="utf-8")
