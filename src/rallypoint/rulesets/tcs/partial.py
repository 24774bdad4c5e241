"""Folding a TCS event that was redacted for this database's seat: its public parts only.

Why (issue 12, hidden Op Sheets by e-mail): each player keeps a database that holds their own
events whole and the opponent's redacted, as :func:`rallypoint.core.visibility.redact_events`
filters them from the opponent's declaration (:mod:`rallypoint.rulesets.tcs.secrets`). A
withheld value is simply absent (a key or a list item left out), and ``"$withheld"`` names one
opaque part per owner; a partial log stored before issue 18 has a ``{"$withheld": side}`` marker
in place of each withheld value and ``"$redacted"`` listing the withheld paths, and folds the
same. Such a payload does not read as its event model, so it cannot go through
:func:`rallypoint.rulesets.tcs.fold.apply`; :func:`apply_redacted` folds what it shows instead.

What a redacted TCS event shows is exactly what sits on the table, and that is all the
opponent's state needs: the counters each event leaves (``counters``, always public), the turn,
clock and night of a turn, the battalion morale rolls (morale is public state), and the viewer's
own accruals of a sealed turn (their own sheets' items stay in it). Everything withheld is about
sheets the viewer does not hold, so it is skipped, not guessed: the viewer's state has no such
sheet to change. The property that makes this exact is the oracle of ``tests/test_tcs_partial.py``:
for any log and side, the side's view of the whole fold equals its view of the partial fold.

As the fold, this never re-runs a rule; it only reads what the event says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rallypoint.core.errors import IntegrityError
from rallypoint.core.visibility import BLIND, COMMAND, REDACTED, WITHHELD
from rallypoint.errors import Hint
from rallypoint.rulesets.tcs import fold
from rallypoint.rulesets.tcs.events import READER, CounterAfter, MoraleRoll
from rallypoint.rulesets.tcs.state import TcsState

_COUNTERS: TypeAdapter[dict[str, CounterAfter]] = TypeAdapter(dict[str, CounterAfter])
_MORALE: TypeAdapter[tuple[MoraleRoll, ...]] = TypeAdapter(tuple[MoraleRoll, ...])

_TABLE_ONLY = frozenset({"sheet_written", "reassigned", "attacked", "left_center", "moved",
                         "fired"})
"""Events whose withheld parts are all about one side's sheet (which sheet, its members,
centers, row, status, a seam count near its center): their public effect is their counters."""
_TABLE_AND_MORALE = frozenset({"implementation_checked", "distributed"})
"""Events that also carry battalion morale recovery rolls, which are public state."""
_ENVELOPE = (WITHHELD, REDACTED, BLIND, COMMAND, "dice_proof")
"""Keys the rules never read: what was withheld (either format), the hash blind, the recorded
command, the dice proof (whose public parts, mode, position, round and seat, the dice audit
reads, not the fold)."""


def is_withheld(value: Any) -> bool:
    """Whether ``value`` is the marker a redacted event stored before issue 18 has in place of a
    withheld value (the current format leaves the value out)."""
    return isinstance(value, Mapping) and len(value) == 1 and WITHHELD in value


def apply_redacted(state: TcsState, event_type: str, payload: Mapping[str, Any]) -> TcsState:
    """Fold the public parts of a TCS event redacted for this database's seat.

    Args:
        state: The state before the event (this seat's partial fold).
        event_type: The stored event type.
        payload: The redacted payload (any schema version), as ``redact_events`` made it.

    Returns:
        The state after the event's public parts: always its counters; for a turn (or owed
        accruals), the turn, clock, night and the accruals still shown (this seat's own
        sheets); morale recovery rolls of a check or distribution; the whole event when nothing
        the fold reads was withheld (a loss, a morale change, FO rolls).

    Raises:
        IntegrityError: A public part does not read (an edited or foreign payload), or an event
            withholds a part this seat's fold would need (the declaration and this fold
            disagree: nothing is guessed).
    """
    data = public_parts(READER.upcast(event_type, payload))
    if event_type in _TABLE_ONLY:
        return _table(state, event_type, data)
    if event_type in _TABLE_AND_MORALE:
        state = _table(state, event_type, data)
        morale = data.get("morale")
        if morale is None or is_withheld(morale):
            return state
        return fold.with_morale(state, _read(_MORALE.validate_python, morale, event_type,
                                             "morale"))
    if event_type in ("turn_advanced", "accrued"):
        # The items left in ``accruals`` are this seat's own sheets (the others' were dropped).
        # The other database's turn or accrual settles nothing of this one's: its own
        # ``accrued`` for that turn is still owed (``TcsState.settled_turn``).
        after = fold.apply(state, _whole(event_type, _held_accruals(state, data)))
        return replace(after, settled_turn=state.settled_turn)
    return fold.apply(state, _whole(event_type, data))


def public_parts(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The payload without the keys the rules never read and without withheld top-level
    values (old nested markers stay, so a part the fold needs cannot pass unnoticed; in the
    current format such a part is missing, and the event model refuses it)."""
    return {k: v for k, v in payload.items() if k not in _ENVELOPE and not is_withheld(v)}


def _table(state: TcsState, event_type: str, data: Mapping[str, Any]) -> TcsState:
    """The counters an event leaves: steps, piles and hexes are on the table for both sides."""
    changed = data.get("counters") or {}
    return fold.with_counters(state, _read(_COUNTERS.validate_python, changed, event_type,
                                           "counters"))


def _held_accruals(state: TcsState, data: dict[str, Any]) -> dict[str, Any]:
    """A turn's shown accruals, keeping only sheets this database holds.

    A seat's own sheets are all it is shown; a sheet it does not hold (one whose members name
    no single side: the referee's) would have been withheld too, so this only guards the fold.
    """
    shown = [a for a in data.get("accruals") or ()
             if isinstance(a, Mapping) and a.get("sheet") in state.sheets]
    return {**data, "accruals": shown}


def _whole(event_type: str, data: Mapping[str, Any]) -> Any:
    """The typed event of a payload the fold can read whole (its withheld parts removed)."""
    try:
        return READER.read(event_type, data)
    except IntegrityError as exc:
        raise IntegrityError(
            f"redacted {event_type!r} does not fold from its public parts: {exc.what}",
            where=exc.where,
            fix="Ask the sender for a fresh export; if it persists, the sender's rallypoint "
                "withholds a part this version folds (upgrade both).",
                instead=Hint.BY_MAIL) from None


def _read(validate: Callable[[Any], Any], value: Any, event_type: str, part: str) -> Any:
    """A public part read as its model, refused in one line when it does not read."""
    try:
        return validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise IntegrityError(
            f"redacted {event_type!r}: its {part} do not read: {first['msg']}",
            where=".".join(str(p) for p in (event_type, part, *first["loc"])),
            fix="Import the campaign again from the sender's export file.") from None

