"""The public parts of a TCS event redacted for this seat, decided again before the reveal.

Why (issue 18): a database folds the public parts of the opponent's redacted events
(:mod:`rallypoint.rulesets.tcs.partial`): the counters they leave, the turn and clock, battalion
morale. Their hash commits the withheld parts but can be checked only at the reveal, so a sender
who edits a public part and signs again would be taken on trust until then. Instead each public
part is decided here from this seat's state just before the event (the table is public and
whole in every database) and what the event shows of the command (the player's own choices:
which counter moves where, which counters a distribution heals), as far as public state decides
it. The sender is the event's owner: every unit a redacted event changes must be its side's.

What the rules give, by type:

- ``sheet_written``, ``fired``: no counter changes (a sheet, or a fired mark, moves nothing).
- ``reassigned``, ``attacked``: no counter changes, and the current turn.
- ``turn_advanced``: the turn decided again on this table (the next turn, its clock and night,
  the dead FOs' due roll let pass), no counter changes, and no accrual of this seat's sheets
  (the sender's database cannot name them; this database accrues them as owed).
- ``accrued``: the current turn, no counter changes, no accrual of this seat's sheets.
- ``left_center``: a company of the sender's side; the counters named Very Dead, distinct, from
  the Dead Pile of that side, each now Very Dead: exactly half of the company's Dead Pile when
  only the company leaves (``leave_center_scope = "company"``), else at least that many (the
  formation leaving with it holds the company).
- ``moved``: the move decided again on this table (a counter of the sender's side, on the map,
  now at the hex); if it left its center, that leaving as for ``left_center``, with the rule's
  cause.
- ``implementation_checked``: the current turn, no counter changes, and each battalion morale
  roll of a battalion of the sender's side, decided again from its morale now with the roll's
  faces.
- ``distributed``: a company of the sender's side; the counters the public distribution (heal,
  resurrect, transfers, Very Dead, each of that company's counters in the pile it needs) leaves,
  each resurrected counter where the event places it; morale rolls as a check's.

What only the withheld parts decide is checked at the reveal, where the whole log is known
(docs/two-player.md, "Threat model"): which sheet, and that it exists and is pending; the
dice faces (the tape is withheld with the command); how many steps a check recovered, and so
whether a distribution spends them; which battalions roll morale; whether a move took a company
out of reach of its (hidden) center, and any seam count; which companies leave with a formation,
and so exactly how many counters go Very Dead and from which Dead Pile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from rallypoint.core.differences import Difference, first_difference
from rallypoint.core.errors import RallypointError
from rallypoint.core.inputs import shorten
from rallypoint.core.visibility import REDACTED
from rallypoint.dice import ChanceNode
from rallypoint.rulesets.tcs import recovery as rec
from rallypoint.rulesets.tcs.commands import AdvanceTurn, Distribute, MoveCounter
from rallypoint.rulesets.tcs.events import READER, SCHEMA, CounterAfter
from rallypoint.rulesets.tcs.partial import public_parts
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import TcsState

_VERY_DEAD = CounterAfter(steps=0, pile=Pile.VERY_DEAD, hex=None).model_dump(mode="json")


class _Refused(Exception):
    """A public part no rule gives (raised while deriving, to stop at the first)."""

    def __init__(self, path: str, stated: Any, derived: str) -> None:
        super().__init__(path)
        self.difference = Difference(path, shorten(str(stated), 60), derived)


class _Faces:
    """A roller that hands out faces the event states (their dice are checked at the reveal,
    where the withheld tape is known)."""

    def __init__(self, faces: Any) -> None:
        self._faces = list(faces) if isinstance(faces, list | tuple) else []

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        count, sides = node.dice.count, node.dice.sides
        picked, self._faces = self._faces[:count], self._faces[count:]
        if len(picked) != count or not all(isinstance(f, int) and 1 <= f <= sides
                                           for f in picked):
            raise _Refused("morale.roll.faces", picked, f"{count} face(s) of a d{sides}")
        return tuple(picked)


def check_public(state: TcsState, event_type: str, payload: Mapping[str, Any],
                 seat: str) -> Difference | None:
    """The first public part of a redacted TCS event that the rules would not give.

    Args:
        state: This seat's state just before the event (its partial fold).
        event_type: The stored event type.
        payload: The redacted payload, as the file holds it.
        seat: The event's owner: the seat that sent the file.

    Returns:
        ``None`` when every public part is what the rules give on this table; else where it
        first differs (see the module docstring for what is checked, and what waits for the
        reveal).
    """
    if REDACTED in payload:
        # Only events stored before issue 18 hold it; a file's new events never do.
        return Difference(REDACTED, "the withheld paths of before issue 18",
                          "one opaque part per owner (the current format)")
    derive = _DERIVED.get(event_type)
    if derive is None:
        return None  # never redacted: the import refuses it as such
    try:
        data = public_parts(READER.upcast(event_type, payload))
        return first_difference(data, derive(state, data, seat))
    except _Refused as exc:
        return exc.difference
    except RallypointError as exc:
        return Difference(event_type, "a legal event", f"refused: {exc.what}")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # A crafted public part may break a rule anywhere (an unknown id, a list for a map).
        return Difference(event_type, "a legal event", f"not decidable ({type(exc).__name__})")


def _table(**fields: Any) -> dict[str, Any]:
    """A public projection: the schema version, no counter changes unless given."""
    return {"v": SCHEMA, "counters": {}, **fields}


def _own_company(state: TcsState, company: Any, seat: str, path: str) -> str:
    """A company of the scenario on ``seat``'s side (a redacted event acts for its owner)."""
    if not isinstance(company, str) or company not in state.oob.companies:
        raise _Refused(path, company, "a company of this scenario")
    side = state.oob.side_of(company)
    if side != seat:
        raise _Refused(path, f"{company} ({side}'s)", f"a company of {seat}'s, the sender's")
    return company


