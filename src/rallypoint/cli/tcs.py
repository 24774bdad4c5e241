"""``rallypoint tcs …``: the TCS R&R verbs, and how a TCS campaign is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from rallypoint.cli.session import (
    CampaignOpt,
    DiceOpt,
    JsonOpt,
    console,
    current,
    execute,
    guarded,
    int_pairs,
    pairs,
    print_json,
)

if TYPE_CHECKING:
    from rallypoint.core.ruleset import Command
    from rallypoint.session import Campaign

app = typer.Typer(help="TCS R&R: losses, Recovery Op Sheets, implementation, distribution, FOs.",
                  no_args_is_help=True)

Within2Opt = Annotated[bool, typer.Option(
    "--within-2", help="Across a map-section seam: attest the counter is within 2 hexes of its "
                       "center.")]
AttestOpt = Annotated[int | None, typer.Option(
    help="Across a map-section seam: the hexes to the center as you count them.", min=0)]


def _attested(within_2: bool, attest_distance: int | None) -> int | None:
    from rallypoint.core.errors import MalformedInputError

    if within_2 and attest_distance is not None:
        with guarded():
            raise MalformedInputError("give --within-2 or --attest-distance, not both",
                                      fix="--within-2 is --attest-distance 2.")
    return 2 if within_2 else attest_distance



def _run(campaign: str | None, build: Any, dice: str | None = None, as_json: bool = False) -> None:
    execute(campaign, build, dice, as_json)


@app.command()
def loss(
    counter: Annotated[str, typer.Argument(help="Counter id.")],
    steps: Annotated[int | None, typer.Option(help="Steps lost (default: all that are left).")]
    = None,
    cause: Annotated[str, typer.Option(
        help="combat, surrender, doubles (a doubles fire roll), or a scenario exception cause.")]
    = "combat",
    campaign: CampaignOpt = None,
) -> None:
    """Record step losses; at zero steps the counter goes to the Dead or Very Dead Pile."""
    from rallypoint.rulesets.tcs.commands import RecordLoss

    _run(campaign, lambda c: RecordLoss(expected_version=c.version, counter=counter, steps=steps,
                                        cause=cause))


@app.command()
def move(
    counter: Annotated[str, typer.Argument(help="Counter id.")],
    hex_: Annotated[str, typer.Argument(metavar="HEX", help="New hex, e.g. 23.16.")],
    leave_center: Annotated[bool, typer.Option(
        help="Allow the move to take the company off its recovery center.")] = False,
    very_dead: Annotated[list[str] | None, typer.Option(
        help="Dead Pile counters sent Very Dead on leaving the center (default: policy).")] = None,
    within_2: Within2Opt = False,
    attest_distance: AttestOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """Record a counter's move (refused if it would leave its recovery center unasked)."""
    from rallypoint.rulesets.tcs.commands import MoveCounter

    attested = _attested(within_2, attest_distance)
    _run(campaign, lambda c: MoveCounter(
        expected_version=c.version, counter=counter, hex=hex_, leave_center=leave_center,
        very_dead=tuple(very_dead) if very_dead else None, attest_distance=attested))


@app.command("leave-center")
def leave_center(
    company: Annotated[str, typer.Argument(help="Company id.")],
    cause: Annotated[str, typer.Option(help="Why (for the log).")] = "forced off its center",
    very_dead: Annotated[list[str] | None, typer.Option(
        help="Dead Pile counters sent Very Dead (default: policy).")] = None,
    campaign: CampaignOpt = None,
) -> None:
    """A recovering company is forced or moved off its center: half its Dead Pile goes Very Dead."""
    from rallypoint.rulesets.tcs.commands import LeaveCenter

    _run(campaign, lambda c: LeaveCenter(
        expected_version=c.version, company=company, cause=cause,
        very_dead=tuple(very_dead) if very_dead else None))


