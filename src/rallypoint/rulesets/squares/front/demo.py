"""The squares scene of ``rallypoint demo``: a short rally scene at the farm below the ridge.

Runs inside the demo's throwaway database. The dice are scripted so the scene always plays the same:
the 79th recovers by itself (and may not move), the 28th cannot (it was fired upon), Kempt rallies
it with a 5, and the odds for the shaken 32nd show why Wellington leaves it alone.
"""

from __future__ import annotations

from rich.markup import escape
from rich.rule import Rule

from rallypoint.cli.kit import console, execute, session
from rallypoint.core.parts import Demo


def play_ridge_scene() -> None:
    """Play the squares scene in the database the demo has open (``SETTINGS.db``)."""
    from rallypoint.core.errors import IllegalNowError
    from rallypoint.core.registry import get_ruleset
    from rallypoint.dice import ScriptedRoller
    from rallypoint.rulesets.squares.commands import Activate, MarkFire, Move, Rally
    from rallypoint.rulesets.squares.data import RallyKind
    from rallypoint.rulesets.squares.front import cli as squares_cli
    from rallypoint.rulesets.squares.front.campaign import squares_state
    from rallypoint.rulesets.squares.rally import plan_rally

    ruleset = get_ruleset("squares")
    scenario = ruleset.example_scenarios()[0]
    name = "ridge"
    console.print(Rule("Squares: disorder recovery and leader rally at the farm below the ridge"))
    session().create(scenario, name=name, seed="demo", campaign_id="demo-squares")
    squares_cli.render_board(squares_state(session().load(name)))

    console.print(Rule("The 79th activates: disordered, no enemy adjacent, not fired upon, 5 SP"))
    execute(name, lambda c: Activate(expected_version=c.version, who="79th"), None)
    c = session().load(name)
    try:
        c.decide(Move(expected_version=c.version, who="79th", square="D3"), ScriptedRoller(()))
    except IllegalNowError as refused:
        console.print(f"[red]refused[/]: {escape(refused.message)}", highlight=False)

    console.print(Rule("Skirmishers fire on the 28th in the farm: it cannot recover by itself"))
    execute(name, lambda c: MarkFire(expected_version=c.version, unit="28th"), None)
    execute(name, lambda c: Activate(expected_version=c.version, who="28th"), None)

    console.print(Rule("Kempt rides into the farm to rally the 28th (die: 5)"))
    state = squares_state(session().load(name))
    squares_cli.print_plan(state, plan_rally(state, "kempt", "28th", RallyKind.DISORDER))
    execute(name, lambda c: Rally(expected_version=c.version, leader="kempt", unit="28th",
                                  rally=RallyKind.DISORDER), "5")

    console.print(Rule("The shaken 32nd: should Wellington try to rally its SP?"))
    state = squares_state(session().load(name))
    squares_cli.print_plan(state, plan_rally(state, "wellington", "32nd", RallyKind.SP))
    console.print("No chance to pass and one in three to break: Wellington leaves the 32nd be, "
                  "as the seed warns about keeping brittle formations in the fight.")


DEMO = Demo(order=20, play=play_ridge_scene)
"""The squares scene comes second (the plugin's ``demo`` part)."""