def _own_counter(state: TcsState, counter: Any, seat: str, path: str, pile: Pile) -> str:
    """A counter of ``seat``'s side, now in ``pile``."""
    if not isinstance(counter, str) or counter not in state.counters:
        raise _Refused(path, counter, "a counter of this scenario")
    side = state.oob.side_of(state.oob.company_of[counter])
    if side != seat:
        raise _Refused(path, f"{counter} ({side}'s)", f"a counter of {seat}'s, the sender's")
    now = state.counters[counter].pile
    if now is not pile:
        raise _Refused(path, f"{counter} ({now.value})", f"a counter in the {pile.value} pile")
    return counter


def _very_dead(state: TcsState, named: Any, company: str, seat: str,
               path: str) -> dict[str, Any]:
    """The counters a company leaving its center sends Very Dead (seed: 'half the units in
    its Dead Pile are moved to the Very Dead Pile'), each of the sender's Dead Pile."""
    if not isinstance(named, list):
        raise _Refused(path, named, "a list of counters")
    for ident in named:
        _own_counter(state, ident, seat, path, Pile.DEAD)
    if len(set(named)) != len(named):
        raise _Refused(path, named, "distinct counters")
    params = state.rules.params
    dead = state.in_pile(company, Pile.DEAD)
    n = rec.half_pile(len(dead), params.half_dead_pile_rounding)
    if params.leave_center_scope == "company":
        if len(named) != n or not set(named) <= set(dead):
            raise _Refused(path, named, f"{n} of {company}'s Dead Pile ({', '.join(dead)})")
    elif len(named) < n:
        # The formation leaving with it is on the (hidden) sheet, but it holds the company:
        # half of their Dead Pile together is at least half of the company's.
        raise _Refused(path, named, f"at least {n} of a Dead Pile holding {company}'s "
                                    f"({', '.join(dead)})")
    return dict.fromkeys(named, _VERY_DEAD)


def _without_sheets(state: TcsState) -> TcsState:
    """This table with no sheet at all: what the sender's database knew of this seat's."""
    return replace(state, sheets={}) if state.sheets else state  # most turns: no copy


