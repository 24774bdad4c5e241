"""Leaving the recovery center (seed: 'Should the recovering formation be forced or moved off
its center before the Recovery Op Sheet is implemented, it becomes unassigned and half the units in
its Dead Pile are moved to the Very Dead Pile.')."""

from __future__ import annotations

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.errors import Hint
from rallypoint.rulesets.tcs import recovery as rec
from rallypoint.rulesets.tcs.commands import LeaveCenter
from rallypoint.rulesets.tcs.events import CounterAfter, LeaveOutcome, LeftCenter
from rallypoint.rulesets.tcs.fixes import FixKind, fix
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import TcsState

_VERY_DEAD = CounterAfter(steps=0, pile=Pile.VERY_DEAD, hex=None)
_PILE_WORDS = {Pile.MAP: "on the map", Pile.DEAD: "in the Dead Pile",
               Pile.VERY_DEAD: "in the Very Dead Pile already", Pile.FO: "in the FO pile"}


def leaving_together(state: TcsState, company: str) -> tuple[str, ...]:
    """The companies that leave the center with ``company``: the formation recovering there, or
    the company alone (parameter ``leave_center_scope``).

    Seed: 'Should the recovering formation be forced or moved off its center … it becomes
    unassigned and half the units in its Dead Pile are moved to the Very Dead Pile.' The
    formation is the one written on the sheet (its member) with its companies at that center: a
    formation leaves when it leaves, and another listed separately at the same hex stays
    (parameter ``shared_center``; ``everyone`` takes every company of the sheet at that hex).
    """
    sheet = state.sheet_of(company)
    params = state.rules.params
    if sheet is None or params.leave_center_scope == "company":
        return (company,)
    center = sheet.centers.get(company)
    at_center = [c for c in sheet.companies if sheet.centers.get(c) == center]
    if params.shared_center == "everyone":
        return tuple(at_center)
    own = _member_of(state, sheet.members, company)
    return tuple(c for c in at_center if _member_of(state, sheet.members, c) == own)


def _member_of(state: TcsState, members: tuple[str, ...], company: str) -> str:
    """The sheet member (formation or company as written on the sheet) a company is on by."""
    return next((m for m in members if company in state.oob.companies_under(m)), company)


def leave_outcome(state: TcsState, company: str, cause: str,
                   very_dead: tuple[str, ...] | None) -> LeaveOutcome:
    sheet = state.sheet_of(company)
    if sheet is None:
        raise IllegalNowError(f"{company} is not recovering on a pending Recovery Op Sheet",
                              fix="Only a company on a pending sheet can leave its center.")
    group = leaving_together(state, company)
    dead = [i for c in group for i in state.in_pile(c, Pile.DEAD)]
    n = rec.half_pile(len(dead), state.rules.params.half_dead_pile_rounding)
    if very_dead is None:
        order = {i: k for k, i in enumerate(dead)}
        very_dead = tuple(sorted(dead, key=lambda i: (state.full(i), -order[i]))[:n])
    _check_named(state, group, dead, n, very_dead)
    remaining = tuple(x for x in sheet.companies if x not in group)
    return LeaveOutcome(company=company, sheet=sheet.id, cause=cause, very_dead=very_dead,
                        sheet_cancelled=not remaining,
                        counters=dict.fromkeys(very_dead, _VERY_DEAD),
                        companies=group if group != (company,) else ())


def _check_named(state: TcsState, group: tuple[str, ...], dead: list[str], n: int,
                 named: tuple[str, ...]) -> None:
    """The counters named to go Very Dead on leaving: ``n`` distinct ones from the leaving
    formation's Dead Pile. A counter named that is not there is refused as that, not as a
    wrong count (the count may be right).

    Raises:
        IllegalNowError: A named counter not in that Dead Pile, one named twice, or a wrong count.
    """
    who = " + ".join(group)
    choose = f"Name {n} distinct counters from: {', '.join(dead) or 'none'}."
    for ident in named:
        if ident not in dead:
            where = state.counters[ident]
            pile = _PILE_WORDS[where.pile]
            owner = state.oob.company_of[ident]
            whose = "" if owner in group else f" and belongs to {owner}, not {who}"
            raise IllegalNowError(
                f"{ident} is not in {who}'s Dead Pile (it is {pile}{whose}): only Dead Pile "
                "counters of the formation leaving go to the Very Dead Pile", fix=choose)
    twice = next((i for i in named if named.count(i) > 1), None)
    if twice is not None:
        raise IllegalNowError(f"{twice} is named twice", fix=choose)
    if len(named) != n:
        raise IllegalNowError(
            f"leaving its center sends {n} of {who}'s {len(dead)} Dead Pile counter(s) to the "
            f"Very Dead Pile; {len(named)} named", fix=choose)


def decide_leave(state: TcsState, cmd: LeaveCenter) -> LeftCenter:
    if cmd.company not in state.oob.companies:
        raise UnknownIdError(f"no company {cmd.company!r} in this scenario",
                             fix=fix(FixKind.PICK_COMPANY), instead=Hint.PICK_ID)
    left = leave_outcome(state, cmd.company, cmd.cause, cmd.very_dead)
    return LeftCenter(company=left.company, sheet=left.sheet, cause=left.cause,
                      very_dead=left.very_dead, sheet_cancelled=left.sheet_cancelled,
                      counters=left.counters, companies=left.companies)
