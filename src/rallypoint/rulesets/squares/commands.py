"""Squares commands: what a player asks for. Each is validated against state by ``rules.decide``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from rallypoint.core.ruleset import Command
from rallypoint.rulesets.squares.data import RallyKind


class Move(Command):
    """Record a unit's or leader's new square (a leader attached to a unit moves with it)."""

    kind: Literal["move"] = "move"
    who: str = Field(description="unit or leader id")
    square: str


class MarkFire(Command):
    """Record that a unit was targeted by ranged fire or bombardment this turn."""

    kind: Literal["fire"] = "fire"
    unit: str
    fire: Literal["ranged", "bombardment"] = "ranged"


class LoseSp(Command):
    """Stamina points lost in the core game; at 0 SP the unit is removed from play."""

    kind: Literal["lose"] = "lose"
    unit: str
    sp: int = Field(default=1, ge=1)


class Disorder(Command):
    """The core game disorders a unit."""

    kind: Literal["disorder"] = "disorder"
    unit: str


class Activate(Command):
    """A unit or leader activates: attachments end; a disordered unit may recover automatically."""

    kind: Literal["activate"] = "activate"
    who: str = Field(description="unit or leader id")


class Rally(Command):
    """A leader's activation spent on a rally test for one unit."""

    kind: Literal["rally"] = "rally"
    leader: str
    unit: str
    rally: RallyKind = Field(description="what the rally tries to win back: disorder or sp")
    enemy_visible: bool | None = Field(
        default=None, description="the player's ruling on 'enemy visible'; None: line of sight")


class NextTurn(Command):
    """Start the next turn: fire marks and activations are cleared."""

    kind: Literal["turn"] = "turn"


class SetSight(Command):
    """The player's ruling on sight between two squares (``auto`` removes the ruling)."""

    kind: Literal["sight"] = "sight"
    a: str
    b: str
    ruling: Literal["clear", "blocked", "auto"]


SquaresCommand = Annotated[
    Move | MarkFire | LoseSp | Disorder | Activate | Rally | NextTurn | SetSight,
    Field(discriminator="kind"),
]
