"""TCS R&R rules: ``decide`` turns a command into one event (rolls inside); never mutates state.

Each ``_decide_*`` validates against the state and raises before any roll when the command is
illegal, so a refused command changes nothing. The resulting event payload carries every
outcome (new counter conditions, rolls, morale), which keeps :mod:`fold` trivial and replay exact.
"""

from __future__ import annotations

from typing import Any

from rallypoint.core.errors import Hint, IllegalNowError, MalformedInputError, UnknownIdError
from rallypoint.core.ruleset import Command
from rallypoint.dice import Roller, fraction_text, roll
from rallypoint.rulesets.tcs import recovery as rec
from rallypoint.rulesets.tcs.center import decide_leave, leave_outcome, leaving_together
from rallypoint.rulesets.tcs.commands import (
    Accrue,
    AdvanceTurn,
    Attack,
    CheckImplementation,
    Distribute,
    LeaveCenter,
    MarkFired,
    MoveCounter,
    Reassign,
    RecordLoss,
    RollFos,
    SetMorale,
    WriteSheet,
)
from rallypoint.rulesets.tcs.data import Column
from rallypoint.rulesets.tcs.distribution import after_distribution, validate
from rallypoint.rulesets.tcs.events import (
    CounterAfter,
    Distributed,
    ImplementationChecked,
    LeaveOutcome,
    Loss,
    MoraleRoll,
    MoraleSet,
    Moved,
    RecoveryRoll,
    SheetWritten,
    TcsEvent,
    Transfer,
)
from rallypoint.rulesets.tcs.fixes import FixKind, fix
from rallypoint.rulesets.tcs.fo import decide_fo
from rallypoint.rulesets.tcs.hexes import Hex, hexes_apart
from rallypoint.rulesets.tcs.ids import canonical
from rallypoint.rulesets.tcs.implementation import never_implements, rear_modifiers, refuse_no_cell
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import CounterState, SheetState, SheetStatus, TcsState
from rallypoint.rulesets.tcs.turns import (
    decide_accrue,
    decide_attack,
    decide_fired,
    decide_reassign,
    decide_turn,
    refuse_if_owed,
)

CENTER_CONDITIONS = (
    "out of reach of enemy direct fire weapons; at least partly protective terrain and a "
    "track/road; for an annihilated formation, near where it was last seen or to the rear of its "
    "parent formation"
)
BASE_CAUSES = ("combat", "surrender", "doubles")


def _cstate(c: CounterState) -> CounterAfter:
    return CounterAfter(steps=c.steps, pile=c.pile, hex=c.hex)


_VERY_DEAD = CounterAfter(steps=0, pile=Pile.VERY_DEAD, hex=None)


def _counter(state: TcsState, ident: str) -> CounterState:
    if ident not in state.counters:
        raise UnknownIdError(f"no counter {ident!r} in this scenario",
                             fix=fix(FixKind.PICK_COUNTER), instead=Hint.PICK_ID)
    return state.counters[ident]


def _company(state: TcsState, ident: str) -> str:
    if ident not in state.oob.companies:
        raise UnknownIdError(f"no company {ident!r} in this scenario",
                             fix=fix(FixKind.PICK_COMPANY), instead=Hint.PICK_ID)
    return ident


def decide(state: TcsState, command: Command, roller: Roller) -> TcsEvent:
    """Validate a TCS command and return its event (ids in any case: see :mod:`ids`)."""
    command = canonical(state, command)
    handlers: dict[type[Command], Any] = {
        RecordLoss: _decide_loss, MoveCounter: _decide_move, LeaveCenter: decide_leave,
        WriteSheet: _decide_sheet, AdvanceTurn: decide_turn, SetMorale: _decide_morale,
        Reassign: decide_reassign, Attack: decide_attack, Accrue: decide_accrue,
        MarkFired: decide_fired,
    }
    handler = handlers.get(type(command))
    if handler is not None:
        event: TcsEvent = handler(state, command)
        return event
    if isinstance(command, CheckImplementation):
        return _decide_check(state, command, roller)
    if isinstance(command, Distribute):
        return _decide_distribute(state, command, roller)
    if isinstance(command, RollFos):
        return decide_fo(state, command, roller)
    raise MalformedInputError(f"{type(command).__name__} is not a TCS command",
                              fix=fix(FixKind.TCS_COMMAND), instead=Hint.FIX_FIELD)


