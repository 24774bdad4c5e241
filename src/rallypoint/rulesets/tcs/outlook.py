"""What is due now and what the next checks' odds are: the read-only outlook a front end shows.

Nothing here changes state or rolls: it asks the same chance nodes and tables the rules use
(:func:`~rallypoint.rulesets.tcs.recovery.implementation_chance`, the campaign's own
Implementation Table and weighted-turn rates), so the odds shown are the odds rolled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from fractions import Fraction

from rallypoint.core.due import Due as CoreDue
from rallypoint.rulesets.tcs import recovery as rec
from rallypoint.rulesets.tcs.implementation import SUPPLY_ROWS, never_implements, never_text
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import SheetState, SheetStatus, TcsState


@dataclass(frozen=True)
class Check:
    """One future implementation check of a sheet, if every turn until then is quiet.

    Attributes:
        turn: Game turn of the check.
        clock: Game time of that turn.
        weighted_turns: Weighted turns the sheet has at that check.
        column: Implementation Table column (``None``: below the first).
        needed: d66 roll needed (``None``: the cell is '–' or below the first column).
        p: Chance this check implements.
        by_then: Chance the sheet has implemented by this check (this one included).
    """

    turn: int
    clock: datetime
    weighted_turns: int
    column: int | None
    needed: int | None
    p: Fraction
    by_then: Fraction


@dataclass(frozen=True)
class SheetOutlook:
    """A pending sheet's checks: now (if allowed this turn) and at each of the next turns.

    Attributes:
        sheet: The sheet id.
        checkable_now: Whether ``tcs check`` is allowed this turn.
        checks: The check now (if allowed) and one per following quiet turn, in order.
    """

    sheet: str
    checkable_now: bool
    checks: tuple[Check, ...]


def quiet_accrual(state: TcsState, sheet: SheetState, night: bool, fired: bool = False) -> int:
    """Weighted turns a sheet accrues on a turn with no fire (seed: the weighted-turn rates).

    Mirrors ``turns.decide_turn`` with ``fired`` empty; ``test_tcs_outlook`` checks the two
    agree turn by turn.
    """
    wt = state.rules.weighted_turns
    rates = [wt.unassigned]
    if sheet.other_sheet or night:
        rates.append(wt.other_sheet_or_night)
    if fired:
        rates.append(wt.fired)
    added = min(rates)
    if sheet.vehicle and state.rules.params.vehicle_sheets_triple:
        added *= wt.vehicle_multiplier
    return added


def _check(state: TcsState, sheet: SheetState, turn: int, clock: datetime, weighted: int,
           waiting: Fraction) -> tuple[Check, Fraction]:
    table = state.rules.implementation
    column = table.column(weighted)
    needed = table.needed(sheet.row, column) if column is not None else None
    p = rec.implementation_chance(needed)
    return Check(turn, clock, weighted, column, needed, p, 1 - waiting * (1 - p)), waiting * (1 - p)


def sheet_outlook(state: TcsState, sheet_id: str, turns: int = 12) -> SheetOutlook:
    """The odds of implementing ``sheet_id`` now and within each of the next ``turns`` turns.

    Assumes every coming turn is quiet (no fire on the sheet's units), as the player would
    plan a rest.
    """
    sheet = state.sheets[sheet_id]
    track = state.oob.scenario.turn_track
    checks: list[Check] = []
    waiting = Fraction(1)
    now = (sheet.status is SheetStatus.PENDING and sheet.last_check_turn != state.turn
           and state.rules.implementation.column(sheet.weighted_turns) is not None)
    if now:
        first, waiting = _check(state, sheet, state.turn, state.clock, sheet.weighted_turns,
                                waiting)
        checks.append(first)
    clock, night, weighted = state.clock, state.night, sheet.weighted_turns
    attacked = bool(set(state.attacked_now()) & set(sheet.companies))
    for n in range(1, turns + 1):
        clock += timedelta(minutes=track.night_turn_minutes if night else track.turn_minutes)
        night = track.is_night(clock)
        if sheet.written_turn < state.turn + n:
            # Attacked this turn: the coming accrual is at the fired-upon rate.
            weighted += quiet_accrual(state, sheet, night, fired=attacked and n == 1)
        check, waiting = _check(state, sheet, state.turn + n, clock, weighted, waiting)
        checks.append(check)
    return SheetOutlook(sheet_id, now, tuple(checks))


@dataclass(frozen=True)
class FoOutlook:
    """The dead FOs' roll this hour.

    Attributes:
        due: Whether ``tcs fo`` may roll now (a whole-hour turn not yet rolled).
        counters: FO counters in the FO pile.
        number: The FO Recovery Number (``None``: the scenario sets none).
        p: Chance each returns on its roll.
    """

    due: bool
    counters: tuple[str, ...]
    number: int | None
    p: Fraction


def fo_due(state: TcsState) -> tuple[str, ...]:
    """The dead FOs whose roll is due now: a whole-hour turn not yet rolled, with a number set.

    Cheap (no odds computed), for every ``tcs turn`` and ``show``.
    """
    dead = tuple(i for i, c in state.counters.items() if c.pile is Pile.FO)
    due = bool(dead) and rec.fo_number(state) is not None and state.clock.minute == 0 \
        and state.fo_rolled_turn != state.turn
    return dead if due else ()


def fo_outlook(state: TcsState) -> FoOutlook:
    """Whether the dead FOs roll this turn, and each one's chance to return."""
    dead = tuple(i for i, c in state.counters.items() if c.pile is Pile.FO)
    number = rec.fo_number(state)
    p = (rec.fo_node("").probability(lambda v: v >= number) if number is not None
         else Fraction(0))
    return FoOutlook(bool(fo_due(state)), dead, number, p)


class DueKind(StrEnum):
    """Kinds of things due this turn."""

    CHECK = "check"
    """A pending sheet may roll for implementation."""
    FO = "fo"
    """The dead Soviet FOs' whole-hour roll."""
    NO_ORDERS = "no_orders"
    """A recovering company was attacked this turn: treated as No Orders."""
    NEVER = "never"
    """A pending sheet whose row has no cell that implements: a warning, never a stop."""


@dataclass(frozen=True)
class Due:
    """One thing due this turn, in words, with the kind of command that does it (the rules hold
    no CLI words: each front end words the command itself, ``cli/due.py`` and ``web/due.py``).

    Attributes:
        kind: What it is.
        text: One line for the player.
        command: The kind of command that does it (``check``, ``fo``; ``""`` when it is for
            the table, not the engine).
        sheet: The Recovery Op Sheet it is about (``""``: none), so a front end shows it only
            to a viewer who sees that sheet.
        subject: The company it concerns (an attack), when it is not a sheet.
    """

    kind: DueKind
    text: str
    command: str = ""
    sheet: str = ""
    subject: str = ""

    def typed(self) -> CoreDue:
        """As the front ends' typed :class:`rallypoint.core.due.Due` (the command's kind)."""
        return CoreDue(self.kind.value, self.text, self.command or None,
                       self.sheet or self.subject or None)


def due_now(state: TcsState) -> tuple[Due, ...]:
    """What is due this turn: sheets that may be checked, the FO roll, attacked companies.

    A turn that leaves a whole hour with the FO roll unmade is refused by the rules, and
    ``tcs turn --count`` stops at each of these (pending distributions are listed apart).
    """
    found: list[Due] = []
    for sheet in state.sheets.values():
        if sheet.status is SheetStatus.PENDING and never_implements(state, sheet.row):
            found.append(Due(DueKind.NEVER, f"{never_text(sheet.id, sheet.row)}. {SUPPLY_ROWS}",
                             sheet=sheet.id))
        if sheet.status is not SheetStatus.PENDING or sheet.last_check_turn == state.turn:
            continue
        column = state.rules.implementation.column(sheet.weighted_turns)
        needed = state.rules.implementation.needed(sheet.row, column) if column else None
        if needed is not None:
            found.append(Due(DueKind.CHECK, f"sheet {sheet.id} may be checked: "
                             f"{sheet.weighted_turns} weighted turns, needs {needed}+ on d66",
                             "check", sheet.id))
    fos = fo_due(state)
    if fos:
        found.append(Due(DueKind.FO, f"the dead FOs roll at {state.clock:%H:%M} "
                         f"({', '.join(fos)}): {rec.fo_number(state)}+ on 2d6 returns each",
                         "fo"))
    for company in state.attacked_now():
        found.append(Due(DueKind.NO_ORDERS, f"{company} was attacked this turn: treat it as a "
                         "formation with No Orders", subject=company))
    return tuple(found)
