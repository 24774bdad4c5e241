"""The clauses of "Recovery and Rally" (seed 003) that the note leaves open, and the reading taken.

Each reading's switch is one of ``data.toml``'s ``[parameters]`` (its clause and choices there),
set in a scenario's ``[parameters]``. docs/rules/squares.md lists the same under "Readings".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rallypoint.core.readings import Reading
from rallypoint.rulesets.squares.data import Parameters, default_data

_READINGS: tuple[tuple[str, str, str, str], ...] = (
    ("Rally: \"If the result is 6 or more, then the test is passed and the results applied.\" "
     "(what a passed SP rally gives back)",
     "A passed SP rally gives back 1 SP, never above the unit's starting stamina.",
     "A step-by-step recovery keeps the break risk meaningful for a unit rallied again and "
     "again.",
     "sp_rally_gain"),
    ("Rally: \"If the result is 6 or more, then the test is passed and the results "
     "applied.\" (an SP rally of a disordered unit)",
     "A passed SP rally gives back SP and leaves disorder alone.",
     "Each rally wins back what it was tried for: the seed offers a separate rally, with its "
     "own +2, to remove disorder.",
     "sp_rally_clears_disorder"),
    ("Recovery: \"no enemy units in an adjacent square\"; Rally: \"same or adjacent squares\"",
     "Adjacent is the eight surrounding squares, diagonals included.",
     "Most square-grid miniatures games count diagonals.",
     "adjacency"),
    ("Recovery: \"There are no enemy units in an adjacent square\"; Rally: \"A Rally may "
     "not be attempted if any enemy is adjacent\" (an enemy in the unit's own square)",
     "It counts: an enemy in the same square blocks recovery and a rally as one next to it "
     "does.",
     "An enemy in the unit's own square is closer than adjacent.",
     "same_square_is_adjacent"),
    ("Rally: \"Once a unit has lost two or more SP or a brigade element is suffering from "
     "disorder, a leader activation … may be used\"",
     "Each condition opens its own rally: disorder a disorder rally, two SP lost an SP rally.",
     "The seed's modifier headings split the two rallies the same way.",
     "rally_eligibility"),
    ("Recovery: \"upon its next activation\"; Rally: \"a leader activation … may be used\"",
     "A unit or leader activates at most once a turn; a rally is the leader's activation.",
     "Activation systems in this family activate each unit and leader once a turn.",
     "once_per_turn"),
    ("Rally modifiers: \"There are no enemy units visible to testing unit: +1\" (how sight "
     "crosses the grid)",
     "A straight line from centre to centre; every square it passes through blocks if its "
     "terrain does (the end squares never do).",
     "It is what a player checks with a ruler; the player may still rule per test or per pair "
     "of squares.",
     "line_of_sight"),
    ("Rally: \"A Rally may not be attempted if any enemy is adjacent to intended unit.\"",
     "Any enemy includes an enemy leader figure on its own; automatic recovery counts enemy "
     "units only.",
     "The rally clause says \"any enemy\" where the recovery clause says \"enemy units\".",
     "enemy_leaders_block_rally"),
    ("Modifiers: \"Testing unit is in a square with friendly fortification terrain: +1\" "
     "(fortification that belongs to no side)",
     "It is friendly to whoever holds it.",
     "A redoubt nobody built for either side serves whoever stands in it.",
     "unowned_fortification_friendly"),
    ("Rally modifiers: \"There are no enemy units visible to testing unit: +1\" (do units "
     "block sight)",
     "Only terrain blocks sight; units do not.",
     "The seed speaks of terrain; several units share a square on this grid, and the player "
     "can rule by eye.",
     "units_block_sight"),
    ("Rally SP only: \"Each shaken friendly unit in same or adjacent squares: -1\"; \"If no "
     "friendly unit in same or adjacent square: -1\"",
     "A shaken friend is still a friendly unit: a unit with only shaken friends near takes -1 "
     "for each, not also -1 for being alone.",
     "The seed calls the shaken ones friendly units in the line before.",
     "shaken_friends_are_friends"),
)
"""(clause, reading, why, parameter), in seed order."""


def readings(rules_data: Mapping[str, Any] | None = None) -> tuple[Reading, ...]:
    """Every squares reading with its switch's shipped value and choices (and a campaign's).

    Args:
        rules_data: A campaign's stored rules data; a parameter it lacks (a campaign created
            before the parameter existed) reads as the reading that campaign was played with.
    """
    shipped = default_data().parameters
    found = []
    for clause, reading, why, switch in _READINGS:
        parameter = shipped[switch]
        others = ", ".join(_text(c) for c in parameter.choices if c != parameter.value
                           or type(c) is not type(parameter.value))
        value = None if rules_data is None else _value(rules_data, switch)
        found.append(Reading(clause=clause, reading=reading, why=why, switch=switch,
                             default=f"{_text(parameter.value)} (other choices: {others})",
                             value=value))
    return tuple(found)


def _text(value: object) -> str:
    """A parameter value as written in a scenario file (``true``, ``"four"``, ``2``)."""
    return json.dumps(value)


def _value(rules_data: Mapping[str, Any], switch: str) -> str:
    """A parameter's value in stored rules data; the old reading when the data predates it."""
    entry = rules_data.get("parameters", {}).get(switch)
    if entry is not None:
        return _text(entry["value"])
    old = Parameters.model_fields[switch].default
    played = _text(getattr(old, "value", old))
    return f"{played} (created before this switch: the reading it was played with)"
