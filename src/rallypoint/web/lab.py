"""The lab page of a campaign: its exact odds, and a small simulation drawn by the lab's own plots.

Everything here is the lab's: the tcs front part's ``lab_sim.simulate_rest`` runs the real rules,
:func:`rallypoint.lab.plots.histograms` draws the SVG; the page only chooses a small, bounded run
(in this process, one worker) and keeps the picture in memory until the database changes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from rallypoint.core.errors import Hint, IllegalNowError
from rallypoint.session import Campaign

RUNS = 200
"""Simulated rests per plot: enough for a readable histogram, a second or two on one core."""
ENTROPY = 20261201
"""The run's logged seed (the same picture every time for the same campaign)."""
METRICS = ("turns_to_implementation", "steps_back", "counters_back", "very_dead")


def shipped_scenario(campaign: Campaign) -> Path | None:
    """The shipped scenario file the campaign was created from (matched by its content)."""
    created = campaign.events[0].payload
    for path in campaign.ruleset.example_scenarios():
        if campaign.ruleset.load_scenario(path) == created["scenario"]:
            return path
    return None


def rest_run(campaign: Campaign) -> Any:
    """A whole rest of the campaign's battalion, simulated :data:`RUNS` times through the real
    TCS rules (the lab's ``SimResult``).

    Raises:
        IllegalNowError: The campaign's scenario is not a shipped one (the lab simulates from a
            scenario file), or the ruleset has no rest simulation.
        MissingExtraError: The server was installed without the lab extra.
    """
    from rallypoint.extras import Extra, require

    require(Extra.LAB)  # a server installed with [web] only shows this line, not a traceback
    from rallypoint.lab.backend import Backend
    from rallypoint.rulesets.tcs.front import lab_sim as tcs_sim

    scenario = shipped_scenario(campaign)
    if scenario is None or campaign.ruleset.name != tcs_sim.tcs().name:
        raise IllegalNowError("the lab simulates a rest of a shipped TCS scenario only",
                              fix="Use `rallypoint simulate tcs --scenario FILE` for your own.",
                              instead=Hint.LAB)
    spec = tcs_sim.RestSpec(str(scenario))
    return tcs_sim.simulate_rest(spec, RUNS, ENTROPY, 4, Backend(workers=1), None)


def rest_plot(campaign: Campaign, run: Any, narrow: bool = False) -> str:
    """SVG: the histograms of :func:`rest_run`'s ``run``, two panels a row for a desk's page,
    one for a phone's (the text then reads at 11 px or more either way: ``plots.WEB_WIDE``)."""
    from rallypoint.lab import plots

    scenario = shipped_scenario(campaign)
    name = scenario.stem if scenario is not None else campaign.ruleset.name
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rest.svg"
        plots.histograms(path, {"rebuild": run.metrics}, list(METRICS),
                         f"{name}: {RUNS} simulated rests (seed {ENTROPY})",
                         layout=plots.WEB_NARROW if narrow else plots.WEB_WIDE)
        return path.read_text(encoding="utf-8")
