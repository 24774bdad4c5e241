"""The readings the TCS rules take where the seed is open, as data a front end prints.

Each reading is a parameter of ``data.toml`` ``[parameters]``: the clause it reads, what each
choice reads the clause as (``means``) and why the default (``note``). :func:`readings` (the
plugin's ``readings`` part) gives them as :class:`~rallypoint.core.readings.Reading` values for
``rallypoint rules readings`` and the web. docs/rules/tcs.md "Readings" lists the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rallypoint.core.readings import Reading
from rallypoint.rulesets.tcs.data import Parameter, Parameters, default_data


def readings(rules_data: Mapping[str, Any] | None = None) -> tuple[Reading, ...]:
    """Every TCS reading, in ``data.toml`` order, with its switch's shipped value and the other
    choices' readings (and, given a campaign's stored rules data, the value it plays by).

    Args:
        rules_data: A campaign's stored rules data; a parameter it lacks (a campaign created
            before the parameter existed) reads as the reading that campaign was played with.
    """
    found = []
    for switch, p in default_data().parameters.items():
        others = "; ".join(f"{_text(c)}: {_means(p, c)}" for c in p.choices if c != p.value)
        found.append(Reading(
            clause=p.clause, reading=_means(p, p.value), why=p.note, switch=switch,
            default=f"{_text(p.value)} (other choices: {others})",
            value=None if rules_data is None else _value(rules_data, switch, p)))
    return tuple(found)


def _means(p: Parameter, value: object) -> str:
    """What ``value`` reads the clause as (``means`` is keyed by the value as text)."""
    return p.means.get(str(value).lower(), "")


def _text(value: object) -> str:
    """A parameter value as written in a scenario file (``true``, ``"company"``)."""
    return json.dumps(value)


def _value(rules_data: Mapping[str, Any], switch: str, shipped: Parameter) -> str:
    """A parameter's value in stored rules data; the older reading when the data predates it
    (:class:`~rallypoint.rulesets.tcs.data.Parameters` gives a missing key that value)."""
    entry = rules_data.get("parameters", {}).get(switch)
    if entry is not None:
        return _text(entry["value"])
    old = Parameters.model_fields[switch].default
    return (f"{_text(old)} (created before this switch: {_means(shipped, old)})")
