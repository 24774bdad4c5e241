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
    from rallypoint.core.registry import registered

    return sorted((ShippedScenario(path.stem, name, scenario_title(path), path)
                   for name, ruleset in registered().items()
                   for path in ruleset.example_scenarios()),
                  key=lambda s: (s.ruleset, s.name))


def scenario_title(path: Path) -> str:
    """The title a scenario file gives itself: a top-level ``title`` (a ruleset of one flat
    table), else the first table's ``title``, else its ``name`` and the first clause of its
    ``setting`` (a platoon file names the platoon), else the file's name. A file that does
    not parse is still listed by name: ``new`` is where it is refused, with the reason."""
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return path.stem
    if isinstance(data.get("title"), str):
        return str(data["title"])
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


def shipped_scenario(given: Path) -> Path:
    """``given`` if it is a file, else the shipped scenario it names: its file name without
    ``.toml`` (any case), or the start of it when only one shipped scenario begins so, as
    ``simulate --scenario`` takes them. Anything else is left to ``create`` to refuse, unless it
    looks like a name (no folder, no suffix): then the shipped names are offered."""
    from rallypoint.core.errors import MalformedInputError, UnknownIdError
    from rallypoint.core.registry import registered
    from rallypoint.core.suggest import did_you_mean

    if given.is_file() or given.parent != Path() or given.suffix:
        return given
    shipped = {p.stem: p for r in registered().values() for p in r.example_scenarios()}
    word = given.name.casefold()
    exact = [p for stem, p in shipped.items() if stem.casefold() == word]
    found = exact or [p for stem, p in shipped.items() if stem.casefold().startswith(word)]
    if len(found) == 1:
        return found[0]
    if found:
        raise MalformedInputError(f"{given.name!r} could be {' or '.join(p.stem for p in found)}",
                                  fix="Give more of the scenario's name.")
    raise UnknownIdError(f"no scenario file or shipped scenario {given.name!r}",
                         fix=f"{did_you_mean(given.name, shipped)}Give a TOML file, or one of: "
                             f"{', '.join(shipped)}.")