def route(state: TcsState, counter_id: str, cause: str) -> tuple[Pile, str, int | None]:
    """Which pile an eliminated counter goes to, why, and the exception count if one applies."""
    oob = state.oob
    spec = oob.counter_specs[counter_id]
    company = oob.company_of[counter_id]
    side = next(s for s in oob.scenario.sides if s.id == oob.side_of(company))
    exceptions = {e.cause: e for e in oob.scenario.dead_pile_exceptions}
    if cause not in BASE_CAUSES and cause not in exceptions:
        raise MalformedInputError(
            f"unknown elimination cause {cause!r}",
            fix=f"Use one of: {', '.join([*BASE_CAUSES, *exceptions])}.")
    if spec.kind == "fo" and side.fo_pile:
        return Pile.FO, "Soviet FO: its own pile, rolled for every whole hour", None
    if cause == "surrender":
        return Pile.VERY_DEAD, "Surrender result: Very Dead", None
    if cause == "doubles":
        if spec.target == "P":
            return Pile.VERY_DEAD, "P-type target eliminated by a doubles roll: Very Dead", None
        return Pile.DEAD, "doubles, but not a P-type target: Dead Pile", None
    if cause in exceptions:
        ex = exceptions[cause]
        n = state.exception_counts.get(cause, 0) + 1
        if n % ex.every == 0:
            return Pile.DEAD, f"{ex.description}: #{n} goes to the Dead Pile", n
        return Pile.VERY_DEAD, f"{ex.description}: #{n} is Very Dead", n
    return Pile.DEAD, "eliminated: Dead Pile", None


def _decide_loss(state: TcsState, cmd: RecordLoss) -> Loss:
    c = _counter(state, cmd.counter)
    if c.pile is not Pile.MAP:
        raise IllegalNowError(f"{cmd.counter} is not on the map (it is in the {c.pile.value} pile)",
                              fix="Record losses only for counters in play.")
    causes = (*BASE_CAUSES, *(e.cause for e in state.oob.scenario.dead_pile_exceptions))
    if cmd.cause not in causes:
        raise MalformedInputError(f"unknown elimination cause {cmd.cause!r}",
                                  fix=f"Use one of: {', '.join(causes)}.")
    steps = cmd.steps if cmd.steps is not None else c.steps
    if steps > c.steps:
        raise IllegalNowError(f"{cmd.counter} has {c.steps} step(s) left, cannot lose {steps}",
                              fix=f"Lose at most {c.steps} (which eliminates it).")
    left = c.steps - steps
    pile, note, count = (Pile.MAP, "", None) if left else route(state, cmd.counter, cmd.cause)
    after = CounterState(c.id, left, pile, c.hex if pile is Pile.MAP else None)
    return Loss(counter=cmd.counter, steps=steps, cause=cmd.cause, note=note,
                exception_count=count, counters={c.id: _cstate(after)})


