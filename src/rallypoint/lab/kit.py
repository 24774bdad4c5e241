"""What a ruleset's lab front part may use of the lab (``rulesets/<name>/front/``).

A ruleset's simulations and fast kernels import the session API, the core, the dice, their own
rules and this kit, nothing else of the lab: the kit is the lab's published surface for rulesets
(backends, results, rollers, variants), so the lab can change behind it (tests/test_architecture.py
enforces it). Each name is a plain re-export; add one here when a ruleset's front part needs it.
"""

from __future__ import annotations

__all__: list[str] = []
