"""A company's distribution choices as the JSON a pending decision carries, typed.

:class:`rallypoint.rulesets.tcs.distribution.Options` is what the rules work with; a
:class:`~rallypoint.core.ruleset.Decision` carries it as JSON (``options``) so any front end can
list it, and the ruleset's own listings read that JSON back through :class:`DistributeChoices`
instead of indexing into it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rallypoint.core.json_types import JsonObject


class DistributeChoices(BaseModel):
    """What a company may do with its recovered steps (a ``distribute`` decision's options).

    Attributes:
        company: The company.
        steps: Steps recovered.
        heal: Living counters with step losses → steps they may take back.
        resurrect: Dead counters of the company → their full strength.
        dead_pile: Every counter in the Dead Pile the pairing rule counts.
        max_resurrections: How many counters may come back.
        very_dead_per_resurrection: Counters sent Very Dead per counter brought back.
        single_dead_counter: True when the pile holds one counter: it takes every step.
        center: The company's center hex.
        redistribution: Whether steps may be pooled between counters in one hex.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    company: str
    steps: int
    heal: dict[str, int]
    resurrect: dict[str, int]
    dead_pile: tuple[str, ...]
    max_resurrections: int
    very_dead_per_resurrection: int
    single_dead_counter: bool
    center: str | None
    redistribution: bool

    def to_json(self) -> JsonObject:
        """The JSON a decision carries (field order as declared)."""
        return self.model_dump(mode="json")
