"""Squares rules: ``decide`` turns a command into one event (rolls inside); never mutates state.

Each ``_decide_*`` validates against the state and raises before any roll when the command is
illegal, so a refused command changes nothing. The event payload carries every outcome (the new
condition of each unit and leader it touched, the roll, the result), which keeps :mod:`fold`
trivial and replay exact.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rallypoint.core.errors import IllegalNowError, MalformedInputError, UnknownIdError
from rallypoint.core.ruleset import Command
from rallypoint.core.suggest import foreign_command
from rallypoint.dice import Roller, roll
from rallypoint.errors import Hint
from rallypoint.rulesets.squares import rally as rl
from rallypoint.rulesets.squares.commands import (
    Activate,
    Disorder,
    LoseSp,
    MarkFire,
    Move,
    NextTurn,
    Rally,
    SetSight,
)
from rallypoint.rulesets.squares.data import RallyKind
from rallypoint.rulesets.squares.events import (
    Activated,
    Disordered,
    FiredUpon,
    LeaderAfter,
    Moved,
    Rallied,
    RecoveryConditions,
    Sight,
    SightSet,
    SpLost,
    SquaresEvent,
    TurnAdvanced,
    UnitAfter,
)
from rallypoint.rulesets.squares.fixes import FixKind, fix
from rallypoint.rulesets.squares.state import (
    LeaderState,
    SquaresState,
    Status,
    UnitState,
    sight_key,
)


def unit_after(u: UnitState) -> UnitAfter:
    """A unit's condition as stored in an event."""
    return UnitAfter(sp=u.sp, square=u.square, disordered=u.disordered, status=u.status)


def leader_after(ld: LeaderState) -> LeaderAfter:
    """A leader's condition as stored in an event."""
    return LeaderAfter(square=ld.square, attached=ld.attached)


def decide(state: SquaresState, command: Command, roller: Roller) -> SquaresEvent:
    """Validate a squares command and return its event."""
    command = canonical(state, command)
    if isinstance(command, Rally):
        return _decide_rally(state, command, roller)
    handlers: dict[type[Command], Any] = {
        Move: _decide_move, MarkFire: _decide_fire, LoseSp: _decide_lose,
        Disorder: _decide_disorder, Activate: _decide_activate, NextTurn: _decide_turn,
        SetSight: _decide_sight,
    }
    handler = handlers.get(type(command))
    if handler is None:
        raise MalformedInputError(f"{foreign_command(command)} is not a squares command",
                                  fix=fix(FixKind.SQUARES_COMMAND),
                                  instead=Hint.FIX_FIELD)
    event: SquaresEvent = handler(state, command)
    return event


_ID_FIELDS = {"who": "unit or leader", "unit": "unit", "leader": "leader"}
"""The command fields that name a unit or a leader, and which of the two each may name."""


def canonical(state: SquaresState, command: Command) -> Command:
    """The command with every unit and leader id as the board spells it (typed in any case).

    An unknown id is refused here, with the nearest ids, before any rule is judged.
    """
    update = {name: state.find(getattr(command, name), what)
              for name, what in _ID_FIELDS.items() if isinstance(getattr(command, name, None), str)}
    return command.model_copy(update=update) if update else command


def _unknown(state: SquaresState, who: str) -> UnknownIdError:
    return UnknownIdError(f"no unit or leader {who!r} in this battle",
                          fix=fix(FixKind.PICK_ID), instead=Hint.PICK_ID)


def _once(state: SquaresState, who: str) -> None:
    if state.rules.params.once_per_turn and who in state.activated:
        raise IllegalNowError(
            f"{state.board.label(who)} has already activated on turn {state.turn}",
            fix=fix(FixKind.ADVANCE_TURN), instead="turn")


def _detach(state: SquaresState, unit_id: str) -> dict[str, LeaderAfter]:
    return {ld: leader_after(replace(state.leaders[ld], attached=None))
            for ld in state.attached_to(unit_id)}


def _decide_move(state: SquaresState, cmd: Move) -> Moved:
    if cmd.who in state.units:
        unit = state.live_unit(cmd.who)
        origin = unit.square
    elif cmd.who in state.leaders:
        leader = state.leaders[cmd.who]
        origin = leader.square
        if leader.attached is not None:
            raise IllegalNowError(
                f"{state.board.name(cmd.who)} is attached to {state.board.name(leader.attached)} "
                "until either of them activates",
                fix=fix(FixKind.ACTIVATE_FIRST, who=cmd.who),
                instead="activate")
    else:
        raise _unknown(state, cmd.who)
    target = str(state.board.square(cmd.square))
    if target == origin:
        raise IllegalNowError(f"{cmd.who} is already at {target}", fix="Give another square.")
    active = state.activation
    if active is not None and active.who == cmd.who and active.recovered:
        raise IllegalNowError(
            f"{state.board.name(cmd.who)} recovered from disorder in this activation: it may "
            "fire but not move", fix="Move it in a later activation.")
    units: dict[str, UnitAfter] = {}
    leaders: dict[str, LeaderAfter] = {}
    carried: list[str] = []
    if cmd.who in state.units:
        units[cmd.who] = unit_after(replace(state.units[cmd.who], square=target))
        carried = state.attached_to(cmd.who)
        for ld in carried:
            leaders[ld] = leader_after(replace(state.leaders[ld], square=target))
    else:
        leaders[cmd.who] = leader_after(replace(state.leaders[cmd.who], square=target))
    return Moved(who=cmd.who, from_=origin, to=target, carried=tuple(carried), units=units,
                 leaders=leaders)


def _decide_fire(state: SquaresState, cmd: MarkFire) -> FiredUpon:
    state.live_unit(cmd.unit)
    return FiredUpon(unit=cmd.unit, fire=cmd.fire, turn=state.turn)


