"""The TCS part of the scenario builder: suggestions for free-text fields (a datalist).

Only words the scenario docs name (docs/scenarios.md: a counter's ``kind``); the check still
decides what is valid.
"""

from __future__ import annotations

from rallypoint.web.kit import BuilderPart

HINTS = {"kind": ("infantry", "at_gun", "artillery", "fo", "tank")}
"""Field name → suggested values."""
BUILDER = BuilderPart(hints=HINTS)
"""The TCS additions to the builder (its plugin's ``builder`` part)."""
