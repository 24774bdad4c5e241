"""Leaving the recovery center (seed: 'Should the recovering formation be forced or moved off
its center before the Recovery Op Sheet is implemented, it becomes unassigned and half the units in
its Dead Pile are moved to the Very Dead Pile.')."""

from __future__ import annotations

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.rulesets.tcs import recovery as rec
from rallypoint.rulesets.tcs.commands import LeaveCenter
from rallypoint.rulesets.tcs.events import CounterAfter, LeaveOutcome, LeftCenter
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import TcsState

_VERY_DEAD = CounterAfter(steps=0, pile=Pile.VERY_DEAD, hex=None)


def leaving_together(state: TcsState, company: str) -> tuple[str, ...]:
    """The companies that leave the center with ``company``: the formation recovering there
    (every company of its sheet at the same center), or the company alone (parameter
    ``leave_center_scope``). Seed: 'Should the recovering formation be forced or moved off its
    center … it becomes unassigned and half the units in its Dead Pile are moved to the Very
    Dead Pile.'"""
    sheet = state.sheet_of(company)
    if sheet is None or state.rules.params.leave_center_scope == "company":
        return (company,)
    center = sheet.centers.get(company)
    return tuple(c for c in sheet.companies if sheet.centers.get(c) == center)


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
    if len(set(very_dead)) != n or any(i not in dead for i in very_dead):
        raise IllegalNowError(
            f"leaving its center sends {n} of {' + '.join(group)}'s {len(dead)} Dead Pile "
            f"counter(s) to the Very Dead Pile; {len(very_dead)} named",
            fix=f"Name {n} distinct counters from: {', '.join(dead) or 'none'}.")
    remaining = tuple(x for x in sheet.companies if x not in group)
    return LeaveOutcome(company=company, sheet=sheet.id, cause=cause, very_dead=very_dead,
                        sheet_cancelled=not remaining,
                        counters=dict.fromkeys(very_dead, _VERY_DEAD),
                        companies=group if group != (company,) else ())


def decide_leave(state: TcsState, cmd: LeaveCenter) -> LeftCenter:
    if cmd.company not in state.oob.companies:
        raise UnknownIdError(f"no company {cmd.company!r} in this scenario",
                             fix="Use a company id from `rallypoint show`.")
    left = leave_outcome(state, cmd.company, cmd.cause, cmd.very_dead)
    return LeftCenter(company=left.company, sheet=left.sheet, cause=left.cause,
                      very_dead=left.very_dead, sheet_cancelled=left.sheet_cancelled,
                      counters=left.counters, companies=left.companies)
