"""The rally test as a chance node, who may take it, and automatic recovery's conditions.

:func:`plan_rally` validates a rally completely (nothing is rolled) and returns the chance node with
every modifier named; the same plan gives the odds a player sees (``squares odds``) and the roll
made in play (``squares rally``), so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from rallypoint.core.errors import Fix, Hint, IllegalNowError, MalformedInputError
from rallypoint.dice import D6, ChanceNode, Modifier, fraction_text
from rallypoint.rulesets.squares.data import MODIFIER_KEYS, RallyKind, Thresholds
from rallypoint.rulesets.squares.fixes import FixKind, fix
from rallypoint.rulesets.squares.grid import Square
from rallypoint.rulesets.squares.state import SquaresState


class RallyResult(StrEnum):
    """What a rally test's total means (seed: 6 or more passes, 0 or less breaks)."""

    PASS = "pass"
    NO_EFFECT = "no_effect"
    BREAK = "break"

    @property
    def label(self) -> str:
        """Words for the log: ``pass``, ``no effect``, ``break``."""
        return self.value.replace("_", " ")


def reading(thresholds: Thresholds) -> Callable[[int], RallyResult]:
    """Modified total → result, by the data's pass and break thresholds."""
    def read(total: int) -> RallyResult:
        if total >= thresholds.pass_at:
            return RallyResult.PASS
        if total <= thresholds.break_at:
            return RallyResult.BREAK
        return RallyResult.NO_EFFECT
    return read


def chances(node: ChanceNode, thresholds: Thresholds) -> dict[RallyResult, Fraction]:
    """Exact chance of each result, impossible ones included as 0 (a player asks for all three)."""
    found = node.outcomes(reading(thresholds))
    return {r: found.get(r, Fraction(0)) for r in RallyResult}


def chances_text(odds: dict[RallyResult, Fraction]) -> str:
    """``"pass 1/3, no effect 1/2, break 1/6"``."""
    return ", ".join(f"{r.label} {fraction_text(p)}" for r, p in odds.items())


def modifier_node(total: int) -> ChanceNode:
    """A rally test with one lumped modifier (for odds tables by total modifier)."""
    mods = (Modifier(name="total modifier", value=total),) if total else ()
    return ChanceNode(purpose="rally test", dice=D6, modifiers=mods)


@dataclass(frozen=True)
class RallyPlan:
    """A legal rally, ready to roll: who, what, where, and the chance node."""

    leader: str
    unit: str
    kind: RallyKind
    node: ChanceNode
    enemy_visible: dict[str, Any]

    def odds(self, state: SquaresState) -> dict[RallyResult, Fraction]:
        """Exact chances of pass, no effect and break."""
        return chances(self.node, state.rules.thresholds)


def _who(state: SquaresState, ident: str | None) -> str:
    return state.board.label(ident) if ident else "none"


