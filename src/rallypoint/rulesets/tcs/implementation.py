"""What an implementation check needs besides the dice: why a sheet cannot implement now (or
ever), and the modifiers the player gives at check time.

Seed: 'the player rolls for its implementation on the Prepared Defense line' (facts: a '–' cell
cannot implement; 'Rows 9 and up were not recovered: treat them as "cannot implement" unless the
user's data file supplies them'), and 'Further modifiers might be appropriate here in case … the
enemy has broken into the formation's idea of "the rear"'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NoReturn

from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.dice import Modifier
from rallypoint.rulesets.tcs.state import SheetState, TcsState

REAR_BROKEN = "the enemy has broken into the rear"
"""The name the check-time modifier carries in each roll it changes."""

SUPPLY_ROWS = ("Supply the row in the scenario's [implementation] table with its source "
               "(docs/scenarios.md), or write a smaller sheet.")
"""How a player gets a row the table lacks (the fix of every 'never implements' message)."""


def never_implements(state: TcsState, row: int) -> bool:
    """Whether a sheet on ``row`` can never implement in this campaign's table: no cell of the
    row implements (a row the table lacks, rows 9 and up, reads as all '–')."""
    return state.rules.implementation.implements_later(row, 1) is None


def never_text(sheet: str, row: int) -> str:
    """The warning for a sheet that can never implement, in words."""
    return (f"{sheet} is on row {row} of the Implementation Table, which has no cell that "
            "implements (rows 9 and up were not recovered): no number of weighted turns will "
            "implement it")


def refuse_no_cell(state: TcsState, sheet: SheetState, column: int) -> NoReturn:
    """Refuse a check on a '–' cell, saying whether accruing more weighted turns helps.

    Raises:
        IllegalNowError: Always; the fix names the column that can implement, or how to supply
            the row when none can.
    """
    table = state.rules.implementation
    later = table.implements_later(sheet.row, column)
    if later is None:
        raise IllegalNowError(never_text(sheet.id, sheet.row), fix=SUPPLY_ROWS)
    threshold = table.lines[table.line][later - 1]
    raise IllegalNowError(
        f"row {sheet.row}, column {column} of the Implementation Table is '–': {sheet.id} "
        f"cannot implement yet", fix=f"Keep accruing: at {threshold} weighted turns (column "
        f"{later}) it needs {table.needed(sheet.row, later)}.")


def rear_modifiers(state: TcsState, sheet: SheetState,
                   given: Mapping[str, int]) -> dict[str, tuple[Modifier, ...]]:
    """Each company of ``sheet`` → the check-time modifiers the player gave for it.

    ``given`` names the sheet itself (every company on it), a formation or a company; a name
    that reaches no company of the sheet is refused, never dropped. Two names reaching one
    company add up.

    Raises:
        MalformedInputError: A name that is not the sheet nor a formation or company on it.
    """
    found: dict[str, int] = {}
    for key, value in given.items():
        reached = (sheet.companies if key == sheet.id
                   else tuple(c for c in _under(state, key) if c in sheet.companies))
        if not reached:
            raise MalformedInputError(
                f"rear modifier given for {key!r}, which is not {sheet.id} nor on it",
                fix=f"Name the sheet ({sheet.id}), or a formation or company on it.")
        for company in reached:
            found[company] = found.get(company, 0) + value
    return {c: (Modifier(name=REAR_BROKEN, value=v),) for c, v in found.items() if v}


def _under(state: TcsState, key: str) -> tuple[str, ...]:
    oob = state.oob
    return oob.companies_under(key) if key in oob.formations or key in oob.companies else ()
