"""What a ruleset's lab front part may use of the lab (``rulesets/<name>/front/``).

A ruleset's simulations and fast kernels import the session API, the core, the dice, their own
rules and this kit, nothing else of the lab: the kit is the lab's published surface for rulesets
(backends, results, rollers, variants), so the lab can change behind it (tests/test_architecture.py
enforces it). Each name is a plain re-export; add one here when a ruleset's front part needs it.
"""

from __future__ import annotations

from rallypoint.lab import plots
from rallypoint.lab.backend import Backend, Chunk, concat, make_chunks, run_chunks
from rallypoint.lab.results import Comparison, FloatArray, SimResult, as_float
from rallypoint.lab.rollers import NumpyRoller, die_faces, generator, natural_values, root_sequence
from rallypoint.lab.variants import created_with

__all__ = [
    "Backend",
    "Chunk",
    "Comparison",
    "FloatArray",
    "NumpyRoller",
    "SimResult",
    "as_float",
    "concat",
    "created_with",
    "die_faces",
    "generator",
    "make_chunks",
    "natural_values",
    "plots",
    "root_sequence",
    "run_chunks",
]
