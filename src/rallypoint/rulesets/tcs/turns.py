"""The turn and what happens to a recovering formation during it: accrual, reassignment, attack.

Seed clauses: 'A Recovery Op Sheet accumulates weighted turns at the same rate as any other Op
Sheet'; 'If already on another Op Sheet, the recovering units still need a "center."'; 'If
attacked, a recovering formation is treated as a formation with "No Orders."'; and the Soviet FOs,
rolled 'on every whole hour' — a turn may not silently pass an hour whose roll is due.
"""

from __future__ import annotations

from datetime import timedelta

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.rulesets.tcs.commands import AdvanceTurn, Attack, Reassign
from rallypoint.rulesets.tcs.events import Accrual, Attacked, Reassigned, TurnAdvanced
from rallypoint.rulesets.tcs.outlook import fo_due
from rallypoint.rulesets.tcs.state import SheetState, SheetStatus, TcsState


def decide_turn(state: TcsState, cmd: AdvanceTurn) -> TurnAdvanced:
    """The next turn: clock, night, and each pending sheet's accrual (the lowest rate applies).

    A sheet whose companies were attacked this turn (:class:`Attack`) accrues as fired upon.

    Raises:
        IllegalNowError: The dead FOs' roll of this whole hour is due and ``skip_fo`` is off.
    """
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
            fix="Roll it first (`rallypoint tcs fo`), or add --skip-fo to let it pass.")
    track = state.oob.scenario.turn_track
    minutes = track.night_turn_minutes if state.night else track.turn_minutes
    clock = state.clock + timedelta(minutes=minutes)
    night = track.is_night(clock)
    turn = state.turn + 1
    attacked = set(state.attacked_now())
    accruals = [_accrual(state, sheet, night, sheet.id in cmd.fired,
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


def _recovering(state: TcsState, members: tuple[str, ...]) -> dict[str, SheetState]:
    """Each company the members name → its pending sheet; refused if one is not recovering."""
    found: dict[str, SheetState] = {}
    for member in members:
        for company in state.oob.companies_under(member):
            sheet = state.sheet_of(company)
            if sheet is None:
                raise IllegalNowError(
                    f"{company} is not recovering on a pending Recovery Op Sheet",
                    fix="Name formations or companies on a pending sheet (`rallypoint show`).")
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
