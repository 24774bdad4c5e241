"""What a ruleset's CLI front part may use of the command line (``rulesets/<name>/front/``).

A ruleset's front part imports the session API, the core, the dice, its own rules and this kit,
nothing else of the CLI: the kit is the CLI's published surface for rulesets, so the CLI can
change behind it without a ruleset noticing (tests/test_architecture.py enforces it). Each name is
a plain re-export; add one here when a ruleset's front part needs it.
"""

from __future__ import annotations

__all__: list[str] = []
