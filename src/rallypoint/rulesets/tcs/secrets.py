"""What TCS R&R keeps secret, and whose each command is (the plugin's ``secrets`` part).

The table is public: counters' steps, piles and hexes, battalion morale, the clock, losses,
moves and the FO rolls. What a side writes behind its screen is its own until the reveal
(issue 12): its Recovery Op Sheets (name, members, centers, size, row, weighted turns, status),
the implementation checks and recovery rolls that would reveal them, its pending distributions,
and which sheet a company leaving its center was on. When a sheet implements, what it does to
the counters reaches the table, and so the opponent sees the counters come back (as across a
real table).

Rules never read this module: :mod:`rallypoint.core.visibility` applies it at the edge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from rallypoint.core.visibility import (
    NOTHING,
    REFEREE_ONLY,
    EventSecrets,
    Owners,
    Secret,
)

_SHEET_PARTS = ("sheet", "members", "companies", "centers", "other_sheet", "size",
                "command_prep", "row", "vehicle", "turn", "attest_distance", "never_implements")
# A reassignment says which companies recover on which sheet; an attack's event lists only the
# attacked companies that were recovering (and their sheets), so both are the owner's secret.
_REASSIGNED_PARTS = ("sheet", "companies", "other_sheet", "reason")
_ATTACKED_PARTS = ("companies", "sheets", "note")
_FIRED_PARTS = ("sheets", "turn", "corrections")
# Battalion morale is public state (the table view shows it to both sides), so the morale
# recovery rolls of a check or a distribution stay public: the opponent's database folds them.
_CHECK_PARTS = ("sheet", "weighted_turns", "row", "column", "needed", "roll", "implemented",
                "recoveries", "unassigned", "stays_assigned")
_DISTRIBUTED_PARTS = ("sheet", "steps", "unspent")
# Of a dice proof only what reveals the command and its dice is withheld: its scheme, mode,
# position, round and seat stay public, so both databases agree on position and round numbering.
_PROOF_PARTS = ("command", "tape", "links", "nonce")
_LEFT_PARTS = ("sheet", "sheet_cancelled", "companies")
def _sides_of(scenario: Mapping[str, Any]) -> dict[str, str]:
    """Formation and company id → the side it fights for, also by case-folded id.

    Commands reach :meth:`TcsSecrets.command_owner` as the player typed them (the rules make
    ids canonical later), so ``1/erp112`` must find its side too; ids that differ only by case
    are refused by the rules, so the folded key never names two sides.
    """
    found: dict[str, str] = {}
    for formation in scenario.get("formations") or ():
        side = str(formation.get("side"))
        found[str(formation.get("id"))] = side
        for company in formation.get("companies") or ():
            found[str(company.get("id"))] = side
    for key, side in list(found.items()):
        found.setdefault(key.casefold(), side)
    return found


def _side(sides: Mapping[str, str], key: Any) -> str:
    """The side of one formation or company id, in any case (else the referee's)."""
    text = str(key)
    return sides.get(text) or sides.get(text.casefold(), REFEREE_ONLY)


def _scenario_counter_side(scenario: Mapping[str, Any], counter: Any) -> str:
    """The side of a counter as the scenario lists it (``id``, or ``id-N`` for a counted
    entry), without the state an event's declaration does not get."""
    text = str(counter).casefold()
    for formation in scenario.get("formations") or ():
        for company in formation.get("companies") or ():
            for entry in company.get("counters") or ():
                base = str(entry.get("id")).casefold()
                if text == base or text.startswith(base + "-"):
                    return str(formation.get("side"))
    return REFEREE_ONLY


def _owner_of_members(scenario: Mapping[str, Any], members: Any) -> str:
    """The one side of a sheet's members (a sheet mixing sides is the referee's alone)."""
    sides = _sides_of(scenario)
    found = {_side(sides, m) for m in members or ()}
    return found.pop() if len(found) == 1 else REFEREE_ONLY


def _counter_side(scenario: Mapping[str, Any], state: Mapping[str, Any], counter: Any) -> str:
    sides = _sides_of(scenario)
    for company_id, company in (state.get("companies") or {}).items():
        counters = company.get("counters") or {}
        if counter in counters or str(counter).casefold() in {str(c).casefold()
                                                              for c in counters}:
            return _side(sides, company_id)
    return REFEREE_ONLY


def _proof_secrets(payload: Mapping[str, Any], owner: str) -> tuple[Secret, ...]:
    """The parts of an event's dice proof that reveal its command and dice (if it has one)."""
    proof = payload.get("dice_proof")
    if not isinstance(proof, Mapping):
        return ()
    return tuple(Secret(("dice_proof", k), owner) for k in _PROOF_PARTS if k in proof)


class TcsSecrets:
    """The TCS declaration (see :class:`rallypoint.core.visibility.Declaration`)."""

    hides_secrets = True
    """A two-side TCS campaign hides Op Sheets: its pair-mode dice rounds are sealed (the request
    carries a commitment, not the command). A declaration without it hides nothing."""

    def sides(self, scenario: Mapping[str, Any]) -> tuple[str, ...]:
        """One seat per side of the scenario."""
        return tuple(str(s.get("id")) for s in scenario.get("sides") or ())

    def event_secrets(self, scenario: Mapping[str, Any], owners: Owners, event_type: str,
                      payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
        """Sheets and what reveals them; remembers each sheet's side."""
        hiding = _HIDING.get(event_type)
        return (NOTHING, owners) if hiding is None else hiding(scenario, owners, payload)

    def may_hide(self, event_type: str) -> bool:
        """The event types :meth:`event_secrets` can hide something of: exactly those it has a
        rule for (``_HIDING``, one table, so the two cannot drift apart)."""
        return event_type in _HIDING

    def public_summary(self, event_type: str, payload: Mapping[str, Any]) -> str:
        """What a redacted TCS event says in the log."""
        if event_type == "sheet_written":
            return "a Recovery Op Sheet was written (withheld)"
        if event_type == "turn_advanced":
            night = ", night" if payload.get("night") else ""
            own = "; ".join(f"sheet {a.get('sheet')} +{a.get('added')} ({a.get('total')} "
                            "weighted turns)" for a in payload.get("accruals") or ())
            clock = str(payload.get("clock", ""))[11:16]  # ISO time: HH:MM, as the log says
            skipped = payload.get("fo_skipped") or ()
            fo = (f"; the due FO roll was skipped: {', '.join(map(str, skipped))} stay dead "
                  "this hour") if skipped else ""
            return f"turn {payload.get('turn')} ({clock}{night})" + (
                f": {own}" if own else "") + fo
        if event_type == "accrued":
            own = "; ".join(f"sheet {a.get('sheet')} +{a.get('added')} for turn {a.get('turn')} "
                            f"({a.get('total')} weighted turns)"
                            for a in payload.get("accruals") or ())
            return f"owed weighted turns, to turn {payload.get('turn')}" + (
                f": {own}" if own else " (withheld)")
        if event_type == "implementation_checked":
            return "an implementation check (withheld)"
        if event_type == "distributed":
            return f"{payload.get('company')} distributed recovered steps (details withheld)"
        if event_type == "reassigned":
            return "an Op Sheet assignment changed (withheld)"
        if event_type == "attacked":
            return f"recovering units attacked on turn {payload.get('turn')} (withheld)"
        if event_type == "fired":
            return "a side's sheets fired or were fired upon (withheld)"
        if event_type in ("left_center", "moved"):
            what = payload.get("company") or payload.get("counter")
            return f"{what} left a recovery center (details withheld)"
        return f"{event_type} (withheld)"

    def view_secrets(self, scenario: Mapping[str, Any],
                     state: Mapping[str, Any]) -> tuple[Secret, ...]:
        """Every sheet, and every recovery waiting for its distribution, by side."""
        sides = _sides_of(scenario)
        found = [Secret(("sheets", sid), _owner_of_members(scenario, sheet.get("companies")
                                                           or sheet.get("left")))
                 for sid, sheet in (state.get("sheets") or {}).items()]
        found += [Secret(("recoveries", n), sides.get(str(r.get("company")), REFEREE_ONLY))
                  for n, r in enumerate(state.get("recoveries") or ())]
        return tuple(found)

    def decision_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                       decision: Mapping[str, Any]) -> str | None:
        """A distribution is its company's side's."""
        return _side(_sides_of(scenario), decision.get("subject"))

    def command_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                      command: Mapping[str, Any]) -> str | None:
        """A command acts for the side of the counter, company, formation or sheet it names;
        the next turn belongs to no one side."""
        kind = command.get("kind")
        sides = _sides_of(scenario)
        if kind in ("loss", "move"):
            return _counter_side(scenario, state, command.get("counter"))
        if kind in ("leave_center", "distribute"):
            return _side(sides, command.get("company"))
        if kind == "morale":
            return _side(sides, command.get("formation"))
        if kind in ("write_sheet", "reassign", "attack"):
            return _owner_of_members(scenario, command.get("members"))
        if kind == "fired":
            names = command.get("sheets") or ()
            owners = {self.command_owner(scenario, state, {"kind": "check", "sheet": n})
                      for n in names}
            return owners.pop() if len(owners) == 1 else REFEREE_ONLY
        if kind == "check":
            # A sheet the viewer cannot see is nobody's to them: unknown and foreign sheets get
            # the same refusal, so a guess cannot tell that a sheet of that name exists.
            sheet = (state.get("sheets") or {}).get(str(command.get("sheet")))
            return REFEREE_ONLY if sheet is None else _owner_of_members(
                scenario, sheet.get("companies") or sheet.get("left"))
        if kind == "fo":
            fo_sides = [str(s.get("id")) for s in scenario.get("sides") or ()
                        if s.get("fo_pile")]
            return fo_sides[0] if len(fo_sides) == 1 else None
        return None


