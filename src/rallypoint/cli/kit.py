"""What a ruleset's CLI front part may use of the command line (``rulesets/<name>/front/``).

A ruleset's front part imports the session API, the core, the dice, its own rules and this kit,
nothing else of the CLI: the kit is the CLI's published surface for rulesets, so the CLI can
change behind it without a ruleset noticing (tests/test_architecture.py enforces it). Each name is
a plain re-export; add one here when a ruleset's front part needs it.
"""

from __future__ import annotations

from rallypoint.cli.due import command_words
from rallypoint.cli.lab_output import (
    ChunksOpt,
    CsvOpt,
    PlotOpt,
    RunsOpt,
    SchedulerOpt,
    SeedOpt,
    WorkersOpt,
    emit,
    lab_table,
    odds_table,
    pct,
    run_jobs,
)
from rallypoint.cli.session import (
    AskDiceOpt,
    CampaignOpt,
    DiceOpt,
    JsonOpt,
    console,
    current,
    execute,
    guarded,
    int_pairs,
    pairs,
    print_json,
    session,
)
from rallypoint.cli.simulate_kit import (
    DEFAULT_CHUNKS,
    CompareOpt,
    ParamOpt,
    SweepOpt,
    VariantOpt,
    fraction,
    options,
    plot_variants,
    policy_of,
    run_variants,
    variant_sets,
)

__all__ = [
    "DEFAULT_CHUNKS",
    "AskDiceOpt",
    "CampaignOpt",
    "ChunksOpt",
    "CompareOpt",
    "CsvOpt",
    "DiceOpt",
    "JsonOpt",
    "ParamOpt",
    "PlotOpt",
    "RunsOpt",
    "SchedulerOpt",
    "SeedOpt",
    "SweepOpt",
    "VariantOpt",
    "WorkersOpt",
    "command_words",
    "console",
    "current",
    "emit",
    "execute",
    "fraction",
    "guarded",
    "int_pairs",
    "lab_table",
    "odds_table",
    "options",
    "pairs",
    "pct",
    "plot_variants",
    "policy_of",
    "print_json",
    "run_jobs",
    "run_variants",
    "session",
    "variant_sets",
]
