"""``rallypoint demo``: Example #1, a rally scene and a platoon week, through the CLI path.

A throwaway database in a temporary folder; the dice are the ones printed in the example
(recovery 5, 1, 4 → modified 8, 4, 7; battalion morale 3). The text does not give the
implementation roll, so the demo rolls 5,5 (= 55, exactly what row 3, column 3 needs).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.rule import Rule

if TYPE_CHECKING:
    from rallypoint.core.ruleset import Command
    from rallypoint.session import Campaign

from rallypoint.cli.demo_platoon import run_platoon_week
from rallypoint.cli.demo_squares import run_squares_scene
from rallypoint.cli.session import SETTINGS, console, execute, guarded, session


def run_demo() -> None:
    """Play Example #1 in a temporary database and print every step."""
    from rallypoint.core.ruleset import get_ruleset
    from rallypoint.rulesets.tcs.commands import AdvanceTurn, SetMorale, WriteSheet
    from rallypoint.rulesets.tcs.front import cli as tcs_cli

    ruleset = get_ruleset("tcs")
    scenario = next(p for p in ruleset.example_scenarios() if p.name.startswith("example1"))
    previous = SETTINGS.db
    with tempfile.TemporaryDirectory(prefix="rallypoint-demo-") as tmp, guarded():
        SETTINGS.db = Path(tmp) / "demo.sqlite3"
        try:
            console.print(Rule("TCS R&R, Example #1: the ErP 112th rests near Tolvajärvi"))
            session().create(scenario, name="tolvajarvi", seed="demo", campaign_id="demo")
            before = session().load("demo")
            console.print("[bold]Before[/]: strolling up the Tjokki Road")
            tcs_cli.render(before)

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
            from rallypoint.rulesets.tcs.commands import CheckImplementation

            execute("demo", lambda c: CheckImplementation(expected_version=c.version,
                                                          sheet="rest"), "5,5,5,1,4")

            console.print(Rule("Distributing the steps (policy 'rebuild'); battalion morale die 3"))
            for dice in (None, None, "3"):
                execute("demo", _policy, dice)

            after = session().load("demo")
            console.print(Rule("After"))
            tcs_cli.render(after)
            console.print("\nEvery number above is the seed's: 1/ErP brings one platoon back at "
                          "3 steps (one more goes Very Dead), 2/ErP its lone dead platoon at 4, "
                          "3/ErP two at 2 (two Very Dead), and the battalion is back to normal.")
            console.print(f"Next: [bold]uv run rallypoint new {scenario.stem}[/] to play it "
                          "yourself (`rallypoint scenarios` lists the others).",
                          highlight=False)
            run_squares_scene()
            run_platoon_week()
        finally:
            SETTINGS.db = previous


def _policy(c: Campaign) -> Command:
    from rallypoint.session import policy_named

    decision = c.ruleset.pending(c.state)[0]
    return policy_named(c.ruleset, None).decide(c.state, decision, c.version)
