"""What the platoon's rules expect next (a front end words it; see ``rallypoint.core.due``).

Pending decisions (a man to place, a commander's seat, a park tank) come first and are listed by
``pending``; past them the day says what is due: today's action is fought (a battle's report, or
the STAND-IN battle), a day out of action passes as rest, and once the year's calendar is played
out the year ends (14.9). The rules let a player rest on past the calendar; saying so here is what
keeps a player from playing days 31-40 without knowing the year is over.
"""

from __future__ import annotations

from rallypoint.core.due import Due
from rallypoint.rulesets.platoon.model import PlatoonState


def year_played_out(state: PlatoonState) -> bool:
    """14.9: the year's calendar holds no action from today on (and the year did not just
    begin), so the year may end now."""
    ahead = [d for d in state.action_days if d >= max(state.day, state.year_start)]
    return not ahead and not (state.year > 1 and state.day == state.year_start)


def due(state: PlatoonState) -> tuple[Due, ...]:
    """What is due today, once the pending decisions are answered."""
    if state.action_today and not state.withdrawn():
        return (Due("report", f"day {state.day} holds an action: report its battle",
                    "report"),)
    if year_played_out(state):
        last = max((d for d in state.action_days if d >= state.year_start), default=None)
        after = f" (its last action was day {last})" if last is not None else ""
        return (Due("year_end", f"year {state.year}'s calendar is played out{after}: the "
                    "year ends (14.9)", "year_end"),)
    ahead = [d for d in state.action_days if d > state.day]
    why = "the platoon is withdrawn to refit" if state.withdrawn() else "no action today"
    nxt = f"; the next action is on day {ahead[0]}" if ahead else ""
    return (Due("rest", f"day {state.day}: {why}, the day passes as rest{nxt}", "rest"),)
