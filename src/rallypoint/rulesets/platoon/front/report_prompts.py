"""``platoon report`` at the prompts: a battle report asked for step by step.

Only what the report needs is asked: a tank that was not hit has no bail-out or ordnance
question, and its men are asked about only if the player says someone in it was hurt. Every
answer takes the start of a word in any case (``k`` for knocked_out, ``n`` or ``no`` for
unhurt or unhit). Before anything is written the whole report is shown, the answers can be saved
as a report file (``platoon report FILE`` takes it back), and the player confirms.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from rallypoint.cli.kit import console

if TYPE_CHECKING:
    from rallypoint.rulesets.platoon.battle import BattleReport
    from rallypoint.rulesets.platoon.model import PlatoonState
    from rallypoint.session import Campaign

TANK_RESULTS = ("unhit", "hit", "knocked_out", "written_off")
MAN_RESULTS = ("unhurt", "light", "serious", "killed")
NO_WORDS = ("n", "no", "none")
"""Answers that mean the first, nothing-happened choice (unhit, unhurt)."""


def choose(answer: str, choices: tuple[str, ...]) -> str | None:
    """The choice ``answer`` names: the whole word or its start (any case, ``_`` or space), or
    no/none for the first choice; ``None`` if it names none or several."""
    word = "_".join(answer.strip().casefold().split())
    if word in NO_WORDS:
        return choices[0]
    found = [c for c in choices if c.startswith(word)] if word else []
    return found[0] if len(found) == 1 else None


def ask(text: str, choices: tuple[str, ...], default: str | None = None) -> str:
    """Prompt until the answer names one of ``choices`` (Enter takes ``default``, else the
    first)."""
    while True:
        answer = str(typer.prompt(text, default=default or choices[0]))
        chosen = choose(answer, choices)
        if chosen is not None:
            return chosen
        console.print(f"one of: {', '.join(choices)} (or the start of one)", highlight=False)


def yes(text: str, default: bool = False) -> bool:
    """A yes/no question (y, yes, n, no in any case; Enter takes ``default``)."""
    return bool(typer.confirm(text, default=default))


def _tank(state: PlatoonState, crew_id: str) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """One fighting tank's entry and its men's, asking only what its result needs."""
    crew = state.crews[crew_id]
    name = state.tanks[crew.tank].name if crew.tank else crew_id
    result = ask(f"crew {crew_id} ({name}): {'/'.join(TANK_RESULTS)}", TANK_RESULTS)
    entry: dict[str, Any] = {"crew": crew_id, "result": result}
    if result == "knocked_out":
        entry["ordnance_days"] = typer.prompt("  days at ordnance", type=int, default=3)
    if result != "unhit":
        entry["bailed_out"] = yes("  crew bailed out?", default=result != "hit")
    entry["cohesion"] = typer.prompt("  cohesion at the end", type=int, default=crew.cohesion)
    aboard = [m for m in crew.seats.values() if m]
    if result == "unhit" and not yes("  anyone in it hurt?", default=False):
        return entry, []
    men = []
    for man_id in aboard:
        hurt = ask(f"  {state.men[man_id].name} ({man_id}): {'/'.join(MAN_RESULTS)}",
                   MAN_RESULTS)
        if hurt != "unhurt":
            men.append({"man": man_id, "result": hurt})
    return entry, men


def ask_report(c: Campaign) -> dict[str, Any]:
    """Ask for today's report tank by tank (Enter keeps each default)."""
    from rallypoint.core.errors import IllegalNowError
    from rallypoint.rulesets.platoon.battle import REPORT_SCHEMA
    from rallypoint.rulesets.platoon.front.campaign import platoon_state

    state = platoon_state(c)
    if not state.action_today or state.withdrawn():
        raise IllegalNowError(f"day {state.day} has no action for the platoon to report",
                              fix="Use `rallypoint platoon rest`.")
    tanks, men = [], []
    for crew_id in state.fit_crews():
        entry, hurt = _tank(state, crew_id)
        tanks.append(entry)
        men += hurt
    return {"schema": REPORT_SCHEMA, "day": state.day, "tanks": tanks, "men": men,
            "objective": yes("objective taken or held?"),
            "enemy_withdrawn": yes("enemy withdrawn?")}


def summary_lines(state: PlatoonState, report: BattleReport) -> list[str]:
    """The report in words, tank by tank, for the player to check before it is written (read
    from the typed report the rules validated, not from the answers' JSON)."""
    lines = [f"battle report for day {report.day}:"]
    hurt = {m.man: m.result.value for m in report.men}
    for t in report.tanks:
        crew = state.crews[t.crew]
        name = state.tanks[crew.tank].name if crew.tank else t.crew
        words = [t.result.value.replace("_", " ")]
        if t.ordnance_days is not None:
            words.append(f"{t.ordnance_days} days at ordnance")
        if t.bailed_out:
            words.append("bailed out")
        words.append(f"cohesion {t.cohesion}")
        lines.append(f"  crew {t.crew} ({name}): {', '.join(words)}")
        for man_id in (m for m in crew.seats.values() if m and m in hurt):
            lines.append(f"    {state.men[man_id].name} ({man_id}): {hurt[man_id]}")
    lines.append(f"  objective taken or held: {'yes' if report.objective else 'no'}; enemy "
                 f"withdrawn: {'yes' if report.enemy_withdrawn else 'no'}")
    return lines


def typed_report(c: Campaign, data: dict[str, Any]) -> BattleReport:
    """The answers as the rules' typed report, parsed as the command will be (a bad answer is
    the same one-line refusal, before anything is shown or saved)."""
    from rallypoint.rulesets.platoon.commands import IngestReport

    command = c.ruleset.parse_command({"kind": "report", "report": data,
                                       "expected_version": c.version})
    assert isinstance(command, IngestReport)  # the "report" kind is this command
    return command.report


def review(c: Campaign, data: dict[str, Any]) -> None:
    """Show the report, offer to save it as a file, and ask before writing it.

    Raises:
        typer.Exit: The player did not confirm (status 1, nothing written).
    """
    from rallypoint.rulesets.platoon.front.campaign import platoon_state
    from rallypoint.session import write_atomically

    for line in summary_lines(platoon_state(c), typed_report(c, data)):
        console.print(escape(line), highlight=False)
    where = str(typer.prompt("save these answers as a report file? (file name, Enter: no)",
                             default="", show_default=False)).strip()
    if where and where.casefold() not in NO_WORDS:
        path = Path(where).expanduser()
        write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                         "the report")
        console.print(f"saved to {escape(str(path))} (`rallypoint platoon report "
                      f"{escape(str(path))}` takes it)", highlight=False, soft_wrap=True)
    if not yes(f"write this report to campaign {c.name!r}?", default=True):
        console.print("nothing written", highlight=False)
        raise typer.Exit(1)