def _decide_lose(state: SquaresState, cmd: LoseSp) -> SpLost:
    unit = state.live_unit(cmd.unit)
    if cmd.sp > unit.sp:
        raise IllegalNowError(f"{cmd.unit} has {unit.sp} SP left, cannot lose {cmd.sp}",
                              fix=f"Lose at most {unit.sp} (which removes it from play).")
    left = unit.sp - cmd.sp
    status = Status.IN_PLAY if left else Status.DESTROYED
    after = replace(unit, sp=left, status=status)
    return SpLost(unit=cmd.unit, sp=cmd.sp, before=unit.sp, after=left,
                  shaken=left == state.rules.thresholds.shaken_sp, destroyed=not left,
                  units={cmd.unit: unit_after(after)},
                  leaders=_detach(state, cmd.unit) if not left else {})


def _decide_disorder(state: SquaresState, cmd: Disorder) -> Disordered:
    unit = state.live_unit(cmd.unit)
    if unit.disordered:
        raise IllegalNowError(f"{cmd.unit} is already disordered",
                              fix="Nothing to record (undo if the earlier one was a slip).")
    return Disordered(unit=cmd.unit, units={cmd.unit: unit_after(replace(unit, disordered=True))})


def _decide_activate(state: SquaresState, cmd: Activate) -> Activated:
    if cmd.who in state.leaders:
        _once(state, cmd.who)
        leader = state.leaders[cmd.who]
        return Activated(
            who=cmd.who, role="leader", turn=state.turn,
            detached=(leader.attached,) if leader.attached else (), recovery=None,
            recovered=False,
            leaders={cmd.who: leader_after(replace(leader, attached=None))}
            if leader.attached else {})
    if cmd.who not in state.units:
        raise _unknown(state, cmd.who)
    unit = state.live_unit(cmd.who)
    _once(state, cmd.who)
    recovery = None
    recovered = False
    units: dict[str, UnitAfter] = {}
    if unit.disordered:
        recovery = RecoveryConditions.model_validate(rl.recovery_conditions(state, cmd.who))
        recovered = recovery.no_enemy_adjacent and recovery.not_under_fire and \
            recovery.enough_sp
        if recovered:
            units[cmd.who] = unit_after(replace(unit, disordered=False))
    return Activated(who=cmd.who, role="unit", turn=state.turn,
                     detached=tuple(state.attached_to(cmd.who)), recovery=recovery,
                     recovered=recovered, units=units, leaders=_detach(state, cmd.who))


def _decide_rally(state: SquaresState, cmd: Rally, roller: Roller) -> Rallied:
    plan = rl.plan_rally(state, cmd.leader, cmd.unit, cmd.rally, cmd.enemy_visible)
    thresholds = state.rules.thresholds
    read = rl.reading(thresholds)
    r = roll(plan.node, roller, reading=lambda v: read(v).label,
             odds=lambda n: rl.chances_text(rl.chances(n, thresholds)))
    result = read(r.total)
    unit, leader = state.units[cmd.unit], state.leaders[cmd.leader]
    after = unit
    if result is rl.RallyResult.PASS and cmd.rally is RallyKind.DISORDER:
        after = replace(unit, disordered=False)
    elif result is rl.RallyResult.PASS:
        gain = state.rules.params.sp_rally_gain
        stamina = state.stamina(cmd.unit)
        after = replace(unit, sp=stamina if gain == "all" else min(stamina, unit.sp + gain))
        # A passed SP rally leaves disorder alone (parameter sp_rally_clears_disorder; true:
        # "the results applied" as a full rally, disorder removed too).
        if state.rules.params.sp_rally_clears_disorder:
            after = replace(after, disordered=False)
    elif result is rl.RallyResult.BREAK:
        after = replace(unit, status=Status.BROKEN)
    leaders = _detach(state, cmd.unit) if result is rl.RallyResult.BREAK else {}
    # The leader is attached until it or the unit activates next; a broken unit takes no one.
    attached = None if result is rl.RallyResult.BREAK else cmd.unit
    leaders[cmd.leader] = leader_after(replace(leader, square=unit.square, attached=attached))
    return Rallied(
        leader=cmd.leader, unit=cmd.unit, rally=cmd.rally, turn=state.turn,
        from_=leader.square, square=unit.square,
        detached_from=leader.attached if leader.attached not in (None, cmd.unit) else None,
        enemy_visible=Sight.model_validate(plan.enemy_visible), roll=r, result=result,
        sp_before=unit.sp, sp_after=after.sp, units={cmd.unit: unit_after(after)}, leaders=leaders)


def _decide_turn(state: SquaresState, cmd: NextTurn) -> TurnAdvanced:
    return TurnAdvanced(turn=state.turn + 1, cleared_fire=tuple(sorted(state.under_fire)))


def _decide_sight(state: SquaresState, cmd: SetSight) -> SightSet:
    a, b = state.board.square(cmd.a), state.board.square(cmd.b)
    if a == b:
        raise IllegalNowError(f"{a} and {b} are the same square",
                              fix="A square always sees itself; give two different squares.")
    key = sight_key(a, b)
    if cmd.ruling == "auto" and key not in state.sight:
        raise IllegalNowError(f"there is no ruling on sight between {a} and {b} to remove",
                              fix=fix(FixKind.RULE_SIGHT), instead=Hint.FIX_FIELD)
    before = state.sight.get(key)
    computed = replace(state, sight={k: v for k, v in state.sight.items() if k != key})
    visible, why = computed.sees(a, b)
    return SightSet(key=key, a=str(a), b=str(b), ruling=cmd.ruling, before=before,
                    computed=visible, why=why)