# --- what each event type hides (``_HIDING``) ---------------------------------------------------

_Hiding = Callable[[Mapping[str, Any], Owners, Mapping[str, Any]], tuple[EventSecrets, Owners]]


def _sheet_written(scenario: Mapping[str, Any], owners: Owners,
                   payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    sheet = str(payload.get("sheet", ""))
    owner = _owner_of_members(scenario, payload.get("members"))
    owners = MappingProxyType({**owners, sheet: owner})
    return EventSecrets(tuple(Secret((k,), owner) for k in _SHEET_PARTS)), owners


def _accruals(scenario: Mapping[str, Any], owners: Owners,
              payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    # Sealed, with a part for every side (and the referee's, for a sheet of no known side): a
    # turn (or owed accruals) shows nobody whether, or how many of, the other side's sheets
    # accrue, nor when one stops (issue 18).
    sides = tuple(str(s.get("id")) for s in scenario.get("sides") or ())
    return EventSecrets(tuple(
        Secret(("accruals", n), owners.get(str(a.get("sheet")), REFEREE_ONLY))
        for n, a in enumerate(payload.get("accruals") or ())), sealed=True,
        parties=(*sides, REFEREE_ONLY)), owners


def _checked(scenario: Mapping[str, Any], owners: Owners,
             payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    owner = owners.get(str(payload.get("sheet", "")), REFEREE_ONLY)
    return EventSecrets((*(Secret((k,), owner) for k in _CHECK_PARTS),
                         *_proof_secrets(payload, owner))), owners


def _reassigned(scenario: Mapping[str, Any], owners: Owners,
                payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    owner = owners.get(str(payload.get("sheet", "")), REFEREE_ONLY)
    return EventSecrets(tuple(Secret((k,), owner) for k in _REASSIGNED_PARTS)), owners


def _attacked(scenario: Mapping[str, Any], owners: Owners,
              payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    owner = _owner_of_members(scenario, payload.get("companies"))
    return EventSecrets(tuple(Secret((k,), owner) for k in _ATTACKED_PARTS)), owners


def _fired(scenario: Mapping[str, Any], owners: Owners,
           payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    # Which sheets fired (and the accruals corrected) is the sheets' side's own.
    sheets = payload.get("sheets")
    first = sheets[0] if isinstance(sheets, (list, tuple)) and sheets else None
    owner = REFEREE_ONLY if first is None else owners.get(str(first), REFEREE_ONLY)
    return EventSecrets(tuple(Secret((k,), owner) for k in _FIRED_PARTS)), owners


def _distributed(scenario: Mapping[str, Any], owners: Owners,
                 payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    owner = _side(_sides_of(scenario), payload.get("company"))
    return EventSecrets((*(Secret((k,), owner) for k in _DISTRIBUTED_PARTS),
                         *_proof_secrets(payload, owner))), owners


def _left_center(scenario: Mapping[str, Any], owners: Owners,
                 payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    owner = owners.get(str(payload.get("sheet", "")), REFEREE_ONLY)
    return EventSecrets(tuple(Secret((k,), owner) for k in _LEFT_PARTS)), owners


def _moved(scenario: Mapping[str, Any], owners: Owners,
           payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
    left = payload.get("left_center")
    if isinstance(left, Mapping):
        owner = owners.get(str(left.get("sheet")), REFEREE_ONLY)
        return EventSecrets((*(Secret(("left_center", k), owner) for k in _LEFT_PARTS),
                             Secret(("attest_distance",), owner))), owners
    if payload.get("attest_distance") is not None:
        # A seam count is attested only against a recovery center: it says one is near.
        owner = _scenario_counter_side(scenario, payload.get("counter"))
        return EventSecrets((Secret(("attest_distance",), owner),)), owners
    return NOTHING, owners


_HIDING: Mapping[str, _Hiding] = MappingProxyType({
    "sheet_written": _sheet_written, "turn_advanced": _accruals, "accrued": _accruals,
    "implementation_checked": _checked, "reassigned": _reassigned, "attacked": _attacked,
    "fired": _fired, "distributed": _distributed, "left_center": _left_center,
    "moved": _moved,
})
"""What each event type that can hide something hides (``moved``: when it leaves a center or
attests a seam count); any other type hides nothing, and so never arrives redacted
(:meth:`TcsSecrets.may_hide` is this table's keys)."""


SECRETS = TcsSecrets()
"""The TCS declaration its plugin names."""
