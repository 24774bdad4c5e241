"""The shipped scenarios as a player names them: the short name ``rallypoint new`` takes, and
the title the scenario file gives itself."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ShippedScenario:
    """One shipped scenario file."""

    name: str
    """Its file name without ``.toml``: what ``rallypoint new`` takes."""
    ruleset: str
    title: str
    path: Path


def shipped_scenarios() -> list[ShippedScenario]:
    """Every registered ruleset's shipped scenarios, by ruleset then name."""
    from rallypoint.core.ruleset import registered

    return sorted((ShippedScenario(path.stem, name, scenario_title(path), path)
                   for name, ruleset in registered().items()
                   for path in ruleset.example_scenarios()),
                  key=lambda s: (s.ruleset, s.name))


def scenario_title(path: Path) -> str:
    """The title a scenario file gives itself: the first table's ``title``, else its ``name``
    and the first clause of its ``setting`` (a platoon file names the platoon), else the file's
    name. A file that does
    not parse is still listed by name: ``new`` is where it is refused, with the reason."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return path.stem
    for table in data.values():
        if not isinstance(table, dict):
            continue
        if isinstance(table.get("title"), str):
            return str(table["title"])
        if isinstance(table.get("name"), str):
            setting = table.get("setting")
            if isinstance(setting, str):
                return f"{table['name']}: {setting.split(';')[0]}"
            return str(table["name"])
    return path.stem
