"""Squares battle state: frozen values rebuilt by folding events.

``Board`` (grid, terrain, order of battle) is static and shared by every state of a campaign;
everything that changes lives in small frozen values replaced, never mutated, by :func:`fold.apply`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.core.suggest import match_id
from rallypoint.errors import Hint
from rallypoint.rulesets.squares.data import RulesData
from rallypoint.rulesets.squares.fixes import FixKind, fix
from rallypoint.rulesets.squares.grid import Square, adjacent, near, sight_blocker
from rallypoint.rulesets.squares.scenario import (
    BrigadeSpec,
    LeaderSpec,
    Role,
    Scenario,
    TerrainSpec,
    UnitSpec,
)


class Status(StrEnum):
    """Whether a unit is still in play."""

    IN_PLAY = "in_play"
    BROKEN = "broken"
    """Broke on a rally test (seed: 'the unit breaks and is removed from play')."""
    DESTROYED = "destroyed"
    """Lost its last SP (the seed is silent; removed from play like a broken unit)."""


@dataclass(frozen=True)
class Board:
    """The grid, its terrain and the order of battle, indexed. Built once per campaign."""

    scenario: Scenario

    @cached_property
    def units(self) -> dict[str, UnitSpec]:
        """Unit id → spec."""
        return {u.id: u for u in self.scenario.units}

    @cached_property
    def leaders(self) -> dict[str, LeaderSpec]:
        """Leader id → spec."""
        return {ld.id: ld for ld in self.scenario.leaders}

    @cached_property
    def brigades(self) -> dict[str, BrigadeSpec]:
        """Brigade id → spec."""
        return {b.id: b for b in self.scenario.brigades}

    @cached_property
    def terrain(self) -> dict[Square, TerrainSpec]:
        """Square → the terrain entry covering it (absent: open)."""
        return {Square.parse(sq): t for t in self.scenario.terrain for sq in t.squares}

    @cached_property
    def side_marks(self) -> dict[str, str]:
        """Side id → the shortest upper-case prefix of it that no other side shares.

        The board marks each unit and leader with it, so sides are told apart without colour
        (piped output, ``NO_COLOR``, a colour-blind player).
        """
        ids = [s.id for s in self.scenario.sides]
        marks: dict[str, str] = {}
        for ident in ids:
            others = [o.upper() for o in ids if o != ident]
            length = 1
            while length < len(ident) and any(o.startswith(ident[:length].upper())
                                              for o in others):
                length += 1
            marks[ident] = ident[:length].upper()
        return marks

    def side_of(self, ident: str) -> str:
        """The side of a unit or leader."""
        if ident in self.units:
            return self.brigades[self.units[ident].brigade].side
        leader = self.leaders[ident]
        if leader.side is not None:
            return leader.side
        return self.brigades[str(leader.brigade)].side

    def brigadier_of(self, unit_id: str) -> str | None:
        """The id of the unit's brigadier, if the scenario gives one."""
        brigade = self.units[unit_id].brigade
        return next((ld.id for ld in self.scenario.leaders
                     if ld.role is Role.BRIGADIER and ld.brigade == brigade), None)

    def commander_of(self, side: str) -> str | None:
        """The id of a side's army commander, if the scenario gives one."""
        return next((ld.id for ld in self.scenario.leaders
                     if ld.role is Role.ARMY_COMMANDER and ld.side == side), None)

    def name(self, ident: str) -> str:
        """Display name of a unit, leader, brigade or side (falls back to the id)."""
        for spec in (self.units.get(ident), self.leaders.get(ident), self.brigades.get(ident)):
            if spec is not None:
                return spec.name or ident
        side = next((s for s in self.scenario.sides if s.id == ident), None)
        return (side.name or ident) if side is not None else ident

    def label(self, ident: str) -> str:
        """``Name (id)`` for messages; just the id when it has no other name."""
        name = self.name(ident)
        return ident if name == ident else f"{name} ({ident})"

    def square(self, text: str) -> Square:
        """Parse a square and check it is on the grid."""
        sq = Square.parse(text)
        grid = self.scenario.grid
        if sq.col > grid.columns or sq.row > grid.rows:
            raise IllegalNowError(
                f"square {text!r} is off the {grid.columns}x{grid.rows} grid",
                fix=f"Use a square from A1 to {Square(grid.columns, grid.rows)}.")
        return sq


