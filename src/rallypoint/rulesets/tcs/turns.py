"""The turn and what happens to a recovering formation during it: accrual, reassignment, attack.

Seed clauses: 'A Recovery Op Sheet accumulates weighted turns at the same rate as any other Op
Sheet'; 'If already on another Op Sheet, the recovering units still need a "center."'; 'If
attacked, a recovering formation is treated as a formation with "No Orders."'; and the Soviet FOs,
rolled 'on every whole hour' — a turn may not silently pass an hour whose roll is due.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.errors import Hint
from rallypoint.rulesets.tcs.commands import Accrue, AdvanceTurn, Attack, MarkFired, Reassign
from rallypoint.rulesets.tcs.events import (
    Accrual,
    Accrued,
    Attacked,
    Fired,
    OwedAccrual,
    Reassigned,
    TurnAdvanced,
)
from rallypoint.rulesets.tcs.fixes import FixKind, fix
from rallypoint.rulesets.tcs.outlook import fo_due
from rallypoint.rulesets.tcs.state import SheetState, SheetStatus, TcsState


def decide_turn(state: TcsState, cmd: AdvanceTurn) -> TurnAdvanced:
    """The next turn: clock, night, and each pending sheet's accrual (the lowest rate applies).

    A sheet whose companies were attacked this turn (:class:`Attack`) accrues as fired upon.

    Raises:
        IllegalNowError: The dead FOs' roll of this whole hour is due and ``skip_fo`` is off.
    """
    refuse_if_owed(state, "advance the turn")
    pending = {k: s for k, s in state.sheets.items() if s.status is SheetStatus.PENDING}
    for fired in cmd.fired:
        if fired not in pending:
            raise UnknownIdError(f"no pending sheet {fired!r}",
                                 fix=f"Use one of: {', '.join(pending) or 'none'}.")
    fos = fo_due(state)
    if fos and not cmd.skip_fo:
        raise IllegalNowError(
            f"the dead FOs' roll of {state.clock:%H:%M} is due ({', '.join(fos)}): "
            "leaving the hour would lose it",
            fix=fix(FixKind.ROLL_FO_FIRST), instead="fo")
    track = state.oob.scenario.turn_track
    minutes = track.night_turn_minutes if state.night else track.turn_minutes
    clock = state.clock + timedelta(minutes=minutes)
    night = track.is_night(clock)
    turn = state.turn + 1
    attacked = set(state.attacked_now())
    accruals = [_accrual(state, sheet, night,
                         sheet.id in cmd.fired or (sheet.id, state.turn) in state.fired,
                         bool(attacked & set(sheet.companies)))
                for sheet in pending.values() if sheet.written_turn < turn]
    return TurnAdvanced(turn=turn, clock=clock, night=night, accruals=tuple(accruals),
                        fo_skipped=fos)


def _accrual(state: TcsState, sheet: SheetState, night: bool, fired: bool,
             attacked: bool) -> Accrual:
    """Weighted turns one pending sheet gains (core TCS rates; the lowest that applies)."""
    wt = state.rules.weighted_turns
    lines = [(wt.unassigned, "unassigned")]
    if sheet.other_sheet:
        lines.append((wt.other_sheet_or_night, "on another Op Sheet"))
    if night:
        lines.append((wt.other_sheet_or_night, "night turn"))
    if fired:
        lines.append((wt.fired, "fired or fired upon"))
    elif attacked:
        lines.append((wt.fired, "attacked: fired upon"))
    added, reason = min(lines, key=lambda x: x[0])
    if sheet.vehicle and state.rules.params.vehicle_sheets_triple:
        added, reason = added * wt.vehicle_multiplier, f"{reason}, vehicle sheet x3"
    return Accrual(sheet=sheet.id, added=added, reason=reason,
                   total=sheet.weighted_turns + added)


def owed_turns(state: TcsState) -> dict[str, range]:
    """Each pending sheet that is behind the turn → the turns it has not accrued for.

    A turn advanced in the opponent's database (play by e-mail) accrues only the sheets that
    database holds, its own; this database's sheets then missed that turn. On a whole log every
    turn accrues every pending sheet, so nothing is ever owed there.
    """
    return {s.id: range(s.accrued_turn + 1, state.turn + 1) for s in state.sheets.values()
            if s.status is SheetStatus.PENDING and s.accrued_turn < state.turn}


def owed(state: TcsState, version: int) -> Accrue | None:
    """The command that settles this database's hidden bookkeeping for the turns the other
    database advanced (its pending sheets' accruals, or none at all: the ``accrued`` event is
    owed either way, so that it tells the other side nothing), or ``None``."""
    owing = owed_turns(state) or state.settled_turn < state.turn
    return Accrue(expected_version=version) if owing else None


def refuse_if_owed(state: TcsState, doing: str) -> None:
    """Refuse to read weighted turns that are behind (a gap no later accrual would fill).

    Raises:
        IllegalNowError: A pending sheet is owed accruals.
    """
    missed = owed_turns(state)
    if missed:
        raise IllegalNowError(
            f"cannot {doing}: sheet(s) {', '.join(missed)} have not accrued for turn(s) "
            f"advanced in the other database", fix=fix(FixKind.ACCRUE_OWED), instead=Hint.BY_MAIL)


def decide_accrue(state: TcsState, cmd: Accrue) -> Accrued:
    """Owed accruals: each missed turn as ``decide_turn`` would have accrued it for the sheet.

    Seed: a Recovery Op Sheet 'accumulates weighted turns at the same rate as any other Op
    Sheet' on every turn, whichever database advanced it. Each missed turn takes its own night
    flag, the attack recorded on the turn before it (as ``decide_turn`` reads it), the sheet's
    other-sheet assignment and vehicle rule, and 'fired' from an attack or from the owner's
    own mark for the turn before it (``tcs fired``: the other database cannot name the sheet).

    Raises:
        IllegalNowError: Nothing is owed.
    """
    missed = owed_turns(state)
    if not missed and state.settled_turn >= state.turn:
        raise IllegalNowError(f"no pending sheet is owed weighted turns at turn {state.turn}",
                              fix="Nothing to accrue: every pending sheet is up to date.")
    accruals: list[OwedAccrual] = []
    for sheet_id, turns in missed.items():
        sheet = state.sheets[sheet_id]
        for turn in turns:
            attacked = any(state.attacked.get(c) == turn - 1 for c in sheet.companies)
            a = _accrual(state, sheet, state.night_of(turn), (sheet_id, turn - 1) in state.fired,
                         attacked)
            accruals.append(OwedAccrual(sheet=a.sheet, added=a.added, reason=a.reason,
                                        total=a.total, turn=turn))
            sheet = replace(sheet, weighted_turns=a.total)
    return Accrued(turn=state.turn, accruals=tuple(accruals))


def _recovering(state: TcsState, members: tuple[str, ...]) -> dict[str, SheetState]:
    """Each company the members name → its pending sheet; refused if one is not recovering."""
    found: dict[str, SheetState] = {}
    for member in members:
        for company in state.oob.companies_under(member):
            sheet = state.sheet_of(company)
            if sheet is None:
                raise IllegalNowError(
                    f"{company} is not recovering on a pending Recovery Op Sheet",
                    fix=fix(FixKind.PICK_RECOVERING), instead=Hint.PICK_ID)
            found[company] = sheet
    return found


def decide_reassign(state: TcsState, cmd: Reassign) -> Reassigned:
    """Put recovering companies onto, or take them off, another (defensive) Op Sheet."""
    found = _recovering(state, cmd.members)
    sheets = {s.id for s in found.values()}
    if len(sheets) > 1:
        raise IllegalNowError(
            f"the companies named are on several sheets ({', '.join(sorted(sheets))})",
            fix="Reassign one sheet's companies at a time.")
    sheet = next(iter(found.values()))
    change = tuple(c for c in found if (c in sheet.other_sheet) != cmd.other_sheet)
    if not change:
        where = "already on" if cmd.other_sheet else "not on"
        raise IllegalNowError(f"{', '.join(found)} {'is' if len(found) == 1 else 'are'} {where} "
                              "another Op Sheet", fix="Nothing to change.")
    return Reassigned(sheet=sheet.id, companies=change, other_sheet=cmd.other_sheet,
                      turn=state.turn, reason=cmd.reason)


def decide_attack(state: TcsState, cmd: Attack) -> Attacked:
    """Recovering companies attacked: No Orders, and their sheet accrues as fired upon."""
    found = _recovering(state, cmd.members)
    sheets = tuple(dict.fromkeys(s.id for s in found.values()))
    return Attacked(companies=tuple(found), sheets=sheets, turn=state.turn, note=cmd.note)


def decide_fired(state: TcsState, cmd: MarkFired) -> Fired:
    """Pending sheets fired, or were fired upon, during a turn: their accrual for the next
    turn is at the fired rate.

    Core TCS (4.01, weighted turns): 'fired, or were fired upon, in any way: 1'; where several
    lines apply, the lowest. By e-mail the database that advances the turn cannot name the
    other side's hidden sheet, so its owner marks it: during the turn (the accrual to come
    reads the mark), or once that accrual is made (the latest one: it is corrected to the
    lowest of what it added and the fired rate), but not after the sheet was checked on it.

    Raises:
        UnknownIdError: A sheet is not pending here.
        IllegalNowError: The turn is in the future, before the sheet was written, or its
            accrual is not the sheet's latest, or the sheet was checked since.
    """
    turn = state.turn if cmd.turn is None else cmd.turn
    if turn > state.turn:
        raise IllegalNowError(f"turn {turn} has not been played (this is turn {state.turn})",
                              fix=fix(FixKind.MARK_NOW), instead=Hint.FIX_FIELD)
    pending = {k: s for k, s in state.sheets.items() if s.status is SheetStatus.PENDING}
    corrections: list[OwedAccrual] = []
    for sheet_id in dict.fromkeys(cmd.sheets):
        sheet = pending.get(sheet_id)
        if sheet is None:
            raise UnknownIdError(f"no pending sheet {sheet_id!r}",
                                 fix=f"Use one of: {', '.join(pending) or 'none'}.")
        correction = _fired_correction(state, sheet, turn)
        if correction is not None:
            corrections.append(correction)
    return Fired(sheets=tuple(dict.fromkeys(cmd.sheets)), turn=turn,
                 corrections=tuple(corrections))


def _fired_correction(state: TcsState, sheet: SheetState, turn: int) -> OwedAccrual | None:
    """The sheet's accrual for ``turn + 1`` again at the fired rate, if it was already made
    (``None``: it is still to come and will read the mark).

    Seed/core: the lowest rate that applies; the vehicle rule multiplies it as it did the
    accrual being corrected.
    """
    if sheet.accrued_turn <= turn:
        if turn < sheet.written_turn:
            raise IllegalNowError(f"sheet {sheet.id} was written on turn {sheet.written_turn}, "
                                  f"after turn {turn}", fix="Name a turn it was pending in.")
        return None
    if sheet.accrued_turn != turn + 1:
        raise IllegalNowError(
            f"sheet {sheet.id} has accrued through turn {sheet.accrued_turn}: only its latest "
            f"accrual (for turn {sheet.accrued_turn}, fired during turn "
            f"{sheet.accrued_turn - 1}) can still be corrected", fix="Mark fire during the "
            "turn it happens, before the next turn's accrual.")
    if sheet.last_check_turn is not None and sheet.last_check_turn >= sheet.accrued_turn:
        raise IllegalNowError(f"sheet {sheet.id} was checked on turn {sheet.last_check_turn} "
                              "with the weighted turns of that accrual",
                              fix="Mark fire before checking the sheet.")
    wt = state.rules.weighted_turns
    rate = wt.fired * (wt.vehicle_multiplier if sheet.vehicle
                       and state.rules.params.vehicle_sheets_triple else 1)
    added = min(sheet.last_added, rate)
    return OwedAccrual(sheet=sheet.id, added=added, reason="fired or fired upon (corrected)",
                       total=sheet.weighted_turns - sheet.last_added + added, turn=turn + 1)
