"""Variants that replace a table or a number of a ruleset's data file, not only a parameter.

An override named like a ruleset parameter goes into the scenario's ``[parameters]`` table, as a
player's file would set it. Any other name is a dotted path into the ruleset's resolved data
(``implementation.rows.3.cells``, ``section8.skill.green.mean``) — or a per-ruleset shorthand
that the ruleset's lab module translates into paths (TCS: ``recovery_table.inf`` is the ``inf``
column of every row) — and replaces the number or list there. The patched data is validated
exactly as a data file is (the ruleset's own model), and the campaign is built from it, so a
variant that the rules cannot play is refused, with what, where and how to fix it, before any
run starts.

A variant TOML file (``--variant FILE``) holds the same in a file::

    label = "gentler infantry column"
    [parameters]
    odd_pile_limit = "ceil"
    [data]
    "recovery_table.inf" = [5, 4, 3, 2, 1]
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.errors import DataFileError
from rallypoint.core.events import CORE_EVENTS, CREATED, Created, NewEvent
from rallypoint.session import created_from_scenario

Translate = Callable[[Mapping[str, Any], str, Any], list[tuple[list[str | int], Any]] | None]
"""A ruleset's shorthand: (data, name, value) → the (path, value) edits it stands for, or None."""


def split(overrides: Mapping[str, Any],
          parameters: set[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The overrides that are parameters, and those that are paths into the data."""
    params = {k: v for k, v in overrides.items() if k in parameters}
    return params, {k: v for k, v in overrides.items() if k not in parameters}


def _where(data: Any, name: str, path: list[str | int]) -> tuple[Any, str | int]:
    node = data
    for n, step in enumerate(path[:-1]):
        node = _child(node, step, name, path[: n + 1])
    last = path[-1]
    if isinstance(node, list):
        last = _index(node, last, name)
    elif not isinstance(node, dict) or last not in node:
        raise _unknown(name, path, node)
    return node, last


def _child(node: Any, step: str | int, name: str, path: list[str | int]) -> Any:
    if isinstance(node, dict) and step in node:
        return node[step]
    if isinstance(node, list):
        return node[_index(node, step, name)]
    raise _unknown(name, path, node)


def _index(node: list[Any], step: str | int, name: str) -> int:
    try:
        i = int(step)
    except ValueError:
        raise DataFileError(f"{name!r}: {step!r} is not a row number", where=name,
                            fix=f"Use 0 to {len(node) - 1}.") from None
    if not 0 <= i < len(node):
        raise DataFileError(f"{name!r}: no row {i}", where=name,
                            fix=f"Use 0 to {len(node) - 1}.")
    return i


def _unknown(name: str, path: list[str | int], node: Any) -> DataFileError:
    known = ", ".join(str(k) for k in node) if isinstance(node, dict) else "none"
    return DataFileError(f"{name!r} names nothing in the data ({'.'.join(map(str, path))})",
                         where=name, fix=f"A parameter, or a data path; here: {known}.")


def patch(data: dict[str, Any], name: str, value: Any,
          translate: Translate | None = None) -> None:
    """Replace, in place, the number or list that ``name`` addresses (or its shorthand's)."""
    edits = translate(data, name, value) if translate else None
    plain: list[tuple[list[str | int], Any]] = [([*name.split(".")], value)]
    for path, new in edits if edits is not None else plain:
        node, last = _where(data, name, path)
        old = node[last]
        if isinstance(old, bool) or not isinstance(old, (int, float, list)):
            raise DataFileError(f"{name!r} is not a number or a list of numbers",
                                where=name, fix="Replace a number or a column of a table.")
        if isinstance(old, list) != isinstance(new, list):
            shape = "a list like 5,4,3" if isinstance(old, list) else "one number"
            raise DataFileError(f"{name!r} takes {shape}, not {new!r}", where=name,
                                fix=f"Give {shape}.")
        if isinstance(old, list) and len(old) != len(new):
            raise DataFileError(f"{name!r} holds {len(old)} values, not {len(new)}", where=name,
                                fix=f"Give {len(old)} values, one per row.")
        node[last] = new


def created_with(ruleset: ErasedRuleset, scenario: dict[str, Any], overrides: Mapping[str, Any],
                 parameters: set[str], translate: Translate | None = None,
                 seed: str = "lab") -> NewEvent:
    """The ``created`` event of a variant: parameters into the scenario, data paths into its
    rules data, validated by the ruleset as a data file is."""
    params, paths = split(overrides, parameters)
    scenario = {**scenario, "parameters": {**(scenario.get("parameters") or {}), **params}}
    event = created_from_scenario(ruleset, scenario, "simulation", seed=seed)
    if not paths:
        return event
    created = event.event if isinstance(event.event, Created) else CORE_EVENTS.read(
        CREATED, event.payload)
    assert isinstance(created, Created)
    # A plain, deep copy of the frozen data to patch (its tables are JSON values).
    data = copy.deepcopy(dict(created.rules_data))
    for name, value in paths.items():
        patch(data, name, value, translate)
    ruleset.initial_state(scenario, data)  # the ruleset's own validation of its data
    return NewEvent.of(created.model_copy(update={"rules_data": data}))


def read_variant(path: Path) -> tuple[str, dict[str, Any]]:
    """A variant file: its label (else the file's stem) and its overrides, parameters and data
    paths together (checked when the variant's campaign is built)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataFileError(f"cannot read variant file {path}: {exc.strerror}", where=str(path),
                            fix="Give the path of a variant .toml file.") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataFileError(f"variant file {path.name} is not TOML: {exc}", where=str(path),
                            fix="Correct the TOML syntax.") from None
    extra = set(raw) - {"label", "parameters", "data"}
    if extra:
        raise DataFileError(f"variant file {path.name}: unknown key(s) {', '.join(sorted(extra))}",
                            where=str(path), fix="Use label, [parameters] and [data] only.")
    for table in ("parameters", "data"):
        if not isinstance(raw.get(table, {}), dict):
            raise DataFileError(f"variant file {path.name}: {table} is not a table",
                                where=f"{path.name} {table}", fix=f"Write it as [{table}].")
    label = str(raw.get("label") or path.stem)
    return label, {**raw.get("parameters", {}), **raw.get("data", {})}