def eligibility(state: SquaresState, leader_id: str, unit_id: str,
                kind: RallyKind) -> list[tuple[str, str | Fix]]:
    """Every reason the rally is not allowed now, each with its fix (empty: allowed).

    Raises:
        UnknownIdError: No such leader or unit.
        IllegalNowError: The unit is out of play (it never acts again).
    """
    leader_id, unit_id = state.find(leader_id, "leader"), state.find(unit_id, "unit")
    unit = state.live_unit(unit_id)
    board, limits, params = state.board, state.rules.thresholds, state.rules.params
    problems: list[tuple[str, str | Fix]] = []
    brigadier = board.brigadier_of(unit_id)
    commander = board.commander_of(board.side_of(unit_id))
    if leader_id not in (brigadier, commander):
        problems.append((
            f"{_who(state, leader_id)} is neither its brigadier ({_who(state, brigadier)}) nor "
            f"its army commander ({_who(state, commander)})",
            "Rally with the unit's brigadier or its army commander."))
    lost = state.stamina(unit_id) - unit.sp
    enough = lost >= limits.rally_after_sp_lost
    if params.rally_eligibility == "either" and not (enough or unit.disordered):
        problems.append((
            f"it has lost {lost} SP and is not disordered (a rally needs "
            f"{limits.rally_after_sp_lost}+ SP lost or disorder)",
            "Rally only a disordered unit or one that has lost enough SP."))
    elif kind is RallyKind.DISORDER and not unit.disordered:
        problems.append(("it is not disordered",
                         fix(FixKind.RALLY_SP_INSTEAD, lost=str(limits.rally_after_sp_lost))))
    elif kind is RallyKind.SP and params.rally_eligibility == "per_kind" and not enough:
        problems.append((
            f"it has lost {lost} SP (an SP rally needs {limits.rally_after_sp_lost} or more)",
            fix(FixKind.RALLY_DISORDER_OR_WAIT)))
    elif kind is RallyKind.SP and lost == 0:
        problems.append(("it has lost no SP", fix(FixKind.RALLY_DISORDER_INSTEAD)))
    enemies = state.enemies_adjacent(unit_id)
    if params.enemy_leaders_block_rally:
        enemies += state.enemy_leaders_adjacent(unit_id)
    if enemies:
        problems.append((f"enemy adjacent: {', '.join(_who(state, e) for e in enemies)}",
                         "No rally while an enemy is adjacent (seed); move away or wait."))
    if params.once_per_turn and leader_id in state.activated:
        problems.append((f"{_who(state, leader_id)} has already activated this turn",
                         fix(FixKind.ADVANCE_TURN)))
    return problems


def rally_kind(state: SquaresState, leader_id: str, unit_id: str) -> RallyKind:
    """The one kind of rally the leader may try on the unit now (for a rally given no kind).

    Raises:
        UnknownIdError: No such leader or unit.
        IllegalNowError: No kind is allowed (the reasons of the kind the player most likely
            meant: disorder for a disordered unit, else SP).
        MalformedInputError: Both kinds are allowed, so the player must choose (the odds of each
            are in the message).
    """
    leader_id, unit_id = state.find(leader_id, "leader"), state.find(unit_id, "unit")
    allowed = [k for k in RallyKind if not eligibility(state, leader_id, unit_id, k)]
    if len(allowed) == 1:
        return allowed[0]
    if not allowed:
        meant = RallyKind.DISORDER if state.units[unit_id].disordered else RallyKind.SP
        plan_rally(state, leader_id, unit_id, meant)   # raises, listing every reason
    # Both kinds are allowed here (none returned above, one returned the kind).
    chances = {k.value: chances_text(plan_rally(state, leader_id, unit_id, k).odds(state))
               for k in allowed}
    raise MalformedInputError(
        f"{_who(state, leader_id)} may rally {_who(state, unit_id)} for disorder or for SP",
        fix=fix(FixKind.CHOOSE_RALLY_KIND, **chances), instead=Hint.FIX_FIELD)


def plan_rally(state: SquaresState, leader_id: str, unit_id: str, kind: RallyKind,
               enemy_visible: bool | None = None) -> RallyPlan:
    """Validate a rally fully and build its chance node; nothing is rolled.

    Args:
        state: The battle now.
        leader_id: The leader whose activation is spent.
        unit_id: The testing unit.
        kind: Disorder or SP.
        enemy_visible: The player's ruling on 'enemy visible'; ``None`` computes line of sight.

    Raises:
        UnknownIdError: No such leader or unit.
        IllegalNowError: The rally is not allowed now (every reason is listed).
    """
    leader_id, unit_id = state.find(leader_id, "leader"), state.find(unit_id, "unit")
    problems = eligibility(state, leader_id, unit_id, kind)
    if problems:
        raise IllegalNowError(
            f"{_who(state, leader_id)} cannot rally {_who(state, unit_id)} for {kind.value}: "
            + "; ".join(what for what, _ in problems), fix=problems[0][1])
    seen = state.enemies_seen(unit_id)
    visible = bool(seen) if enemy_visible is None else enemy_visible
    mods = modifiers(state, leader_id, unit_id, kind, visible, ruled=enemy_visible is not None)
    node = ChanceNode(
        purpose=f"{state.board.name(leader_id)} rallies {state.board.name(unit_id)} "
                f"({'disorder' if kind is RallyKind.DISORDER else 'SP'})",
        dice=D6, modifiers=mods)
    return RallyPlan(leader_id, unit_id, kind, node,
                     {"computed": bool(seen), "ruling": enemy_visible, "seen": seen})


