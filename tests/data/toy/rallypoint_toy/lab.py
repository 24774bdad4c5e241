"""The toy's lab part: its campaign page's simulation, three forays many times, through the
toy's own rules (its ``decide`` and ``apply``), seeded so the same seed draws the same picture."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rallypoint.core.parts import PageSimulation
from rallypoint.dice import SeededRoller
from rallypoint_toy.rules import RULESET, Forage

FORAYS = 3
"""Forays per simulated run, the parties taking turns."""


def three_forays(scenario: Path, runs: int, entropy: int) -> Mapping[str, Sequence[float]]:
    """Supplies in camp after :data:`FORAYS` forays, once per run."""
    data = RULESET.load_scenario(scenario)
    supplies: list[float] = []
    for run in range(runs):
        state = RULESET.initial_state(data, RULESET.rules_data(data))
        for n in range(FORAYS):
            party = state.parties[n % len(state.parties)]
            event = RULESET.decide(state, Forage(expected_version=n + 1, party=party),
                                   SeededRoller(str(entropy), f"run{run}-foray{n}"))
            state = RULESET.apply(state, event)
        supplies.append(float(state.supplies))
    return {"supplies": supplies}


LAB = PageSimulation(
    sentence="Three forays from this camp, {runs} times through the toy's rules, seed {entropy}:",
    alt="a histogram of the supplies left after three forays, over {runs} runs",
    title="{name}: {runs} runs of three forays (seed {entropy})",
    label="parties in turn",
    metrics=("supplies",),
    simulate=three_forays)
"""The toy's ``lab`` part."""
