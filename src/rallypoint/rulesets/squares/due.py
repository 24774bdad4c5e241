"""What the squares rules offer next (a front end words it; see ``rallypoint.core.due``).

A turn has no fixed order of play: whoever has not activated may (once a turn when the rules
say so), a unit a leader may rally is offered, and the turn ends when the players start the next.
"""

from __future__ import annotations

from rallypoint.core.due import Due
from rallypoint.rulesets.squares.rally import opportunities
from rallypoint.rulesets.squares.state import SquaresState


def due(state: SquaresState) -> tuple[Due, ...]:
    """Rallies open now (one line per unit), who has yet to activate, then the next turn."""
    found: list[Due] = []
    leaders: dict[str, list[str]] = {}
    for plan in opportunities(state):
        names = leaders.setdefault(plan.unit, [])
        if state.board.name(plan.leader) not in names:
            names.append(state.board.name(plan.leader))
    for unit, who in leaders.items():
        found.append(Due("rally", f"{state.board.name(unit)} may be rallied by "
                         f"{' or '.join(who)}", "rally", unit))
    if state.rules.params.once_per_turn:
        waiting = [u.id for u in state.in_play() if u.id not in state.activated]
        waiting += [ld for ld in state.leaders if ld not in state.activated]
        if waiting:
            found.append(Due("activate", f"not yet activated on turn {state.turn}: "
                             f"{', '.join(waiting)}", "activate"))
    found.append(Due("turn", f"when both sides have done: start turn {state.turn + 1}",
                     "turn"))
    return tuple(found)
