"""The lab page of a campaign: its exact odds, and a small simulation drawn by the lab's own plots.

Everything here is the lab's or the ruleset's: the ruleset's ``lab`` part
(:class:`rallypoint.core.parts.LabPart`) runs the real rules,
:func:`rallypoint.lab.plots.histograms` draws the SVG; the page only chooses a small, bounded run
(in this process, one worker) and keeps the picture in memory until the database changes. A
ruleset without a ``lab`` part gets no picture.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from rallypoint.core.errors import Hint, IllegalNowError
from rallypoint.core.parts import LabPart, is_lab_part
from rallypoint.core.registry import plugin
from rallypoint.session import Campaign

RUNS = 200
"""Simulated runs per plot: enough for a readable histogram, a second or two on one core."""
ENTROPY = 20261201
"""The run's logged seed (the same picture every time for the same campaign)."""


def shipped_scenario(campaign: Campaign) -> Path | None:
    """The shipped scenario file the campaign was created from (matched by its content)."""
    created = campaign.events[0].payload
    for path in campaign.ruleset.example_scenarios():
        if campaign.ruleset.load_scenario(path) == created["scenario"]:
            return path
    return None


def lab_part(campaign: Campaign) -> LabPart | None:
    """The campaign's ruleset's ``lab`` part, or ``None`` when its plugin names none."""
    found = plugin(campaign.ruleset.name)
    if found.lab is None:
        return None
    part = found.load("lab", is_lab_part)
    return part


def page_simulation(campaign: Campaign) -> LabPart | None:
    """The lab part whose picture the page shows: one the ruleset has, for a campaign created
    from a shipped scenario (the lab simulates from a scenario file)."""
    part = lab_part(campaign)
    return part if part is not None and shipped_scenario(campaign) is not None else None


def simulation_run(campaign: Campaign) -> Mapping[str, Sequence[float]]:
    """The campaign's shipped scenario simulated :data:`RUNS` times by its ruleset's lab part:
    metric → one value per run.

    Raises:
        IllegalNowError: The campaign's scenario is not a shipped one, or its ruleset has no lab
            part.
        MissingExtraError: The server was installed without the lab extra.
    """
    from rallypoint.extras import Extra, require

    require(Extra.LAB)  # a server installed with [web] only shows this line, not a traceback
    part, scenario = _simulated(campaign)
    return part.simulate(scenario, RUNS, ENTROPY)


def _simulated(campaign: Campaign) -> tuple[LabPart, Path]:
    part, scenario = lab_part(campaign), shipped_scenario(campaign)
    if part is None or scenario is None:
        raise IllegalNowError("the lab page simulates a shipped scenario of a ruleset with a "
                              "lab part only",
                              fix="Use `rallypoint simulate --help` to simulate your own.",
                              instead=Hint.LAB)
    return part, scenario


def simulation_plot(campaign: Campaign, run: Mapping[str, Sequence[float]],
                    narrow: bool = False) -> str:
    """SVG: the histograms of :func:`simulation_run`'s ``run``, two panels a row for a desk's
    page, one for a phone's (the text then reads at 11 px or more either way:
    ``plots.WEB_WIDE``)."""
    from rallypoint.lab import plots
    from rallypoint.lab.results import as_float

    part, scenario = _simulated(campaign)
    metrics = {metric: as_float(values) for metric, values in run.items()}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "simulation.svg"
        plots.histograms(path, {part.label: metrics}, list(part.metrics),
                         part.title.format(name=scenario.stem, runs=RUNS, entropy=ENTROPY),
                         layout=plots.WEB_NARROW if narrow else plots.WEB_WIDE)
        return path.read_text(encoding="utf-8")