def _no_changes(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    return _table()


def _this_turn(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    return _table(turn=state.turn)


def _accrued(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    return _table(turn=state.turn, accruals=[])


def _turn(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    from rallypoint.rulesets.tcs.turns import decide_turn

    return decide_turn(_without_sheets(state),
                       AdvanceTurn(expected_version=0, skip_fo=True)).payload()


def _left(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    company = _own_company(state, data.get("company"), seat, "company")
    named = data.get("very_dead")
    return _table(company=company, cause=str(data.get("cause")), very_dead=named,
                  counters=_very_dead(state, named, company, seat, "very_dead"))


def _moved(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    from rallypoint.rulesets.tcs.rules import decide

    counter = _own_counter(state, data.get("counter"), seat, "counter", Pile.MAP)
    move = MoveCounter(expected_version=0, counter=counter, hex=str(data.get("hex")))
    derived = decide(_without_sheets(state), move, _Faces(())).payload()
    derived.pop("attest_distance", None)  # always withheld when a move is redacted
    stated = data.get("left_center")
    if isinstance(stated, Mapping):
        company = state.oob.company_of[counter]
        named = stated.get("very_dead")
        very_dead = _very_dead(state, named, company, seat, "left_center.very_dead")
        derived["left_center"] = {"company": company, "cause": f"{counter} moved off its center",
                                  "very_dead": named, "counters": very_dead}
        derived["counters"] = {**derived["counters"], **very_dead}
    return derived


def _morale(state: TcsState, stated: Any, seat: str) -> list[dict[str, Any]]:
    """Each battalion morale roll decided again from its morale now, with the stated faces."""
    from rallypoint.rulesets.tcs.rules import morale_roll

    if not isinstance(stated, list):
        raise _Refused("morale", stated, "a list of morale rolls")
    rolls = []
    for item in stated:
        formation = item.get("formation") if isinstance(item, Mapping) else None
        if formation not in state.morale:
            raise _Refused("morale.formation", formation, "a battalion that keeps morale")
        side = state.oob.formations[str(formation)].side
        if side != seat:
            raise _Refused("morale.formation", f"{formation} ({side}'s)",
                           f"a battalion of {seat}'s, the sender's")
        faces = (item.get("roll") or {}).get("faces")
        rolls.append(morale_roll(state, str(formation), _Faces(faces)).model_dump(mode="json"))
    return rolls


def _checked(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    return _table(turn=state.turn, morale=_morale(state, data.get("morale"), seat))


def _distributed(state: TcsState, data: Mapping[str, Any], seat: str) -> dict[str, Any]:
    from rallypoint.rulesets.tcs.rules import distributed_counters

    company = _own_company(state, data.get("company"), seat, "company")
    shown = {k: data.get(k) for k in ("heal", "resurrect", "very_dead", "redistribute",
                                      "attest_distance")}
    counters = data.get("counters") or {}
    placed = {i: (counters.get(i) or {}).get("hex") for i in shown["resurrect"] or {}}
    cmd = Distribute.model_validate({
        **shown, "expected_version": 0, "company": company,
        "place": {i: h for i, h in placed.items() if isinstance(h, str)}})
    own = set(state.oob.counters_of[company])
    piles = ((cmd.heal, Pile.MAP), (cmd.resurrect, Pile.DEAD), (cmd.very_dead, Pile.DEAD))
    for named, pile in piles:
        for ident in named:
            if ident not in own:
                raise _Refused("counters", ident, f"a counter of {company}")
            _own_counter(state, ident, seat, "counters", pile)
    for t in cmd.redistribute:
        if not {t.source, t.target} <= own:
            raise _Refused("redistribute", f"{t.source} -> {t.target}",
                           f"counters of {company}")
    return _table(**shown, company=company,
                  counters={i: c.model_dump(mode="json")
                            for i, c in distributed_counters(state, cmd, None).items()},
                  morale=_morale(state, data.get("morale"), seat))


_DERIVED: dict[str, Callable[[TcsState, Mapping[str, Any], str], dict[str, Any]]] = {
    "sheet_written": _no_changes, "fired": _no_changes, "reassigned": _this_turn,
    "attacked": _this_turn, "accrued": _accrued, "turn_advanced": _turn, "left_center": _left,
    "moved": _moved, "implementation_checked": _checked, "distributed": _distributed,
}
"""What the rules give for the public parts of each event type that can arrive redacted."""