def _decide_move(state: TcsState, cmd: MoveCounter) -> Moved:
    c = _counter(state, cmd.counter)
    if c.pile is not Pile.MAP:
        raise IllegalNowError(f"{cmd.counter} is not on the map", fix="Move only living counters.")
    target = Hex.parse(cmd.hex)
    company = state.oob.company_of[cmd.counter]
    sheet = state.sheet_of(company)
    counters = {c.id: CounterAfter(steps=c.steps, pile=Pile.MAP, hex=str(target))}
    left: LeaveOutcome | None = None
    center = sheet.centers.get(company) if sheet else None
    if sheet is not None and center is not None:
        seam = target.map != Hex.parse(center).map and cmd.attest_distance is None
        # Across a seam with --leave-center the player has said the move takes it off.
        far = 3 if seam and cmd.leave_center else hexes_apart(
            target, Hex.parse(center), state.rules.params.hex_offset, cmd.attest_distance)
        if far > 2:
            if not cmd.leave_center:
                group = leaving_together(state, company)
                n = rec.half_pile(sum(len(state.in_pile(g, Pile.DEAD)) for g in group),
                                  state.rules.params.half_dead_pile_rounding)
                who = "the company" if len(group) == 1 else f"{' + '.join(group)}"
                raise IllegalNowError(
                    f"{cmd.counter} to {target} is {far} hexes from {company}'s center {center}: "
                    f"{who} would leave Recovery Op Sheet {sheet.id} and send {n} Dead "
                    "Pile counter(s) to the Very Dead Pile",
                    at=("leave_center",),
                    fix=fix(FixKind.LEAVE_CENTER), instead=Hint.FIX_FIELD)
            left = leave_outcome(state, company, f"{cmd.counter} moved off its center",
                                  cmd.very_dead)
            counters.update(left.counters)
    return Moved(counter=cmd.counter, hex=str(target), left_center=left, counters=counters,
                 attest_distance=cmd.attest_distance)


def _sheet_companies(state: TcsState, cmd: WriteSheet) -> tuple[str, ...]:
    companies: list[str] = []
    for member in cmd.members:
        if member not in state.oob.formations and member not in state.oob.companies:
            raise UnknownIdError(f"no formation or company {member!r}",
                                 fix=fix(FixKind.PICK_MEMBERS), instead=Hint.PICK_ID)
        companies.extend(c for c in state.oob.companies_under(member) if c not in companies)
    sides = {state.oob.side_of(c) for c in companies}
    if len(sides) > 1:
        raise IllegalNowError("a Recovery Op Sheet cannot mix sides",
                              fix="Write one sheet per side.")
    waiting = {r.company for r in state.pending_recoveries()}
    for company in companies:
        if company in waiting:
            raise IllegalNowError(f"{company} still has recovered steps to distribute",
                                  fix=fix(FixKind.RESOLVE_FIRST), instead="distribute")
        if state.sheet_of(company) is not None:
            raise IllegalNowError(f"{company} is already on a pending Recovery Op Sheet",
                                  fix="Leave it off this sheet.")
    return tuple(companies)


def _check_prefix(state: TcsState, name: str, members: tuple[str, ...]) -> None:
    """A side's sheets carry its ``sheet_prefix`` (scenario): by mail with hidden sheets the
    rules cannot see the other side's names, so only distinct prefixes keep names apart.
    (Unknown members are refused later, by ``_sheet_companies``.)"""
    oob = state.oob
    sides = {oob.side_of(c) for m in members if m in oob.formations or m in oob.companies
             for c in oob.companies_under(m)}
    for spec in state.oob.scenario.sides:
        if spec.id in sides and spec.sheet_prefix and not name.startswith(spec.sheet_prefix):
            raise IllegalNowError(
                f"{spec.name or spec.id}'s Recovery Op Sheets are named {spec.sheet_prefix}…",
                fix=f"Name it {spec.sheet_prefix}{name} (the scenario's sheet_prefix).")


def _center_for(state: TcsState, company: str, centers: dict[str, str]) -> str | None:
    if company in centers:
        return centers[company]
    for spec in state.oob.ancestors(state.oob.formation_of[company]):
        if spec.id in centers:
            return centers[spec.id]
    return None


