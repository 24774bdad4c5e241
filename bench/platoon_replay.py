"""Platoon replay speed: µs per event for Campaign.from_events on a played campaign.

Run: ``uv run python bench/platoon_replay.py [DAYS]`` (default 120 days, STAND-IN battles at
intensity 1, decisions by the default policy, seeded dice). The same script runs unchanged on
the code before typed events, which re-ran the rules on replay, for the before/after figure in
docs/performance.md.
"""

from __future__ import annotations

import sys
import time

from rallypoint.core.campaign import Campaign, created_event, start
from rallypoint.core.registry import get_ruleset
from rallypoint.dice import SeededRoller


def played(days: int) -> Campaign:
    """A platoon campaign played ``days`` days unattended."""
    ruleset = get_ruleset("platoon")
    (scenario,) = ruleset.example_scenarios()
    c = start(created_event(ruleset, scenario, "bench", seed="bench"))
    policy = ruleset.policies()[0]
    while c.state.day <= days:
        roller = SeededRoller("bench", f"v{c.version}")
        pending = ruleset.pending(c.state)
        if pending:
            c = c.execute(policy.decide(c.state, pending[0], c.version), roller)
        else:
            command = ruleset.conformance_commands(c.state, c.version)
            if command is None:  # past the conformance week: battle or rest by the calendar
                command = ruleset.parse_command(
                    {"kind": "standin", "intensity": 1, "expected_version": c.version}
                    if c.state.action_today and not c.state.withdrawn() else
                    {"kind": "rest", "expected_version": c.version})
            c = c.execute(command, roller)
    return c


def main() -> None:
    days = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    c = played(days)
    events = c.events
    best = min(_timed(lambda: Campaign.from_events(events)) for _ in range(5))
    n = len(events) - 1
    print(f"{n} platoon events ({days} days): replay {best * 1000:.1f} ms CPU, "
          f"{best / n * 1e6:.0f} µs per event")


def _timed(fn: object) -> float:
    # CPU time of this process: on a shared machine, wall time mostly measures the neighbours.
    began = time.process_time()
    fn()  # type: ignore[operator]
    return time.process_time() - began


if __name__ == "__main__":
    main()
