"""The readings the TCS rules take where the seed is open, as data a front end can print.

Each reading is a parameter of ``data.toml`` (its clause, what each choice reads the clause as,
why the default): :func:`readings` lists them with the value a campaign plays by, so
``rallypoint rules readings tcs`` (and the web) can show them without knowing TCS.
docs/rules/tcs.md "Readings" lists the same, in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rallypoint.rulesets.tcs.data import RulesData, default_data, load_data


@dataclass(frozen=True)
class Reading:
    """One open clause and how the rules read it.

    Attributes:
        switch: The parameter's name in ``data.toml`` (a scenario's ``[parameters]`` sets it).
        clause: The seed (or facts) text it reads.
        reading: What the current value reads the clause as.
        why: Why the default was chosen.
        value: The value played by (the campaign's, else the shipped default).
        choices: Every value the switch takes.
        source: Where the switch is kept (the data file, or the campaign's stored data).
    """

    switch: str
    clause: str
    reading: str
    why: str
    value: str | bool
    choices: tuple[str | bool, ...]
    source: str


def readings(rules_data: Mapping[str, Any] | None = None) -> tuple[Reading, ...]:
    """Every reading, in ``data.toml`` order, with the value ``rules_data`` plays by.

    A campaign created before a parameter existed stores no entry for it: it plays by the value
    :class:`~rallypoint.rulesets.tcs.data.Parameters` gives a missing key (how it was played),
    and the words come from the shipped data.

    Args:
        rules_data: A campaign's stored rules data; None: the shipped defaults.
    """
    shipped = default_data()
    stored: RulesData = shipped if rules_data is None else load_data(rules_data)
    values = stored.params.model_dump()
    where = ("rallypoint/rulesets/tcs/data.toml [parameters]" if rules_data is None
             else "the campaign's stored rules data (its created event)")
    found = []
    for name, p in shipped.parameters.items():
        value = values[name]
        found.append(Reading(switch=name, clause=p.clause,
                             reading=p.means.get(str(value).lower(), ""), why=p.note,
                             value=value, choices=p.choices, source=where))
    return tuple(found)