def _decide_sheet(state: TcsState, cmd: WriteSheet) -> SheetWritten:
    # The prefix first: with distinct prefixes a side never learns that the other side has a
    # sheet of some name (the refusal below would tell it, on a shared server).
    _check_prefix(state, cmd.sheet, cmd.members)
    if cmd.sheet in state.sheets:
        raise IllegalNowError(f"there is already a sheet {cmd.sheet!r}",
                              fix="Give the new sheet another name.")
    companies = _sheet_companies(state, cmd)
    covered = set(cmd.members) | set(companies)
    for key, value in cmd.centers.items():
        if key not in covered:
            raise MalformedInputError(f"center given for {key!r}, which is not on the sheet",
                                      fix="Give centers for the sheet's members or companies.")
        Hex.parse(value)
    centers: dict[str, str] = {}
    for company in companies:
        center = _center_for(state, company, cmd.centers)
        if center is None:
            raise IllegalNowError(f"{company} has no center", at=("centers", company),
                                  fix=fix(FixKind.GIVE_CENTER, company=company),
                                  instead=Hint.FIX_FIELD)
        centers[company] = str(Hex.parse(center))
    if not cmd.attest:
        raise IllegalNowError(f"each center must be {CENTER_CONDITIONS}", at=("attest",),
                              fix=fix(FixKind.ATTEST_CENTERS), instead=Hint.FIX_FIELD)
    offset = state.rules.params.hex_offset
    for company in companies:
        for ident in state.in_pile(company, Pile.MAP):
            where = state.counters[ident].hex
            if where and hexes_apart(Hex.parse(where), Hex.parse(centers[company]), offset,
                                     cmd.attest_distance) > 2:
                raise IllegalNowError(
                    f"{ident} at {where} is more than 2 hexes from {company}'s center "
                    f"{centers[company]}",
                    fix="Move it within 2 hexes first, or pick another center.")
    for key in cmd.other_sheet:
        if key not in covered:
            raise MalformedInputError(f"other_sheet names {key!r}, which is not on the sheet",
                                      fix="Name the sheet's members or companies.")
    other = [c for m in cmd.other_sheet for c in state.oob.companies_under(m)]
    preps = [p for c in companies if (p := state.oob.command_prep(c)) is not None]
    if not preps:
        raise IllegalNowError("the scenario gives no command prep rating for these formations",
                              fix="Add command_prep to the formation in the scenario file.")
    # Several formations on one sheet: the worst (highest) rating, or the best (a reading).
    prep = max(preps) if state.rules.params.sheet_command_prep == "worst" else min(preps)
    return SheetWritten(
        sheet=cmd.sheet, members=tuple(cmd.members), companies=companies, centers=centers,
        other_sheet=tuple(other), size=cmd.size, command_prep=prep,
        row=prep + cmd.size, vehicle=cmd.vehicle, turn=state.turn,
        attest_distance=cmd.attest_distance,
        never_implements=never_implements(state, prep + cmd.size))


def _decide_morale(state: TcsState, cmd: SetMorale) -> MoraleSet:
    if cmd.formation not in state.morale:
        raise UnknownIdError(f"{cmd.formation!r} keeps no battalion morale",
                             fix=f"Use one of: {', '.join(state.morale) or 'none'}.")
    return MoraleSet(formation=cmd.formation, before=state.morale[cmd.formation],
                     value=cmd.value, reason=cmd.reason)


def _moot(state: TcsState, company: str) -> bool:
    living_hurt = any(state.counters[i].steps < state.full(i)
                      for i in state.in_pile(company, Pile.MAP))
    return not living_hurt and not state.in_pile(company, Pile.DEAD)


