"""What a ruleset adds to the scenario builder, as a typed contract (its plugin's ``builder``).

The builder (:mod:`rallypoint.web.builder`) works for every ruleset with a scenario model: one
form field per model field. A ruleset may add to it: suggestions for free-text fields (a
datalist), and a part of the page of its own (the squares board as a grid of buttons) that edits
the form's rows when clicked. Nothing here judges a scenario: the same scenario check as
everywhere decides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypeIs

ScenarioData = dict[str, Any]
"""A scenario as the builder's form holds it: TOML-shaped, unchecked (any value may be wrong)."""


@dataclass(frozen=True)
class BuilderPart:
    """A ruleset's additions to the scenario builder; what it leaves out, the builder does not
    show.

    Attributes:
        hints: Field name → suggested values (a datalist under the field).
        template: Its own part of the page (under the templates), with ``context``.
        context: ``context(data) -> dict``: what ``template`` shows of the scenario so far.
        place: ``place(data, square, brush) -> data``: the scenario after a click on the part
            (``place:SQUARE`` with the chosen brush); an unknown square or brush leaves it as is.
    """

    hints: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    template: str | None = None
    context: Callable[[ScenarioData], dict[str, Any]] | None = None
    place: Callable[[ScenarioData, str, str], ScenarioData] | None = None


def is_builder_part(found: object) -> TypeIs[BuilderPart]:
    """Whether a plugin's ``builder`` part is a :class:`BuilderPart`."""
    return isinstance(found, BuilderPart)
