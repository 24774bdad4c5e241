"""The TCS lab page's simulation: a whole rest of the campaign's battalion (the plugin's ``lab``
part), run through the real rules by :mod:`.lab_sim`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rallypoint.core.parts import PageSimulation


def simulate_rest(scenario: Path, runs: int, entropy: int) -> Mapping[str, Sequence[float]]:
    """``runs`` rests of ``scenario``'s battalion under the rebuild policy, in this process.

    The lab (numpy) is imported here, when the page asks for its picture, so a server without
    the lab extra still shows the page.
    """
    from rallypoint.lab.kit import Backend
    from rallypoint.rulesets.tcs.front import lab_sim

    run = lab_sim.simulate_rest(lab_sim.RestSpec(str(scenario)), runs, entropy, 4,
                                Backend(workers=1), None)
    return {name: run.metrics[name].tolist() for name in LAB.metrics}


LAB = PageSimulation(
    sentence="A whole rest of this scenario's battalion, {runs} times through the real TCS "
             "rules (sheet, turns, checks, the rebuild policy), seed {entropy}:",
    alt="histograms of turns to implementation, steps back, counters back and counters sent "
        "Very Dead over {runs} simulated rests",
    title="{name}: {runs} simulated rests (seed {entropy})",
    label="rebuild",
    metrics=("turns_to_implementation", "steps_back", "counters_back", "very_dead"),
    simulate=simulate_rest)
"""The TCS lab page's rest simulation."""