def _decide_check(state: TcsState, cmd: CheckImplementation,
                  roller: Roller) -> ImplementationChecked:
    sheet = state.sheets.get(cmd.sheet)
    if sheet is None:
        raise UnknownIdError(f"no Recovery Op Sheet {cmd.sheet!r}",
                             fix=f"Use one of: {', '.join(state.sheets) or 'none'}.")
    if sheet.status is not SheetStatus.PENDING:
        raise IllegalNowError(f"{cmd.sheet!r} is not a pending Recovery Op Sheet",
                              fix=fix(FixKind.PICK_PENDING_SHEET), instead=Hint.PICK_ID)
    refuse_if_owed(state, f"check {sheet.id}")
    if sheet.last_check_turn == state.turn:
        raise IllegalNowError(f"{sheet.id} was already checked this turn",
                              fix=fix(FixKind.ADVANCE_TURN), instead="turn")
    table = state.rules.implementation
    column = table.column(sheet.weighted_turns)
    if column is None:
        raise IllegalNowError(
            f"{sheet.id} has {sheet.weighted_turns} weighted turns, below the first column",
            fix="Advance a turn so it accrues weighted turns.")
    needed = table.needed(sheet.row, column)
    if needed is None:
        refuse_no_cell(state, sheet, column)
    columns = _columns(state, sheet, cmd.columns)
    rear = rear_modifiers(state, sheet, cmd.rear_broken)
    node = rec.implementation_node(sheet.id)
    p = rec.implementation_chance(needed)
    check = roll(node, roller, reading=lambda v: "implements" if v >= needed else "misses",
                 odds=lambda _: f"needs {needed}+: P(implements) = {fraction_text(p)}")
    checked = ImplementationChecked(
        sheet=sheet.id, turn=state.turn, weighted_turns=sheet.weighted_turns, row=sheet.row,
        column=column, needed=needed, roll=check, implemented=check.total >= needed)
    if not checked.implemented:
        return checked
    recoveries: list[RecoveryRoll] = []
    for company in sheet.companies:
        col = columns[company]
        if _moot(state, company) and state.rules.params.skip_moot_rolls:
            recoveries.append(RecoveryRoll(company=company, column=col, steps=0, roll=None,
                                           moot=True))
            continue
        node = rec.recovery_node(state, company, col, rear.get(company, ()))
        reading = rec.steps_reading(state.rules, col)
        dist = rec.recovery_odds(node, state.rules, col)
        r = roll(node, roller, reading=lambda v, f=reading: _steps_text(f(v)),  # type: ignore[misc]
                 odds=lambda _, d=dist: rec.odds_text(d, "step"))  # type: ignore[misc]
        steps = reading(r.total)
        recoveries.append(RecoveryRoll(company=company, column=col, steps=steps, roll=r,
                                       moot=False,
                                       pooling=steps == 0 and can_pool(state, company)))
    morale = () if any(r.waits for r in recoveries) else morale_recovery(state, sheet, roller)
    return checked.model_copy(update={
        "recoveries": tuple(recoveries), "morale": morale,
        "unassigned": tuple(c for c in sheet.companies if c not in sheet.other_sheet),
        "stays_assigned": tuple(c for c in sheet.companies if c in sheet.other_sheet)})


def can_pool(state: TcsState, company: str) -> bool:
    """Whether a company's living counters could pool steps (same hex and type, one not full).

    The seed lets them redistribute "when a reorganization Op Sheet implements", so a company
    that recovered no steps still gets its distribution decision when this is true.
    """
    if not state.rules.params.allow_redistribution:
        return False
    groups: dict[tuple[str, str], list[str]] = {}
    for ident in state.in_pile(company, Pile.MAP):
        where = state.counters[ident].hex
        if where is not None:
            kind = state.oob.counter_specs[ident].type.value
            groups.setdefault((where, kind), []).append(ident)
    return any(len(ids) > 1 and any(state.counters[i].steps < state.full(i) for i in ids)
               for ids in groups.values())


def _columns(state: TcsState, sheet: SheetState, given: dict[str, Column]) -> dict[str, Column]:
    columns: dict[str, Column] = {}
    for key in given:
        if key not in sheet.companies:
            raise MalformedInputError(f"column given for {key!r}, which is not on {sheet.id}",
                                      fix="Give columns only for the sheet's companies.")
    for company in sheet.companies:
        fixed = state.oob.fixed_column(company)
        if fixed is None and company not in given and _moot(state, company) \
                and state.rules.params.skip_moot_rolls:
            # Nothing to recover, no roll: the Hwy/TO choice would change nothing.
            fixed = Column.HWY
        if fixed is not None:
            if company in given and given[company] is not fixed:
                raise IllegalNowError(f"{company} rolls on the {fixed.value} column",
                                      fix="Only a company with both Hwy and TO equipment chooses.")
            columns[company] = fixed
        elif given.get(company) in (Column.HWY, Column.TO):
            columns[company] = given[company]
        else:
            raise IllegalNowError(
                f"{company} has both Hwy and TO equipment: the player chooses its table",
                fix=fix(FixKind.CHOOSE_COLUMN, company=company), instead=Hint.FIX_FIELD)
    return columns


