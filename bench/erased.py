"""What the registry's checked wrapper costs a fold (core/erased.py).

Builds a TCS log (a sheet, then turns) with the typed rules, then folds it twice per round, once
through the typed ``RULESET`` and once through the erased ``get_ruleset("tcs")`` whose every
``apply`` checks the state and event types first. Prints the best of 7 rounds of each, in CPU
time, and the cost per event of the checks.

    uv run python bench/erased.py [TURNS]
"""

from __future__ import annotations

import os
import sys
import time

from rallypoint.core.registry import get_ruleset
from rallypoint.dice import ScriptedRoller
from rallypoint.rulesets.tcs.commands import AdvanceTurn
from rallypoint.rulesets.tcs.events import TcsEvent
from rallypoint.rulesets.tcs.ruleset import RULESET
from rallypoint.rulesets.tcs.state import TcsState


def build(turns: int) -> tuple[TcsState, list[TcsEvent]]:
    """The starting state and ``turns`` + 1 events (the conformance sheet, then turns)."""
    scenario = RULESET.load_scenario(RULESET.example_scenarios()[0])
    start = RULESET.initial_state(scenario, RULESET.rules_data(scenario))
    command = RULESET.conformance_commands(start, 1)
    assert command is not None
    state, events = start, list[TcsEvent]()
    for n in range(turns + 1):
        event = RULESET.decide(state, command, ScriptedRoller([]))
        events.append(event)
        state = RULESET.apply(state, event)
        command = AdvanceTurn(expected_version=n + 2)
    return start, events


def fold_typed(start: TcsState, events: list[TcsEvent]) -> float:
    began = time.process_time()
    state = start
    for event in events:
        state = RULESET.apply(state, event)
    return time.process_time() - began


def fold_erased(start: TcsState, events: list[TcsEvent]) -> float:
    erased = get_ruleset("tcs")
    began = time.process_time()
    state: object = start
    for event in events:
        state = erased.apply(state, event)
    return time.process_time() - began


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    start, events = build(turns)
    load = os.getloadavg()[0]
    typed = min(fold_typed(start, events) for _ in range(7))
    erased = min(fold_erased(start, events) for _ in range(7))
    n = len(events)
    print(f"{n} events, best of 7 (CPU), load average {load:.1f}: "
          f"typed {typed * 1e6 / n:.1f} µs/event, erased {erased * 1e6 / n:.1f} µs/event "
          f"({erased / typed:.3f}×; the checks {(erased - typed) * 1e6 / n:+.2f} µs/event)")


if __name__ == "__main__":
    main()
