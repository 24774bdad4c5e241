"""``rallypoint platoon …``: the tank platoon between battles."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rallypoint.cli.kit import (
    CampaignOpt,
    DiceOpt,
    JsonOpt,
    campaign_ref,
    console,
    current,
    guarded,
    print_json,
    session,
)
from rallypoint.rulesets.platoon.front.campaign import platoon_state

if TYPE_CHECKING:
    from collections.abc import Callable

    from rallypoint.core.ruleset import Command
    from rallypoint.session import Campaign

def execute(ref: str | None, build: Callable[[Campaign], Command], dice: str | None) -> Campaign:
    """Record a command (the CLI kit's ``execute``), then say what is due next."""
    from rallypoint.cli.kit import execute as record
    from rallypoint.cli.kit import print_due

    after = record(ref, build, dice)
    print_due(after, first_only=True)
    return after


app = typer.Typer(help="Platoon: a WW2 tank platoon between battles (fatigue, wounds, cohesion, "
                       "morale, replacements, the year).", no_args_is_help=True)



@app.command()
def create(
    name: Annotated[str, typer.Option(help="Campaign name.")] = "platoon",
    seed: Annotated[str | None, typer.Option(
        help="Seed the generated roster is drawn from (default: random, and shown).")] = None,
    dice_seed: Annotated[str | None, typer.Option(
        help="A public dice seed, for reproducible transcripts and tests: anyone with the "
             "campaign's file can predict its dice (default: a secret dice-v1 key).")] = None,
    roster: Annotated[Path | None, typer.Option(
        help="A platoon scenario/roster TOML instead of a generated roster.")] = None,
    days: Annotated[int, typer.Option(help="Campaign length in days (actions on days 1–3 of "
                                           "each week).")] = 30,
    veteran_percent: Annotated[int, typer.Option(
        help="How far toward section 8's veteran column the generated men are drawn.")] = 30,
) -> None:
    """Create a platoon campaign: a generated roster from a seed, or a roster file."""
    import secrets

    from rallypoint.rulesets.platoon import RULESET
    from rallypoint.rulesets.platoon.scenario import PlatoonInfo, PlatoonScenario, expand

    drawn = ""
    with guarded():
        if roster is not None:
            scenario = RULESET.load_scenario(roster)
        else:
            if seed is None:
                seed = secrets.token_hex(4)
                drawn = f", roster seed {seed}"
            info = PlatoonInfo(name=name, seed=seed, days=days, veteran_percent=veteran_percent)
            scenario = expand(PlatoonScenario(platoon=info))
        # The roster seed is public (the roster is); the dice are not, unless asked for.
        created = session().create_from(RULESET.name, scenario, name=name, seed=dice_seed)
    console.print(f"created platoon campaign [bold]{escape(created.name)}[/] (id {created.id[:8]}"
                  f"{drawn})",
                  highlight=False)


def _battle_roster(c: Campaign) -> dict[str, Any]:
    """The roster the battle receives, with the campaign's ruleset's section 9 hooks."""
    from rallypoint.rulesets.platoon.battle import roster
    from rallypoint.rulesets.platoon.front.campaign import platoon_of

    ruleset, state = platoon_of(c)
    return roster(state, ruleset.hooks)


def _bar(value: int, width: int = 5) -> str:
    filled = round(value * width / 100)
    return "█" * filled + "·" * (width - filled) + f" {value:>3}"


@app.command("roster")
def roster_(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """The roster: seat, man, skill, fatigue, steadiness, wound, cohesion; morale.

    With --json, the roster handed to a battle (schema rallypoint.platoon.roster/1).
    """
    c = current(campaign)
    if as_json:
        print_json(_battle_roster(c))
        return
    render(c)


@app.command("roster-export")
def roster_export(
    file: Annotated[Path, typer.Argument(help="JSON file to write the battle roster to.")],
    campaign: CampaignOpt = None,
) -> None:
    """Write the battle roster (schema rallypoint.platoon.roster/1) to a file."""
    import json

    from rich.markup import escape

    from rallypoint.session import write_atomically

    c = current(campaign)
    with guarded():
        write_atomically(file, json.dumps(_battle_roster(c), indent=2, ensure_ascii=False)
                         + "\n", "the roster")
    console.print(f"wrote the day {platoon_state(c).day} roster to {escape(str(file))}",
                  highlight=False)


@app.command()
def report(
    file: Annotated[Path | None, typer.Argument(
        help="Battle report, JSON or TOML (schema rallypoint.platoon.report/1); leave out to be "
             "asked at prompts (only what the report needs; a summary, an offer to save it as a "
             "file, and a confirmation before anything is written).")] = None,
    dice: DiceOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """Take a battle's report back; the day ends and the next morning begins."""
    from rallypoint.rulesets.platoon.front.report_prompts import ask_report, review

    with guarded():
        if file is not None:
            data = _read_report(file)
        else:
            c = session().load(campaign_ref(campaign))
            data = ask_report(c)
            review(c, data)
    execute(campaign, lambda c: c.ruleset.parse_command(
        {"kind": "report", "report": data, "expected_version": c.version}), dice)


def _read_report(path: Path) -> dict[str, Any]:
    """A battle report file, TOML or JSON, through the same limits as every untrusted file
    (UTF-8, size, nesting, 64-bit numbers), so a bad file is one line, never a traceback."""
    from rallypoint.core.errors import DataFileError
    from rallypoint.core.inputs import loads_json, read_text
    from rallypoint.core.tomlfile import read_toml

    if path.suffix.lower() == ".toml":
        data, _ = read_toml(path)
        return data
    value = loads_json(read_text(path, "battle report"), str(path))
    if not isinstance(value, dict):
        raise DataFileError("a report is a JSON object", where=str(path),
                            fix="See docs/platoon-battle.md for the schema.")
    return value


@app.command()
def battle(
    intensity: Annotated[int, typer.Option(help="Stand-in battle intensity, 0 (quiet) to 6.",
                                           min=0, max=6)] = 1,
    dice: DiceOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """Fight today's action with the STAND-IN battle generator (not a rule of the seed)."""
    from rallypoint.rulesets.platoon.commands import StandInBattle

    execute(campaign, lambda c: StandInBattle(expected_version=c.version, intensity=intensity),
            dice)


@app.command()
def rest(dice: DiceOpt = None, campaign: CampaignOpt = None) -> None:
    """A day out of action (or withdrawn to refit): the day passes as rest."""
    from rallypoint.rulesets.platoon.commands import RestDay

    execute(campaign, lambda c: RestDay(expected_version=c.version), dice)


@app.command()
def decisions(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Pending decisions and their legal choices."""
    from rich.markup import escape

    c = current(campaign)
    pending = c.ruleset.pending(c.state)
    if as_json:
        print_json([d.model_dump() for d in pending])
        return
    if not pending:
        console.print("no decisions pending")
    from rallypoint.rulesets.platoon.views import decision_lines

    for d in pending:
        for line in decision_lines(platoon_state(c), d):
            console.print(escape(line), highlight=False)


@app.command()
def place(
    man: Annotated[str, typer.Argument(help="The man: his name (or the start of it) or id.")],
    crew: Annotated[str, typer.Argument(help="Crew id, or its tank's name (or the start of it).")],
    seat: Annotated[str, typer.Argument(help="commander, gunner, loader, driver, "
                                             "assistant_driver (any case; cmdr, gunr, ldr, drvr, "
                                             "asst).")],
    campaign: CampaignOpt = None,
) -> None:
    """Place an unassigned man in an empty seat (a stranger: the crew loses cohesion)."""
    from rallypoint.rulesets.platoon.people import find_crew, find_man, find_seat

    execute(campaign, lambda c: c.ruleset.parse_command(
        {"kind": "place", "man": find_man(platoon_state(c), man),
         "crew": find_crew(platoon_state(c), crew),
         "seat": find_seat(seat).value, "expected_version": c.version}), None)


@app.command()
def commander(
    crew: Annotated[str, typer.Argument(
        help="Crew whose commander seat is empty: its id or its tank's name.")],
    man: Annotated[str | None, typer.Option(
        help="The man who takes the seat: his name (or the start of it) or id.")] = None,
    wait: Annotated[bool, typer.Option(help="Let the seat wait (for today).")] = False,
    campaign: CampaignOpt = None,
) -> None:
    """Fill a commander seat (14.8): the crew's own man, another crew's non-commander, or wait."""
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.rulesets.platoon.people import find_crew, find_man

    def build(c: Campaign) -> Command:
        if wait == (man is not None):
            raise MalformedInputError("give exactly one of --man or --wait",
                                      fix="e.g. `platoon commander 2 --man Garcia`.")
        which = find_crew(platoon_state(c), crew)
        data: dict[str, Any] = ({"kind": "wait", "crew": which} if wait or man is None else
                                {"kind": "commander", "crew": which,
                                 "man": find_man(platoon_state(c), man)})
        return c.ruleset.parse_command({**data, "expected_version": c.version})
    execute(campaign, build, None)


@app.command()
def tank(
    tank_id: Annotated[str, typer.Argument(
        metavar="TANK", help="The tank in the park: its name (or the start of it) or id.")],
    crew: Annotated[str, typer.Argument(help="Crew without a tank (its id).")],
    campaign: CampaignOpt = None,
) -> None:
    """Give a tank waiting in the park to a crew without one."""
    from rallypoint.rulesets.platoon.people import find_crew, find_tank

    execute(campaign, lambda c: c.ruleset.parse_command(
        {"kind": "tank", "tank": find_tank(platoon_state(c), tank_id),
         "crew": find_crew(platoon_state(c), crew),
         "expected_version": c.version}), None)


@app.command()
def resolve(
    policy: Annotated[str | None, typer.Option(help="Named policy (default: ask, or by_trade "
                                                    "when not interactive).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Resolve every pending decision.")] = False,
    campaign: CampaignOpt = None,
) -> None:
    """Answer pending decisions with a named policy."""
    from rallypoint.core.errors import IllegalNowError
    from rallypoint.session import policy_named

    def build(c: Campaign) -> Command:
        pending = c.ruleset.pending(c.state)
        if not pending:
            raise IllegalNowError("no decisions pending", fix="Nothing to resolve.")
        chosen = policy
        if chosen is None and typer.get_text_stream("stdin").isatty():
            console.print(pending[0].prompt, highlight=False)
            chosen = typer.prompt("policy", default=policy_named(c.ruleset, None).name)
        return policy_named(c.ruleset, chosen).decide(c.state, pending[0], c.version)

    while True:
        after = execute(campaign, build, None)
        if not all_ or not after.ruleset.pending(after.state):
            return


@app.command("year-end")
def year_end(dice: DiceOpt = None, campaign: CampaignOpt = None) -> None:
    """14.9 The year: every step, in order, as one event."""
    from rallypoint.rulesets.platoon.commands import YearEnd

    execute(campaign, lambda c: YearEnd(expected_version=c.version), dice)


DaysOpt = Annotated[int, typer.Option(help="Days to play.", min=1, max=3650)]
PlaySeedOpt = Annotated[str, typer.Option(help="Seed for the stand-in battles and arrivals.")]
IntensityOpt = Annotated[int, typer.Option(help="Stand-in battle intensity.", min=0, max=6)]
PolicyOpt = Annotated[str, typer.Option(help="Policy for every decision.")]


@app.command()
def autoplay(days: DaysOpt = 7, seed: PlaySeedOpt = "sim", intensity: IntensityOpt = 1,
             policy: PolicyOpt = "by_trade", campaign: CampaignOpt = None) -> None:
    """Play your campaign's next days unattended, saying what happened each day: decisions by
    policy, STAND-IN battles on action days, else rest; every event logged (undo works).

    Not the Monte Carlo lab: `rallypoint simulate platoon` plays thousands of throwaway
    campaigns and writes nothing.
    """
    from rallypoint.core.due import due_of
    from rallypoint.dice import SeededRoller
    from rallypoint.rulesets.platoon.commands import RestDay, StandInBattle
    from rallypoint.session import policy_named

    with guarded():
        c = session().load(campaign_ref(campaign))
        chosen = policy_named(c.ruleset, policy)
    policy = chosen.name
    today = platoon_state(c).day
    end = today + days
    first = c.version + 1
    days_of: dict[int, int] = {}   # event seq → the day it was played on
    kinds: dict[int, str] = {}     # day → what kind of day it was, as the morning found it
    span = f"day {today}" if days == 1 else f"days {today}–{end - 1}"
    console.print(f"{escape(c.name)}: playing {span} (decisions by policy {policy}, STAND-IN "
                  f"battles at intensity {intensity})", highlight=False, soft_wrap=True)

    printed = [c.version, 0]    # the last event printed, the day last headed

    def tell(c: Campaign) -> None:
        # Each event as it is stored, under a heading for the day it was played on.
        for seq in range(printed[0] + 1, c.version + 1):
            if days_of[seq] != printed[1]:
                printed[1] = days_of[seq]
                console.print(f"[bold]day {days_of[seq]}[/] ({kinds[days_of[seq]]})",
                              highlight=False)
            text = c.describe(seq).replace("\n", "\n  ")
            console.print(f"  [dim]#{seq}[/] {escape(text)}", highlight=False)
        printed[0] = c.version

    def step(c: Campaign) -> Command | None:
        tell(c)
        state = platoon_state(c)
        if state.day >= end:
            return None
        days_of[c.version + 1] = day = state.day
        kinds.setdefault(day, "withdrawn to refit" if state.withdrawn() else
                         "action" if state.action_today else "out of action")
        pending = c.ruleset.pending(c.state)
        if pending:
            return chosen.decide(c.state, pending[0], c.version)
        if any(d.command == "year_end" for d in due_of(c.ruleset, c.state)):
            return None  # 14.9 is the player's to call: the year's calendar is played out
        if state.action_today and not state.withdrawn():
            return StandInBattle(expected_version=c.version, intensity=intensity)
        return RestDay(expected_version=c.version)

    with guarded():
        # The stream names the version, not the campaign's random id: the same --seed on the
        # same platoon plays the same days. The campaign stays in memory: linear in the days.
        c = session().play(c.campaign_id, step,
                           roller=lambda c: SeededRoller(seed, f"simulate/v{c.version}"))
    tell(c)
    played = c.version - first + 1
    console.print(f"{escape(c.name)}: {played} event{'s' if played != 1 else ''} written "
                  f"(#{first}–#{c.version}); `rallypoint undo` takes back the last one",
                  highlight=False, soft_wrap=True)
    render(c)


@app.command("simulate", hidden=True)
def simulate(days: DaysOpt = 7, seed: PlaySeedOpt = "sim", intensity: IntensityOpt = 1,
             policy: PolicyOpt = "by_trade", campaign: CampaignOpt = None) -> None:
    """Deprecated name of `platoon autoplay` (`rallypoint simulate platoon` is the lab)."""
    from rallypoint.cli.kit import err_console

    err_console.print("note: `platoon simulate` is now `platoon autoplay` (it plays this "
                      "campaign); `rallypoint simulate platoon` is the Monte Carlo lab",
                      highlight=False, soft_wrap=True)
    autoplay(days=days, seed=seed, intensity=intensity, policy=policy, campaign=campaign)


SEAT_SHORT = {"commander": "cmdr", "gunner": "gunr", "loader": "ldr", "driver": "drvr",
              "assistant_driver": "asst"}


def render(c: Campaign) -> None:
    """The roster as a Rich table, for ``rallypoint show`` and ``platoon roster``."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    data: dict[str, Any] = c.ruleset.state_json(c.state)
    acts = data["actions"]
    day_kind = ("withdrawn to refit" if data["withdrawn"] else
                "action" if data["action_today"] else "out of action")
    console.print(f"[bold]{escape(data['name'])}[/] · year {data['year']}, day {data['day']} "
                  f"({day_kind}) · actions {acts['fought']}/{acts['total']} · morale "
                  f"{data['morale']} · fit tanks {len(data['fit_tanks'])}", highlight=False)
    # Every field fits 80 columns: short headings (the legend below says them in full), a
    # borderless table, and the crew's tank and cohesion on its first row only.
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False)
    for heading in ("crew", "seat", "man", "skl", "fatigue", "std", "wound", "coh"):
        table.add_column(heading, no_wrap=True,
                         justify="right" if heading in ("skl", "std", "coh") else "left")
    for crew_id, crew in data["crews"].items():
        tank = data["tanks"].get(crew["tank"]) if crew["tank"] else None
        label = f"{crew_id} {tank['name'] if tank else '(no tank)'}"
        for n, (seat, man_id) in enumerate(crew["seats"].items()):
            m = data["men"].get(man_id) if man_id else None
            table.add_row(escape(label) if n == 0 else "", SEAT_SHORT[seat],
                          escape(f"{m['name']} {man_id}" + (" Lt" if m["lieutenant"] else ""))
                          if m else "[dim]empty[/]",
                          str(m["skill"]) if m else "", _bar(m["fatigue"]) if m else "",
                          str(m["steadiness"]) if m else "",
                          (f"light d{m['fit_day']}" if m and m["wound"] == "light" else ""),
                          str(crew["cohesion"]) if n == 0 else "")
    console.print(table)
    console.print("skl skill · std steadiness · coh crew cohesion · light dN: lightly wounded, "
                  "fit on day N", highlight=False)
    if data["unassigned"]:
        console.print("unassigned: " + ", ".join(
            f"{data['men'][m]['name']} ({m}, {data['men'][m]['trade']})"
            for m in data["unassigned"]), highlight=False)
    park = [f"{t['name']} ({i})" for i, t in data["tanks"].items() if t["status"] == "park"]
    ordnance = [f"{t['name']} (day {t['return_day']})" for t in data["tanks"].values()
                if t["status"] == "ordnance"]
    if park:
        console.print("park: " + ", ".join(park), highlight=False)
    if ordnance:
        console.print("at ordnance: " + ", ".join(ordnance), highlight=False)
    if data["requests"]:
        console.print("requests: " + ", ".join(
            f"{r['trade'] or 'tank'} day {r['arrival_day']}" for r in data["requests"]),
            highlight=False)
    for d in c.ruleset.pending(c.state):
        console.print(f"[yellow]pending[/]: {escape(d.prompt)}", highlight=False)
    from rallypoint.cli.kit import print_due

    print_due(c)
