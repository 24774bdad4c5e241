"""Readings: the places a ruleset's seed text is open, the reading taken and the switch for it.

A seed written by a designer leaves clauses open. Each ruleset lists the readings it took, once,
with the clause, the reading, why, and the named parameter of its data file that switches to the
other reading. A player sees them with ``rallypoint rules readings`` and on the web campaign page.

A ruleset provides them through the optional ``readings`` part of its plugin: a function
``readings(rules_data)`` returning :class:`Reading` values. Given a campaign's stored rules data,
each reading also carries that campaign's setting (an old campaign keeps the reading it was
created with); given ``None``, only the shipped default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from typing_extensions import TypeIs

from rallypoint.core.models import FrozenModel
from rallypoint.core.registry import plugin


class Reading(FrozenModel):
    """One open clause of a seed and the reading a ruleset takes of it.

    Attributes:
        clause: Where the seed is open: its section and a brief quotation.
        reading: The reading taken, in a player's words.
        why: Why that reading is the default.
        switch: The named parameter of the ruleset's data file that selects the reading
            (``"year.commander_order"``), set in a scenario's ``[parameters]``.
        default: The switch's shipped value, and what the other values do
            (``"1 (0: any unassigned man first)"``).
        value: The switch's value in one campaign's stored rules data, when read for a
            campaign; ``None`` when read for the ruleset alone.
    """

    clause: str
    reading: str
    why: str
    switch: str
    default: str
    value: str | None = None


ReadingsPart = Callable[[Mapping[str, Any] | None], Sequence[Reading]]
"""A ruleset's ``readings`` part: its stored rules data (or ``None``) → its readings."""


def is_readings_part(found: object) -> TypeIs[ReadingsPart]:
    """Whether a plugin's ``readings`` part can be called (its parameters cannot be checked
    before the call: a function's annotations are only text)."""
    return callable(found)


def readings_of(ruleset: str, rules_data: Mapping[str, Any] | None = None) -> tuple[Reading, ...]:
    """The readings an installed ruleset declares (none if its plugin has no ``readings`` part).

    Args:
        ruleset: The ruleset's name.
        rules_data: A campaign's stored rules data, to fill each reading's ``value``; ``None``
            for the ruleset alone.

    Raises:
        UnknownIdError: No ruleset of that name is installed.
    """
    found = plugin(ruleset)
    if found.readings is None:
        return ()
    part = found.load("readings", is_readings_part)
    return tuple(part(rules_data))