def modifiers(state: SquaresState, leader_id: str, unit_id: str, kind: RallyKind,
              enemy_visible: bool, ruled: bool = False) -> tuple[Modifier, ...]:
    """The rally test's named modifiers, in the seed's order; those worth 0 are left out.

    The rallying leader counts as already in the unit's square (seed: the leader figure is moved
    there before the die is rolled).
    """
    board, rules = state.board, state.rules
    unit = state.units[unit_id]
    here = unit.square

    def square_of(leader: str | None) -> str | None:
        if leader is None:
            return None
        return here if leader == leader_id else state.leaders[leader].square

    brigadier = board.brigadier_of(unit_id)
    commander = board.commander_of(board.side_of(unit_id))
    friends = state.friends_near(unit_id)
    shaken = [f for f in friends if state.shaken(f)]
    steady = [f for f in friends if not state.shaken(f)]
    lost = state.stamina(unit_id) - unit.sp
    names = {f: board.name(f) for f in friends}
    terrain = board.terrain.get(Square.parse(here))
    found: list[Modifier] = []
    for key in MODIFIER_KEYS:
        rule = rules.modifier(key)
        if not rule.applies_to(kind):
            continue
        value, detail = 0, ""
        if key == "disorder_recovery":
            value = rule.value
        elif key == "sp_lost":
            value, detail = rule.value * lost, f"{state.stamina(unit_id)}→{unit.sp}"
        elif key == "both_leaders":
            both = brigadier and commander and square_of(brigadier) == square_of(commander) == here
            value = rule.value if both else 0
            detail = f"{board.name(brigadier or '')}, {board.name(commander or '')}"
        elif key == "fortification":
            value = rule.value if state.friendly_fortification(unit_id) else 0
            detail = f"{terrain.kind if terrain else ''} at {here}"
        elif key == "no_enemy_visible":
            value = 0 if enemy_visible else rule.value
            detail = "player's ruling" if ruled else "line of sight"
        elif key == "shaken_friends":
            value, detail = rule.value * len(shaken), ", ".join(names[f] for f in shaken)
        elif key == "no_friends":
            # A shaken friend is still "a friendly unit" (parameter shaken_friends_are_friends;
            # false: only non-shaken friends keep a unit from being alone).
            counted = friends if state.rules.params.shaken_friends_are_friends else steady
            value = 0 if counted else rule.value
        elif key == "steady_friends":
            value, detail = rule.value * len(steady), ", ".join(names[f] for f in steady)
            if rule.cap is not None and abs(value) > rule.cap:
                value = rule.cap if value > 0 else -rule.cap
                detail += f"; at most {rule.cap:+d}"
        if value:
            found.append(Modifier(name=f"{rule.name} ({detail})" if detail else rule.name,
                                  value=value))
    return tuple(found)


def recovery_conditions(state: SquaresState, unit_id: str) -> dict[str, Any]:
    """The seed's three conditions for automatic recovery, each with what decided it."""
    unit = state.units[unit_id]
    enemies = state.enemies_adjacent(unit_id)
    fire = list(state.under_fire.get(unit_id, ()))
    floor = state.rules.thresholds.recovery_needs_more_than
    return {
        "no_enemy_adjacent": not enemies, "adjacent_enemies": enemies,
        "not_under_fire": not fire, "under_fire": fire,
        "enough_sp": unit.sp > floor, "sp": unit.sp, "needs_more_than": floor,
    }


def opportunities(state: SquaresState) -> list[RallyPlan]:
    """Every rally allowed now (who may test, with whom, for what), line of sight computed."""
    plans: list[RallyPlan] = []
    board = state.board
    for unit in state.in_play():
        leaders = [board.brigadier_of(unit.id), board.commander_of(board.side_of(unit.id))]
        for leader in leaders:
            if leader is None:
                continue
            for kind in RallyKind:
                if not eligibility(state, leader, unit.id, kind):
                    plans.append(plan_rally(state, leader, unit.id, kind))
    return plans
