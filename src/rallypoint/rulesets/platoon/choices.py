"""The legal choices of the lieutenant's pending decisions, as typed models.

A :class:`~rallypoint.core.ruleset.Decision` carries its choices as JSON (``options``) so any
front end can list them; the platoon's own policies and listings read them back through these
models instead of indexing into that JSON.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rallypoint.core.json_types import JsonObject


class _Choices(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json(self) -> JsonObject:
        """The JSON a decision carries (field order as declared)."""
        return self.model_dump(mode="json")


class SeatChoice(_Choices):
    """An empty seat a man may be placed in."""

    crew: str
    seat: str


class PlaceChoices(_Choices):
    """Where a man waiting for a seat may go (``place`` decisions)."""

    trade: str
    seats: tuple[SeatChoice, ...]


class CommanderChoices(_Choices):
    """Who may fill a crew's empty commander seat (``commander`` decisions), or wait."""

    own: tuple[str, ...]
    other: tuple[str, ...]
    wait: bool


class TankChoices(_Choices):
    """The crews a tank waiting in the park may go to (``tank`` decisions)."""

    crews: tuple[str, ...]