@app.command()
def sheet(
    sheet_id: Annotated[str, typer.Argument(metavar="SHEET", help="A name for the sheet.")],
    member: Annotated[list[str], typer.Option(help="Formation or company id (repeatable).")],
    center: Annotated[list[str], typer.Option(
        help="ID=HEX: center for a member or one of its companies (repeatable).")],
    size: Annotated[int, typer.Option(help="Op Sheet size, from your game's rules.")],
    other_sheet: Annotated[list[str] | None, typer.Option(
        help="Member also on another (defensive) Op Sheet (repeatable).")] = None,
    vehicle: Annotated[bool, typer.Option(help="A vehicle Op Sheet (TCS 4.0 x3 rule).")] = False,
    attest: Annotated[bool, typer.Option(
        help="Attest every center is out of enemy direct fire, in protective terrain with a "
             "track/road.")] = False,
    within_2: Within2Opt = False,
    attest_distance: AttestOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """Write up a Recovery Op Sheet."""
    from rallypoint.rulesets.tcs.commands import WriteSheet
    from rallypoint.rulesets.tcs.rules import CENTER_CONDITIONS

    with guarded():
        centers = pairs(center, "--center")
    if not attest and typer.get_text_stream("stdin").isatty():
        attest = typer.confirm(f"Is each center {CENTER_CONDITIONS}?")
    _run(campaign, lambda c: WriteSheet(
        expected_version=c.version, sheet=sheet_id, members=tuple(member), centers=centers,
        size=size, other_sheet=tuple(other_sheet or ()), vehicle=vehicle, attest=attest,
        attest_distance=_attested(within_2, attest_distance)))


@app.command()
def turn(
    fired: Annotated[list[str] | None, typer.Option(
        help="Sheet whose units fired or were fired upon this turn (repeatable).")] = None,
    count: Annotated[int, typer.Option(help="Advance this many quiet turns.", min=1,
                                         max=1000)] = 1,
    campaign: CampaignOpt = None,
) -> None:
    """Advance to the next turn; pending sheets accrue weighted turns."""
    from rallypoint.rulesets.tcs.commands import AdvanceTurn

    for n in range(count):
        shots = tuple(fired or ()) if n == 0 else ()
        _run(campaign, lambda c, s=shots: AdvanceTurn(expected_version=c.version, fired=s))


@app.command()
def check(
    sheet_id: Annotated[str, typer.Argument(metavar="SHEET", help="The sheet to check.")],
    column: Annotated[list[str] | None, typer.Option(
        help="COMPANY=hwy|to for a company with both Hwy and TO equipment.")] = None,
    dice: DiceOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """Roll for a sheet's implementation; on success each company rolls for recovery."""
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.core.inputs import shorten
    from rallypoint.rulesets.tcs.commands import CheckImplementation
    from rallypoint.rulesets.tcs.data import Column

    columns: dict[str, Column] = {}
    with guarded():
        for company, value in pairs(column, "--column").items():
            if value.lower() not in {"hwy", "to"}:  # refused, never silently dropped
                raise MalformedInputError(
                    f"--column {shorten(company, 40)}={shorten(value, 20)!r}: the column is "
                    "hwy or to", fix="Write it like --column 2/ErP112=hwy.")
            columns[company] = Column(value.lower())
    _run(campaign, lambda c: CheckImplementation(
        expected_version=c.version, sheet=sheet_id, columns=columns), dice)


@app.command()
def choices(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """List pending distributions and their legal choices."""
    from rich.markup import escape

    c = current(campaign)
    decisions = c.ruleset.pending(c.state)
    if as_json:
        print_json([d.model_dump() for d in decisions])
        return
    if not decisions:
        console.print("no decisions pending")
    for d in decisions:
        o = d.options
        heal = ", ".join(f"{k} up to +{v}" for k, v in o["heal"].items()) or "none"
        back = ", ".join(f"{k} (full {v})" for k, v in o["resurrect"].items()) or "none"
        lines = [
            f"{d.subject}: {o['steps']} step(s) to distribute",
            f"  heal: {heal}",
            f"  resurrect: {back}",
            f"  Dead Pile {', '.join(o['dead_pile']) or 'empty'}: at most "
            f"{o['max_resurrections']} may come back, each sending another Very Dead"
            + (" (a lone counter takes every step)" if o["single_dead_counter"] else ""),
        ]
        for line in lines:
            console.print(escape(line), highlight=False)
    policies = ", ".join(f"{p.name} ({p.summary})" for p in c.ruleset.policies())
    if decisions:
        console.print(escape(f"policies: {policies}"), highlight=False)


@app.command()
def resolve(
    company: Annotated[str | None, typer.Argument(help="Company (default: the next pending).")]
    = None,
    policy: Annotated[str | None, typer.Option(help="Let a named policy decide.")] = None,
    heal: Annotated[list[str] | None, typer.Option(help="COUNTER=STEPS to heal.")] = None,
    resurrect: Annotated[list[str] | None, typer.Option(help="COUNTER=STEPS to bring back.")]
    = None,
    very_dead: Annotated[list[str] | None, typer.Option(help="COUNTER sent Very Dead.")] = None,
    place: Annotated[list[str] | None, typer.Option(help="COUNTER=HEX for a resurrection.")]
    = None,
    transfer: Annotated[list[str] | None, typer.Option(
        help="FROM:TO:STEPS redistribution in one hex (optional rule).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Resolve every pending one (with --policy).")]
    = False,
    dice: DiceOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """Distribute a company's recovered steps: explicitly, by --policy, or at a prompt."""
    explicit = any([heal, resurrect, very_dead, place, transfer])
    rounds = 1
    if all_:
        c = current(campaign)
        rounds = len(c.ruleset.pending(c.state))
    for _ in range(rounds):
        def build(c: Campaign) -> Command:
            return _distribution(c, company, policy, explicit, heal, resurrect, very_dead,
                                 place, transfer)
        _run(campaign, build, dice)


def _distribution(c: Campaign, company: str | None, policy: str | None, explicit: bool,
                  heal: list[str] | None, resurrect: list[str] | None,
                  very_dead: list[str] | None, place: list[str] | None,
                  transfer: list[str] | None) -> Command:
    from rallypoint.core.errors import IllegalNowError, MalformedInputError
    from rallypoint.rulesets.tcs.commands import Distribute, Transfer
    from rallypoint.session import policy_named

    decisions = c.ruleset.pending(c.state)
    pick = [d for d in decisions if company is None or d.subject == company]
    if not pick:
        raise IllegalNowError(f"no distribution pending{' for ' + company if company else ''}",
                              fix="Run `rallypoint tcs choices` to see what is pending.")
    decision = pick[0]
    if policy is not None or not explicit:
        if policy is None:
            if not typer.get_text_stream("stdin").isatty():
                raise MalformedInputError(
                    f"how should {decision.subject} distribute {decision.options['steps']} "
                    "step(s)?", fix="Give --policy rebuild, or --heal/--resurrect/--very-dead.")
            console.print(decision.prompt, highlight=False)
            policy = typer.prompt("policy", default=policy_named(c.ruleset, None).name)
        return policy_named(c.ruleset, policy).decide(c.state, decision, c.version)
    transfers = []
    for item in transfer or []:
        parts = item.split(":")
        if len(parts) != 3 or not parts[2].isdigit():
            raise MalformedInputError(f"--transfer {item!r} is not FROM:TO:STEPS",
                                      fix="Write it like --transfer A-1:A-2:1.")
        transfers.append(Transfer(source=parts[0], target=parts[1], steps=int(parts[2])))
    return Distribute(
        expected_version=c.version, company=decision.subject,
        heal=int_pairs(heal, "--heal"), resurrect=int_pairs(resurrect, "--resurrect"),
        very_dead=tuple(very_dead or ()), place=pairs(place, "--place"),
        redistribute=tuple(transfers))


@app.command()
def morale(
    formation: Annotated[str, typer.Argument(help="Battalion id.")],
    value: Annotated[int, typer.Argument(help="New battalion morale (0 = normal).")],
    reason: Annotated[str, typer.Option(help="Why (core game's hourly roll, fire losses…).")]
    = "",
    campaign: CampaignOpt = None,
) -> None:
    """Record a battalion morale change made by the core game."""
    from rallypoint.rulesets.tcs.commands import SetMorale

    _run(campaign, lambda c: SetMorale(expected_version=c.version, formation=formation,
                                       value=value, reason=reason))


@app.command()
def fo(
    place: Annotated[list[str] | None, typer.Option(help="FO=HEX where a returning FO goes.")]
    = None,
    dice: DiceOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """At a whole hour, roll two dice for each dead Soviet FO."""
    from rallypoint.rulesets.tcs.commands import RollFos

    with guarded():
        where = pairs(place, "--place")
    _run(campaign, lambda c: RollFos(expected_version=c.version, place=where), dice)


def render(c: Campaign) -> None:
    """Rich tables for ``rallypoint show``: companies and piles, sheets, morale, pending."""
    from rich.markup import escape
    from rich.table import Table

    data: dict[str, Any] = c.ruleset.state_json(c.state)
    console.print(f"[bold]{c.name}[/] — {data['title']} · turn {data['turn']} "
                  f"({data['clock'][11:16]}{', night' if data['night'] else ''}) · "
                  f"version {c.version}", highlight=False)
    table = Table("company", "on map (steps/full @hex)", "dead", "very dead", "fo")
    for cid, comp in data["companies"].items():
        living = [f"{i} {v['steps']}/{v['full']}" + (f"@{v['hex']}" if v["hex"] else "")
                  for i, v in comp["counters"].items() if v["pile"] == "map"]
        piles = comp["piles"]
        table.add_row(escape(cid), escape("\n".join(living)) or "—", str(piles["dead"]),
                      str(piles["very_dead"]), str(piles["fo"]) if piles["fo"] else "")
    console.print(table)
    if data["morale"]:
        console.print("battalion morale (0 = normal): " + ", ".join(
            f"{k} {v}" for k, v in data["morale"].items()), highlight=False)
    for sid, s in data["sheets"].items():
        console.print(f"sheet [bold]{sid}[/]: {s['status']}, {s['weighted_turns']} weighted turns,"
                      f" row {s['row']}; centers " + ", ".join(
                          f"{k}@{v}" for k, v in s["centers"].items() if k in s["companies"]),
                      highlight=False)
    for d in c.ruleset.pending(c.state):
        console.print(f"[yellow]pending[/]: {escape(d.prompt)}", highlight=False)
