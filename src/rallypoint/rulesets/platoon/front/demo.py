"""The platoon scene of ``rallypoint demo``: a short week of a Sherman platoon in Italy.

Runs in the demo's throwaway database: a generated platoon, three action days running with the
STAND-IN battle (a stand-in, not a rule of the seed), the lieutenant's decisions by the default
policy, then rest days — showing fatigue piling up, the third day starting shaken, and a day out
of action giving most of it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.rule import Rule

from rallypoint.cli.kit import console, execute, session
from rallypoint.core.parts import Demo
from rallypoint.core.registry import get_ruleset
from rallypoint.dice import SeededRoller
from rallypoint.rulesets.platoon.commands import RestDay, StandInBattle
from rallypoint.rulesets.platoon.front.campaign import platoon_state
from rallypoint.session import policy_named

if TYPE_CHECKING:
    from rallypoint.core.ruleset import Command
    from rallypoint.session import Campaign


def play_platoon_week() -> None:
    """Create a platoon and play seven days; print each day and the roster at the end."""
    ruleset = get_ruleset("platoon")
    scenario = ruleset.example_scenarios()[0]
    console.print(Rule("Platoon, between battles: a week in Italy (stand-in battles)"))
    session().create(scenario, name="italy", seed="demo", campaign_id="demo-platoon")
    for _ in range(7):
        c = session().load("demo-platoon")
        stress, state = _start_stress(c), platoon_state(c)
        kind = ("withdrawn to refit" if state.withdrawn() else
                "action" if state.action_today else "out of action")
        console.print(f"[bold]day {state.day}[/] ({kind}): battle-start stress, mean "
                      f"{stress:.0f}; shaken at {state.rules.n('fatigue', 'shaken_stress')}",
                      highlight=False)
        while True:
            c = execute("demo-platoon", _next, None,
                        roller=SeededRoller("demo-week", f"v{c.version}"))
            if c.events[-1].type not in ("place", "commander", "wait", "tank"):
                break
    from rallypoint.rulesets.platoon.front.cli import render

    render(session().load("demo-platoon"))


def _start_stress(c: Campaign) -> float:
    state = platoon_state(c)
    men = [state.men[m] for crew in state.crews.values() for m in crew.seats.values() if m]
    return sum(m.fatigue for m in men) / len(men) if men else 0.0


def _next(c: Campaign) -> Command:
    pending = c.ruleset.pending(c.state)
    if pending:
        return policy_named(c.ruleset, None).decide(c.state, pending[0], c.version)
    state = platoon_state(c)
    if state.action_today and not state.withdrawn():
        return StandInBattle(expected_version=c.version, intensity=1)
    return RestDay(expected_version=c.version)


DEMO = Demo(order=30, play=play_platoon_week)
"""The platoon's week comes last (the plugin's ``demo`` part)."""
