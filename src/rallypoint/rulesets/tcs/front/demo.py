"""The TCS scene of ``rallypoint demo``: Example #1, a rally of the ErP 112th near Tolvajärvi.

Runs in the demo's throwaway database; the dice are the ones printed in the example (recovery
5, 1, 4 → modified 8, 4, 7; battalion morale 3). The text does not give the implementation roll,
so the demo rolls 5,5 (= 55, exactly what row 3, column 3 needs).
"""

from __future__ import annotations

from rich.rule import Rule

from rallypoint.cli.kit import console, execute, session
from rallypoint.core.parts import Demo
from rallypoint.core.registry import get_ruleset
from rallypoint.core.ruleset import Command
from rallypoint.rulesets.tcs.commands import (
    AdvanceTurn,
    CheckImplementation,
    SetMorale,
    WriteSheet,
)
from rallypoint.session import Campaign, policy_named


def play_example_one() -> None:
    """Play Example #1 and print every step, the battalion before and after."""
    from rallypoint.rulesets.tcs.front.cli import render

    scenario = next(p for p in get_ruleset("tcs").example_scenarios()
                    if p.name.startswith("example1"))
    console.print(Rule("TCS R&R, Example #1: the ErP 112th rests near Tolvajärvi"))
    session().create(scenario, name="tolvajarvi", seed="demo", campaign_id="demo")
    console.print("[bold]Before[/]: strolling up the Tjokki Road")
    render(session().load("demo"))

    console.print(Rule("Written up for recovery; each company has its own center"))
    execute("demo", lambda c: WriteSheet(
        expected_version=c.version, sheet="rest", members=("ErP112",),
        centers={"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21",
                 "MG/ErP112": "8.21"}, size=1, attest=True), None)
    for _ in range(6):
        execute("demo", lambda c: AdvanceTurn(expected_version=c.version), None)
    execute("demo", lambda c: SetMorale(
        expected_version=c.version, formation="ErP112", value=2,
        reason="(dropped to 2 while resting: the core game's hourly rolls)"), None)

    console.print(Rule("The sheet implements; each company rolls (dice 5, 1, 4)"))
    console.print("[dim]The example gives no implementation roll: the demo rolls 5,5.[/]")
    execute("demo", lambda c: CheckImplementation(expected_version=c.version, sheet="rest"),
            "5,5,5,1,4")

    console.print(Rule("Distributing the steps (policy 'rebuild'); battalion morale die 3"))
    for dice in (None, None, "3"):
        execute("demo", _policy, dice)

    console.print(Rule("After"))
    render(session().load("demo"))
    console.print("\nEvery number above is the seed's: 1/ErP brings one platoon back at "
                  "3 steps (one more goes Very Dead), 2/ErP its lone dead platoon at 4, "
                  "3/ErP two at 2 (two Very Dead), and the battalion is back to normal.")
    console.print(f"Next: [bold]uv run rallypoint new {scenario.stem}[/] to play it "
                  "yourself (`rallypoint scenarios` lists the others).", highlight=False)


def _policy(c: Campaign) -> Command:
    decision = c.ruleset.pending(c.state)[0]
    return policy_named(c.ruleset, None).decide(c.state, decision, c.version)


DEMO = Demo(order=10, play=play_example_one)
"""The TCS scene comes first (the plugin's ``demo`` part)."""
