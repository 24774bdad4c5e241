"""The TCS part of the scenario builder: suggestions for free-text fields (a datalist).

Only words the scenario docs name (docs/scenarios.md: a counter's ``kind``); the check still
decides what is valid.
"""

from __future__ import annotations

HINTS = {"kind": ("infantry", "at_gun", "artillery", "fo", "tank")}
"""Field name → suggested values."""
