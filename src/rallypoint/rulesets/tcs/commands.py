"""TCS commands: what a player asks for. Each is validated against state by ``rules.decide``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from rallypoint.core.ruleset import Command
from rallypoint.rulesets.tcs.data import Column


class RecordLoss(Command):
    """Step losses on a counter; at zero steps it is eliminated and routed by ``cause``.

    ``cause``: ``combat`` (Dead Pile), ``surrender`` (Very Dead), ``doubles`` (a doubles fire roll:
    Very Dead for a P-type target), or a scenario exception cause.
    """

    kind: Literal["loss"] = "loss"
    counter: str
    steps: int | None = Field(default=None, ge=1, description="None: every remaining step")
    cause: str = "combat"


class MoveCounter(Command):
    """Record a counter's new hex. Leaving its recovery center needs ``leave_center``."""

    kind: Literal["move"] = "move"
    counter: str
    hex: str
    leave_center: bool = False
    very_dead: tuple[str, ...] | None = None
    attest_distance: int | None = Field(
        default=None, ge=0,
        description="hexes to the center as the player counts them across a map-section seam")


class LeaveCenter(Command):
    """A recovering company is forced or moved off its center before the sheet implements."""

    kind: Literal["leave_center"] = "leave_center"
    company: str
    cause: str = "forced off its center"
    very_dead: tuple[str, ...] | None = Field(
        default=None, description="which Dead Pile counters go Very Dead; None: the policy picks"
    )


class WriteSheet(Command):
    """Write up a Recovery Op Sheet for one or more formations (company or larger)."""

    kind: Literal["write_sheet"] = "write_sheet"
    sheet: str
    members: tuple[str, ...] = Field(min_length=1)
    centers: dict[str, str] = Field(min_length=1, description="member or company id → center hex")
    size: int = Field(ge=0, le=9, description="Op Sheet size from the game's rules")
    other_sheet: tuple[str, ...] = Field(
        default=(), description="members also on another (defensive) Op Sheet"
    )
    vehicle: bool = False
    attest: bool = Field(
        default=False, description="the player attests each center meets the seed's conditions"
    )
    attest_distance: int | None = Field(
        default=None, ge=0,
        description="hexes from a counter to its center across a map-section seam, as the "
                    "player counts them (2: within 2)")


class AdvanceTurn(Command):
    """Start the next turn and accrue weighted turns on every pending sheet.

    Refused while the dead Soviet FOs' roll of this whole hour is due and not made, unless
    ``skip_fo`` says the players let it pass (the log then says so).
    """

    kind: Literal["turn"] = "turn"
    fired: tuple[str, ...] = Field(
        default=(), description="sheets whose units fired or were fired upon this turn"
    )
    skip_fo: bool = Field(
        default=False, description="leave this hour's due FO roll unmade (logged as skipped)")


class Accrue(Command):
    """Accrue the weighted turns this database's pending sheets are owed.

    Play by e-mail: a turn advanced in the opponent's database accrues only the sheets known
    there. The session makes this command (:func:`rallypoint.rulesets.tcs.turns.owed`) before
    the seat's next own event; refused when nothing is owed.
    """

    kind: Literal["accrue"] = "accrue"


class Reassign(Command):
    """Recovering formations go onto, or come off, another (defensive) Op Sheet.

    Seed: 'If already on another Op Sheet, the recovering units still need a "center."' The
    assignment decides their accrual (2 instead of 3) and whether they stay assigned when the
    Recovery Op Sheet implements.
    """

    kind: Literal["reassign"] = "reassign"
    members: tuple[str, ...] = Field(min_length=1, description="formation or company ids")
    other_sheet: bool = Field(description="True: now also on another Op Sheet; False: off it")
    reason: str = Field(default="", max_length=200)


class Attack(Command):
    """Recovering formations are attacked: 'treated as a formation with "No Orders."' (seed).

    Their units were fired upon, so the sheet accrues at the fired rate at the next turn.
    """

    kind: Literal["attack"] = "attack"
    members: tuple[str, ...] = Field(min_length=1, description="formation or company ids")
    note: str = Field(default="", max_length=200)


class MarkFired(Command):
    """A side's own pending sheets fired, or were fired upon, in any way during ``turn``.

    Core TCS: a sheet whose units 'fired, or were fired upon, in any way' accrues 1 for that
    turn (the lowest rate applies). ``tcs turn --fired`` says it as the turn is advanced; this
    says it for a sheet the database advancing the turn cannot name (a hidden sheet by e-mail),
    before the turn ends or, as a correction, once its accrual for the next turn is made.
    """

    kind: Literal["fired"] = "fired"
    sheets: tuple[str, ...] = Field(min_length=1, description="pending sheet ids")
    turn: int | None = Field(default=None, ge=1,
                             description="the turn they fired (default: the current one)")


class CheckImplementation(Command):
    """Roll for a pending sheet's implementation on the Prepared Defense line."""

    kind: Literal["check"] = "check"
    sheet: str
    columns: dict[str, Column] = Field(
        default_factory=dict, description="column for each company with both Hwy and TO"
    )
    rear_broken: dict[str, Annotated[int, Field(ge=-9, le=9)]] = Field(
        default_factory=dict,
        description="the enemy has broken into the rear (seed: further modifiers): the sheet "
                    "(all its companies), a formation or a company on it → the modifier added "
                    "to each of those companies' recovery rolls (lower is better)")


class Transfer(BaseModel):
    """Steps moved between two counters of one company in one hex (optional redistribution)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    target: str
    steps: int = Field(ge=1)


class Distribute(Command):
    """The player's distribution of a company's recovered steps."""

    kind: Literal["distribute"] = "distribute"
    company: str
    heal: dict[str, int] = Field(default_factory=dict)
    resurrect: dict[str, int] = Field(default_factory=dict)
    very_dead: tuple[str, ...] = ()
    place: dict[str, str] = Field(default_factory=dict)
    redistribute: tuple[Transfer, ...] = ()
    attest_distance: int | None = Field(
        default=None, ge=0, le=1,
        description="across a map-section seam: hexes from a placed counter to its center as "
                    "the player counts them (0 or 1)")


class SetMorale(Command):
    """Record a battalion morale change from the core game (hourly rolls, fire losses)."""

    kind: Literal["morale"] = "morale"
    formation: str
    # 0 is normal and it never goes below (clause 37). Above 13 even a 1 on the die reaches the
    # recovery table's last row (14+), so a larger value would change no roll: refused as a typo.
    value: int = Field(ge=0, le=13)
    reason: str = Field(default="", max_length=200)


class RollFos(Command):
    """At a whole hour, roll 2d6 for each dead Soviet FO."""

    kind: Literal["fo"] = "fo"
    place: dict[str, str] = Field(default_factory=dict)


TcsCommand = Annotated[
    RecordLoss | MoveCounter | LeaveCenter | WriteSheet | AdvanceTurn | CheckImplementation
    | Distribute | SetMorale | RollFos | Reassign | Attack | Accrue | MarkFired,
    Field(discriminator="kind"),
]