@dataclass(frozen=True)
class UnitState:
    """A unit's condition."""

    id: str
    sp: int
    square: str
    disordered: bool = False
    status: Status = Status.IN_PLAY

    @property
    def in_play(self) -> bool:
        """Still on the table (neither broken nor destroyed)."""
        return self.status is Status.IN_PLAY


@dataclass(frozen=True)
class LeaderState:
    """A leader's square and the unit it is attached to (seed: 'temporarily attached')."""

    id: str
    square: str
    attached: str | None = None


@dataclass(frozen=True)
class Activation:
    """The activation under way: who, and whether it began with an automatic recovery."""

    who: str
    recovered: bool = False


@dataclass(frozen=True)
class SquaresState:
    """Everything that changes in a squares battle."""

    board: Board
    rules: RulesData
    turn: int
    units: dict[str, UnitState]
    leaders: dict[str, LeaderState]
    under_fire: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Unit id → what targeted it this turn (``ranged``, ``bombardment``)."""
    activated: frozenset[str] = frozenset()
    """Units and leaders that activated this turn."""
    activation: Activation | None = None
    sight: dict[str, bool] = field(default_factory=dict)
    """Player rulings, ``"A1|C3"`` → visible; they override the computed line of sight."""

    def find(self, text: str, what: str = "unit or leader") -> str:
        """The id ``text`` names among the units, the leaders, or both: as typed, else in any
        case (``28TH`` is ``28th``).

        Raises:
            UnknownIdError: No such id (the nearest ids are suggested; a leader's id given for a
                unit, or the other way round, is said so).
            MalformedInputError: Ids that differ only by case both fit.
        """
        pools = {"unit": list(self.units), "leader": list(self.leaders)}
        pool = [i for kind, ids in pools.items() if kind in what for i in ids]
        other = "leader" if what == "unit" else "unit" if what == "leader" else None
        if other and text not in pool and any(
                i.casefold() == text.strip().casefold() for i in pools[other]):
            raise UnknownIdError(f"no {what} {text!r} in this battle (that is a {other})",
                                 fix=fix(FixKind.PICK_KIND_OF_ID, what=what),
                                 instead=Hint.PICK_ID)
        return match_id(text.strip(), pool, what, scope="in this battle",
                        fix=fix(FixKind.PICK_KIND_OF_ID, what=what),
                        instead=Hint.PICK_ID)

    def unit(self, ident: str) -> UnitState:
        """A unit's state (its id in any case); an unknown id is refused."""
        return self.units[self.find(ident, "unit")]

    def leader(self, ident: str) -> LeaderState:
        """A leader's state (its id in any case); an unknown id is refused."""
        return self.leaders[self.find(ident, "leader")]

    def live_unit(self, ident: str) -> UnitState:
        """A unit still in play; a broken or destroyed one is refused (it never acts again)."""
        unit = self.unit(ident)
        if not unit.in_play:
            raise IllegalNowError(
                f"{self.board.label(unit.id)} is {unit.status.value} and out of play",
                fix="A unit removed from play never acts again; undo if that was a slip.")
        return unit

    def stamina(self, unit_id: str) -> int:
        """Starting stamina of a unit."""
        return self.board.units[unit_id].stamina

    def shaken(self, unit_id: str) -> bool:
        """Shaken: down to the shaken SP (1) and still in play."""
        unit = self.units[unit_id]
        return unit.in_play and unit.sp == self.rules.thresholds.shaken_sp

    def in_play(self) -> list[UnitState]:
        """Every unit still on the table, in scenario order."""
        return [u for u in self.units.values() if u.in_play]

    def enemies_adjacent(self, unit_id: str) -> list[str]:
        """Enemy units in play in an adjacent square (the same square too, by parameter
        ``same_square_is_adjacent``)."""
        me = self.units[unit_id]
        side, here = self.board.side_of(unit_id), Square.parse(me.square)
        close = self._enemy_close()
        return [u.id for u in self.in_play()
                if self.board.side_of(u.id) != side and close(here, Square.parse(u.square))]

    def enemy_leaders_adjacent(self, unit_id: str) -> list[str]:
        """Enemy leader figures in the same or an adjacent square (for the rally clause's 'any
        enemy is adjacent', parameter ``enemy_leaders_block_rally``)."""
        me = self.units[unit_id]
        side, here = self.board.side_of(unit_id), Square.parse(me.square)
        close = self._enemy_close()
        return [ld.id for ld in self.leaders.values()
                if self.board.side_of(ld.id) != side and close(here, Square.parse(ld.square))]

    def _enemy_close(self) -> Callable[[Square, Square], bool]:
        """The seed's "adjacent" for an enemy ("no enemy units in an adjacent square", "any
        enemy is adjacent"). The reading: an enemy in the unit's own square is closer still,
        so it counts (parameter ``same_square_is_adjacent``; false: the squares around only)."""
        params = self.rules.params
        test = near if params.same_square_is_adjacent else adjacent
        return lambda a, b: test(a, b, params.adjacency)

    def friends_near(self, unit_id: str) -> list[str]:
        """Other friendly units in play in the same or adjacent squares."""
        me = self.units[unit_id]
        side, here = self.board.side_of(unit_id), Square.parse(me.square)
        adjacency = self.rules.params.adjacency
        return [u.id for u in self.in_play() if u.id != unit_id
                and self.board.side_of(u.id) == side
                and near(here, Square.parse(u.square), adjacency)]

    def attached_to(self, unit_id: str) -> list[str]:
        """Leaders attached to a unit."""
        return [ld.id for ld in self.leaders.values() if ld.attached == unit_id]

    def blocks_sight(self, square: Square) -> bool:
        """Whether a square blocks a sight line passing through it."""
        entry = self.board.terrain.get(square)
        if entry is not None and self.rules.terrain.kinds[entry.kind].blocks_sight:
            return True
        return self.rules.params.units_block_sight and any(
            Square.parse(u.square) == square for u in self.in_play())

    def ruling(self, a: Square, b: Square) -> bool | None:
        """The player's ruling on sight between two squares, if any."""
        return self.sight.get(sight_key(a, b))

    def sees(self, a: Square, b: Square) -> tuple[bool, str]:
        """Whether sight runs between ``a`` and ``b``, and why (ruling, blocker, or clear)."""
        ruled = self.ruling(a, b)
        if ruled is not None:
            return ruled, "player's ruling"
        blocker = sight_blocker(a, b, self.blocks_sight, self.rules.params.line_of_sight)
        if blocker is None:
            return True, "clear"
        entry = self.board.terrain.get(blocker)
        return False, f"blocked at {blocker}" + (f" ({entry.kind})" if entry else " (units)")

    def enemies_seen(self, unit_id: str) -> list[str]:
        """Enemy units in play that the unit can see (computed, or by the player's rulings)."""
        here, side = Square.parse(self.units[unit_id].square), self.board.side_of(unit_id)
        return [u.id for u in self.in_play() if self.board.side_of(u.id) != side
                and self.sees(here, Square.parse(u.square))[0]]

    def friendly_fortification(self, unit_id: str) -> bool:
        """The unit stands in fortification terrain that is its side's (or nobody's)."""
        entry = self.board.terrain.get(Square.parse(self.units[unit_id].square))
        if entry is None or not self.rules.terrain.kinds[entry.kind].fortification:
            return False
        # Terrain that belongs to nobody is friendly to whoever holds it (parameter
        # ``unowned_fortification_friendly``; false: only terrain given to the unit's side).
        if entry.side is None:
            return self.rules.params.unowned_fortification_friendly
        return entry.side == self.board.side_of(unit_id)


def sight_key(a: Square, b: Square) -> str:
    """The key of a pair of squares, the same in either order."""
    first, second = sorted((a, b))
    return f"{first}|{second}"
