"""The log's words for each TCS event (one line, then a line per roll)."""

from __future__ import annotations

from collections.abc import Mapping

from rallypoint.rulesets.tcs.events import (
    Accrued,
    Attacked,
    Distributed,
    Fired,
    FoRolled,
    ImplementationChecked,
    LeftCenter,
    Loss,
    MoraleRoll,
    MoraleSet,
    Moved,
    Reassigned,
    SheetWritten,
    TcsEvent,
    TurnAdvanced,
)


def _map(m: Mapping[str, int], sign: str = "+") -> str:
    """``1/ErP112-1 +2, 2/ErP112-3 +1`` (steps by counter), words a player reads."""
    return ", ".join(f"{k} {sign}{v}" for k, v in m.items())


def _morale_lines(rolls: tuple[MoraleRoll, ...]) -> list[str]:
    return [f"  {m.roll.explain()} (morale {m.before}→{m.after})" for m in rolls]


def _check(e: ImplementationChecked) -> str:
    head = (f"{e.sheet} implementation check: {e.weighted_turns} weighted turns, "
            f"row {e.row} column {e.column} needs {e.needed} — "
            f"{'IMPLEMENTS' if e.implemented else 'misses'}")
    lines = [head, "  " + e.roll.explain(), *_assignment(e)]
    lines += ["  " + (r.roll.explain() if r.roll else f"{r.company}: nothing to recover, no roll")
              for r in e.recoveries]
    return "\n".join(lines + _morale_lines(e.morale))


def _assignment(e: ImplementationChecked) -> list[str]:
    """Seed: 'The units immediately become unassigned. (If they are on another implemented Op
    Sheet, the units stay on that one.)' — said in the log, not only kept in the event."""
    lines = []
    if e.unassigned:
        lines.append(f"  unassigned now: {', '.join(e.unassigned)}")
    if e.stays_assigned:
        lines.append(f"  stay on their other Op Sheet: {', '.join(e.stays_assigned)}")
    return lines


def _distributed(e: Distributed) -> str:
    emptied = [i for i, c in e.counters.items() if c.pile.value == "dead"]
    moves = ", ".join(f"{t.source}→{t.target} {t.steps}" for t in e.redistribute)
    parts = [f"heal {_map(e.heal)}" if e.heal else "",
             f"resurrect {_map(e.resurrect, 'at ')}" if e.resurrect else "",
             f"Very Dead: {', '.join(e.very_dead)}" if e.very_dead else "",
             f"redistribute {moves}" if moves else "",
             f"emptied into the Dead Pile: {', '.join(emptied)}" if emptied else "",
             f"{e.unspent} unspent" if e.unspent else "",
             _attested(e.attest_distance)]
    line = (f"{e.company} distributes {e.steps} step(s): "
            + ("; ".join(x for x in parts if x) or "nothing"))
    return "\n".join([line, *_morale_lines(e.morale)])


def _attested(distance: int | None) -> str:
    return "" if distance is None else f"attested {distance} hex(es) across a map seam"


def _turn(e: TurnAdvanced) -> str:
    acc = "; ".join(f"{a.sheet} +{a.added} ({a.reason}) = {a.total}" for a in e.accruals)
    line = f"turn {e.turn} ({e.clock:%H:%M}{', night' if e.night else ''})" + (
        f": {acc}" if acc else "")
    if e.fo_skipped:
        line += f"; the due FO roll was skipped: {', '.join(e.fo_skipped)} stay dead this hour"
    return line


def _accrued(e: Accrued) -> str:
    """One group per sheet, its turns in order: the reason once when every turn shares it."""
    groups = []
    for sheet in dict.fromkeys(a.sheet for a in e.accruals):
        mine = [a for a in e.accruals if a.sheet == sheet]
        same = len({a.reason for a in mine}) == 1
        turns = ", ".join(f"turn {a.turn} +{a.added}" + ("" if same else f" ({a.reason})")
                          for a in mine)
        groups.append(f"{sheet} {turns}" + (f" ({mine[0].reason})" if same else "")
                      + f" = {mine[-1].total}")
    return (f"owed weighted turns, to turn {e.turn} (turns the other side advanced): "
            f"{'; '.join(groups) or 'none'}")


def _other(e: Reassigned | Attacked) -> str:
    if isinstance(e, Reassigned):
        where = "now also on another Op Sheet" if e.other_sheet else "off the other Op Sheet"
        return f"{', '.join(e.companies)} ({e.sheet}) {where}" + (
            f" — {e.reason}" if e.reason else "")
    return (f"{', '.join(e.companies)} attacked while recovering ({', '.join(e.sheets)}): treated "
            "as No Orders, fired upon this turn" + (f" — {e.note}" if e.note else ""))


def describe(e: TcsEvent) -> str:
    """One line (plus roll lines) saying what an event did."""
    if isinstance(e, Loss):
        note = f" — {e.note}" if e.note else ""
        return f"{e.counter} loses {e.steps} step(s) ({e.cause}){note}"
    if isinstance(e, Moved):
        left = e.left_center
        extra = "" if left is None else (
            f"; {' + '.join(left.companies or (left.company,))} leave(s) the center, Very Dead: "
            f"{', '.join(left.very_dead) or 'none'}")
        seam = _attested(e.attest_distance)
        return f"{e.counter} moves to {e.hex}{extra}" + (f" ({seam})" if seam else "")
    if isinstance(e, LeftCenter):
        return (f"{' + '.join(e.companies or (e.company,))} leave(s) sheet {e.sheet} "
                f"({e.cause}); Very Dead: {', '.join(e.very_dead) or 'none'}")
    if isinstance(e, SheetWritten):
        centers = ", ".join(f"{k} at {v}" for k, v in e.centers.items())
        seam = _attested(e.attest_distance)
        never = (f"\n  warning: row {e.row} has no cell that implements (rows 9 and up were "
                 "not recovered): no number of weighted turns will implement it; supply the "
                 "row in the scenario's [implementation] table" if e.never_implements else "")
        return (f"Recovery Op Sheet {e.sheet} written: {centers}; row {e.row} "
                f"(prep {e.command_prep} + size {e.size})" + (f"; {seam}" if seam else "")
                + never)
    if isinstance(e, TurnAdvanced):
        return _turn(e)
    if isinstance(e, Accrued):
        return _accrued(e)
    if isinstance(e, (Reassigned, Attacked)):
        return _other(e)
    if isinstance(e, Fired):
        fixed = "; ".join(f"{a.sheet}'s accrual for turn {a.turn} corrected to +{a.added} "
                          f"({a.total} weighted turns)" for a in e.corrections)
        return (f"{', '.join(e.sheets)} fired or fired upon during turn {e.turn}"
                + (f": {fixed}" if fixed else ": the next accrual is at the fired rate"))
    if isinstance(e, ImplementationChecked):
        return _check(e)
    if isinstance(e, Distributed):
        return _distributed(e)
    if isinstance(e, MoraleSet):
        return f"{e.formation} battalion morale {e.before}→{e.value} {e.reason}"
    assert isinstance(e, FoRolled)
    return "\n".join([f"FO recovery (number {e.number})",
                      *("  " + r.roll.explain() for r in e.rolls)])
