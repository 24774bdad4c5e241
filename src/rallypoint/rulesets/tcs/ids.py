"""Ids as the player types them: every id in a TCS command made the scenario's own spelling.

``2/erp112`` is ``2/ErP112``; an id that matches nothing is refused with the nearest ones
("did you mean …"). :func:`canonical` runs first in ``rules.decide``, so the rules and the
events only ever see the scenario's spelling (a log never holds two spellings of one counter).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from rallypoint.core.ruleset import Command
from rallypoint.core.suggest import match_id, soft_match
from rallypoint.errors import Hint
from rallypoint.rulesets.tcs.commands import (
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
    Transfer,
    WriteSheet,
)
from rallypoint.rulesets.tcs.fixes import FixKind, fix
from rallypoint.rulesets.tcs.state import TcsState

V = TypeVar("V")


def counter(state: TcsState, text: str) -> str:
    """The counter ``text`` names (any case)."""
    return match_id(text, state.counters, "counter", scope="in this scenario",
                    fix=fix(FixKind.PICK_COUNTER), instead=Hint.PICK_ID)


def company(state: TcsState, text: str) -> str:
    """The company ``text`` names (any case)."""
    return match_id(text, state.oob.companies, "company", scope="in this scenario",
                    fix=fix(FixKind.PICK_COMPANY), instead=Hint.PICK_ID)


def member(state: TcsState, text: str) -> str:
    """The formation or company ``text`` names (any case)."""
    return match_id(text, [*state.oob.formations, *state.oob.companies], "formation or company",
                    scope="in this scenario", fix=fix(FixKind.PICK_MEMBERS), instead=Hint.PICK_ID)


def soft(text: str, known: Iterable[str]) -> str:
    """The known id ``text`` names ignoring case; else ``text`` as typed, for the rule that reads
    it to refuse in its own words (a column for a company not on the sheet, say)."""
    return soft_match(text, known)


def sheet(state: TcsState, text: str) -> str:
    """The Recovery Op Sheet ``text`` names (any case)."""
    return match_id(text, state.sheets, "Recovery Op Sheet",
                    fix=f"Use one of: {', '.join(state.sheets) or 'none'}.")


def _keys(found: Mapping[str, V], pick: Any) -> dict[str, V]:
    return {pick(k): v for k, v in found.items()}


def _all(items: Iterable[str], pick: Any) -> tuple[str, ...]:
    return tuple(pick(i) for i in items)


def canonical(state: TcsState, cmd: Command) -> Command:
    """``cmd`` with every id it names spelled as the scenario spells it.

    Raises:
        UnknownIdError: An id matches nothing (the message suggests the nearest).
        MalformedInputError: An id matches several that differ only by case.
    """
    def c(t: str) -> str:
        return counter(state, t)

    def k(t: str) -> str:
        return company(state, t)

    def m(t: str) -> str:
        return member(state, t)

    def loose(t: str) -> str:
        return soft(t, [*state.oob.formations, *state.oob.companies, *state.counters])

    update: dict[str, Any]
    if isinstance(cmd, RecordLoss):
        update = {"counter": c(cmd.counter)}
    elif isinstance(cmd, MoveCounter):
        update = {"counter": c(cmd.counter),
                  "very_dead": None if cmd.very_dead is None else _all(cmd.very_dead, c)}
    elif isinstance(cmd, LeaveCenter):
        update = {"company": k(cmd.company),
                  "very_dead": None if cmd.very_dead is None else _all(cmd.very_dead, c)}
    elif isinstance(cmd, WriteSheet):
        update = {"members": _all(cmd.members, m), "centers": _keys(cmd.centers, loose),
                  "other_sheet": _all(cmd.other_sheet, loose)}
    elif isinstance(cmd, (Reassign, Attack)):
        update = {"members": _all(cmd.members, m)}
    elif isinstance(cmd, AdvanceTurn):
        update = {"fired": _all(cmd.fired, lambda t: sheet(state, t))}
    elif isinstance(cmd, MarkFired):
        update = {"sheets": _all(cmd.sheets, lambda t: sheet(state, t))}
    elif isinstance(cmd, CheckImplementation):
        update = {"sheet": sheet(state, cmd.sheet), "columns": _keys(cmd.columns, loose),
                  "rear_broken": _keys(cmd.rear_broken, lambda t: soft(
                      t, [*state.sheets, *state.oob.formations, *state.oob.companies]))}
    elif isinstance(cmd, Distribute):
        update = {"company": k(cmd.company), "heal": _keys(cmd.heal, c),
                  "resurrect": _keys(cmd.resurrect, c), "very_dead": _all(cmd.very_dead, c),
                  "place": _keys(cmd.place, c),
                  "redistribute": tuple(Transfer(source=c(t.source), target=c(t.target),
                                                 steps=t.steps) for t in cmd.redistribute)}
    elif isinstance(cmd, SetMorale):
        update = {"formation": soft(cmd.formation, state.oob.formations)}
    elif isinstance(cmd, RollFos):
        update = {"place": _keys(cmd.place, loose)}
    else:
        return cmd
    return cmd.model_copy(update=update)