def morale_recovery(state: TcsState, sheet: SheetState, roller: Roller) -> tuple[MoraleRoll, ...]:
    """Battalion morale rolls for each complete battalion on an implemented sheet."""
    results = []
    on_sheet = set(sheet.companies)
    battalions = []
    for company in sheet.companies:
        bn = state.oob.battalion_of(company)
        if bn is not None and bn not in battalions:
            battalions.append(bn)
    for bn in battalions:
        companies = set(state.oob.companies_under(bn))
        complete = (companies <= on_sheet if state.rules.params.complete_battalion
                    == "all_companies" else bool(companies & on_sheet))
        if not complete or (state.morale[bn] == 0 and state.rules.params.skip_moot_rolls):
            continue
        results.append(morale_roll(state, bn, roller))
    return tuple(results)


def morale_roll(state: TcsState, battalion: str, roller: Roller) -> MoraleRoll:
    """One battalion's morale recovery roll: one die halved, rounded up, off its morale now
    (never below 0; seed Example #1)."""
    before = state.morale[battalion]
    node = rec.morale_node(state, battalion)
    r = roll(node, roller, reading=lambda v: _plural(rec.morale_points(v), "point"),
             odds=lambda n: rec.odds_text(n.outcomes(rec.morale_points), "point"))
    points = rec.morale_points(r.total)
    return MoraleRoll(formation=battalion, roll=r, points=points, before=before,
                      after=max(0, before - points))


def _decide_distribute(state: TcsState, cmd: Distribute, roller: Roller) -> Distributed:
    _company(state, cmd.company)
    pending = [r for r in state.pending_recoveries() if r.company == cmd.company]
    if not pending:
        raise IllegalNowError(f"{cmd.company} has no recovered steps waiting",
                              fix="Distribute after its Recovery Op Sheet implements.")
    recovery = pending[0]
    validate(state, recovery, cmd)
    sheet = state.sheets[recovery.sheet]
    counters = distributed_counters(state, cmd, sheet.centers.get(cmd.company))
    spent = sum(cmd.heal.values()) + sum(cmd.resurrect.values())
    last = len([r for r in state.pending_recoveries() if r.sheet == recovery.sheet]) == 1
    return Distributed(
        sheet=recovery.sheet, company=cmd.company, steps=recovery.steps, heal=cmd.heal,
        resurrect=cmd.resurrect, very_dead=tuple(cmd.very_dead),
        redistribute=tuple(Transfer(source=t.source, target=t.target, steps=t.steps)
                           for t in cmd.redistribute),
        unspent=recovery.steps - spent, counters=counters,
        morale=morale_recovery(state, sheet, roller) if last else (),
        attest_distance=cmd.attest_distance)


def distributed_counters(state: TcsState, cmd: Distribute,
                         center: str | None) -> dict[str, CounterAfter]:
    """The counters a distribution leaves changed: healed and resurrected steps, transfers,
    each resurrected counter at its placed hex (``center``, its company's center, unless
    placed elsewhere), a counter left with no step in the Dead Pile, and the Very Dead."""
    steps = after_distribution(state, cmd)
    for t in cmd.redistribute:
        steps[t.source] -= t.steps
        steps[t.target] += t.steps
    counters: dict[str, CounterAfter] = {}
    for ident, n in steps.items():
        old = state.counters[ident]
        placed = cmd.place.get(ident, center) if ident in cmd.resurrect else old.hex
        if n:
            counters[ident] = CounterAfter(steps=n, pile=Pile.MAP,
                                           hex=str(Hex.parse(placed)) if placed else None)
        else:
            counters[ident] = CounterAfter(steps=0, pile=Pile.DEAD, hex=None)
    counters = {i: v for i, v in counters.items() if v != _cstate(state.counters[i])}
    for ident in cmd.very_dead:
        counters[ident] = _VERY_DEAD
    return counters


def _steps_text(n: int) -> str:
    return _plural(n, "step")


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"
