"""``rallypoint tcs …``: the TCS R&R verbs, and how a TCS campaign is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from rallypoint.cli.kit import (
    AskDiceOpt,
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
from rallypoint.rulesets.tcs.front.campaign import tcs_state

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from rallypoint.core.ruleset import Command
    from rallypoint.rulesets.tcs.outlook import Due
    from rallypoint.rulesets.tcs.state import SheetState, TcsState
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



def _run(campaign: str | None, build: Callable[..., Command], dice: str | None = None,
         as_json: bool = False,
         ask_dice: bool = False) -> Campaign:
    return execute(campaign, build, dice, as_json, ask_dice=ask_dice)


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
    count: Annotated[int, typer.Option(
        help="Advance up to this many quiet turns; stops early where a sheet may be checked or "
             "the dead FOs' hourly roll is due.", min=1, max=1000)] = 1,
    fo_dice: Annotated[bool, typer.Option(
        "--fo-dice", help="Roll the dead FOs' hourly dice on the way instead of stopping.")]
    = False,
    skip_fo: Annotated[bool, typer.Option(
        "--skip-fo", help="Let due FO rolls pass unmade (the log says so).")] = False,
    no_stop: Annotated[bool, typer.Option(
        "--no-stop", help="With --count, go on past turns where a sheet may be checked (those "
                          "checks are not made).")] = False,
    ask_dice: AskDiceOpt = False,
    campaign: CampaignOpt = None,
) -> None:
    """Advance to the next turn; pending sheets accrue weighted turns."""
    from rallypoint.rulesets.tcs.commands import AdvanceTurn
    from rallypoint.rulesets.tcs.outlook import DueKind, due_now

    def fo_due(c: Campaign) -> bool:
        return any(d.kind is DueKind.FO for d in due_now(tcs_state(c)))

    c = current(campaign)
    for n in range(count):
        if fo_dice and fo_due(c):
            c = _roll_fos(campaign, ask_dice)
        shots = tuple(fired or ()) if n == 0 else ()
        c = _run(campaign, lambda c, s=shots: AdvanceTurn(expected_version=c.version, fired=s,
                                                          skip_fo=skip_fo))
        if fo_dice and fo_due(c):
            c = _roll_fos(campaign, ask_dice)
        due = due_now(tcs_state(c))
        stop = [d for d in due if (d.kind is DueKind.CHECK and not no_stop)
                or (d.kind is DueKind.FO and not skip_fo)]
        if stop and n < count - 1:
            console.print(f"stopped after {n + 1} of {count} turns", highlight=False)
        if stop or n == count - 1:
            _print_due(due)
            break


def _roll_fos(campaign: str | None, ask_dice: bool) -> Campaign:
    from rallypoint.rulesets.tcs.commands import RollFos

    return _run(campaign, lambda c: RollFos(expected_version=c.version), ask_dice=ask_dice)


def _print_due(due: Iterable[Due]) -> None:
    from rich.markup import escape

    from rallypoint.cli.kit import command_words
    from rallypoint.rulesets.tcs.outlook import DueKind

    for d in due:
        words = command_words("tcs", d.typed())
        how = f" (`{words}`)" if words else ""
        label = "[red]warning[/]" if d.kind is DueKind.NEVER else "[yellow]due[/]"
        console.print(f"{label}: {escape(d.text + how)}", highlight=False)


@app.command()
def reassign(
    member: Annotated[list[str], typer.Argument(help="Formation or company ids.")],
    other_sheet: Annotated[bool, typer.Option(
        "--other-sheet/--off-other-sheet",
        help="Now also on another (defensive) Op Sheet, or no longer.")],
    reason: Annotated[str, typer.Option(help="Why (for the log).")] = "",
    campaign: CampaignOpt = None,
) -> None:
    """Put recovering formations on another Op Sheet, or take them off it, after writing."""
    from rallypoint.rulesets.tcs.commands import Reassign

    _run(campaign, lambda c: Reassign(expected_version=c.version, members=tuple(member),
                                      other_sheet=other_sheet, reason=reason))


@app.command()
def attacked(
    member: Annotated[list[str], typer.Argument(help="Formation or company ids.")],
    note: Annotated[str, typer.Option(help="What happened (for the log).")] = "",
    campaign: CampaignOpt = None,
) -> None:
    """Recovering formations attacked this turn: treated as No Orders, fired upon."""
    from rallypoint.rulesets.tcs.commands import Attack

    _run(campaign, lambda c: Attack(expected_version=c.version, members=tuple(member),
                                    note=note))


@app.command()
def fired(
    sheet: Annotated[list[str], typer.Argument(help="Your pending sheet ids.")],
    turn: Annotated[int | None, typer.Option(
        help="The turn they fired or were fired upon (default: this turn).")] = None,
    campaign: CampaignOpt = None,
) -> None:
    """Your sheets' units fired or were fired upon: their next accrual is at the fired rate.

    By e-mail the other side's database advances the turn and cannot name your hidden sheets:
    mark them during the turn, or with --turn once the next turn's accrual is made (the latest
    accrual is corrected). `tcs turn --fired` says the same as the turn is advanced.
    """
    from rallypoint.rulesets.tcs.commands import MarkFired

    _run(campaign, lambda c: MarkFired(expected_version=c.version, sheets=tuple(sheet),
                                       turn=turn))


@app.command()
def check(
    sheet_id: Annotated[str, typer.Argument(metavar="SHEET", help="The sheet to check.")],
    column: Annotated[list[str] | None, typer.Option(
        help="COMPANY=hwy|to for a company with both Hwy and TO equipment.")] = None,
    rear_broken: Annotated[list[str] | None, typer.Option(
        help="ID=N: the enemy has broken into the rear of ID (the sheet, or a formation or "
             "company on it): N is added to each of its companies' recovery rolls (lower is "
             "better, so a penalty is positive; repeatable).")] = None,
    dice: DiceOpt = None,
    ask_dice: AskDiceOpt = False,
    campaign: CampaignOpt = None,
) -> None:
    """Roll for a sheet's implementation (a d66 on the Implementation Table); on success each
    company rolls for recovery.

    A further modifier the situation calls for at check time (seed: "if the enemy has broken
    into the formation's idea of 'the rear'") is given with --rear-broken; lasting ones (rear
    services) belong in the scenario's modifiers.
    """
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
        rear = int_pairs(rear_broken, "--rear-broken")
    _run(campaign, lambda c: CheckImplementation(
        expected_version=c.version, sheet=sheet_id, columns=columns, rear_broken=rear), dice,
        ask_dice=ask_dice)


@app.command()
def choices(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """List pending distributions and their legal choices."""
    from rich.markup import escape

    from rallypoint.rulesets.tcs.choices import DistributeChoices

    c = current(campaign)
    decisions = c.ruleset.pending(c.state)
    if as_json:
        print_json([d.model_dump() for d in decisions])
        return
    if not decisions:
        console.print("no decisions pending")
    for d in decisions:
        o = DistributeChoices.model_validate(d.options)
        heal = ", ".join(f"{k} up to +{v}" for k, v in o.heal.items()) or "none"
        back = ", ".join(f"{k} (full {v})" for k, v in o.resurrect.items()) or "none"
        lines = [
            f"{d.subject}: {o.steps} step(s) to distribute",
            f"  heal: {heal}",
            f"  resurrect: {back}",
            f"  Dead Pile {', '.join(o.dead_pile) or 'empty'}: at most "
            f"{o.max_resurrections} may come back, each sending another Very Dead"
            + (" (a lone counter takes every step)" if o.single_dead_counter else ""),
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
    attest_distance: Annotated[int | None, typer.Option(
        help="Across a map-section seam: hexes from a placed counter to its center as you "
             "count them (0 or 1).", min=0, max=1)] = None,
    all_: Annotated[bool, typer.Option("--all", help="Resolve every pending one (with --policy).")]
    = False,
    interactive: Annotated[bool, typer.Option(
        "--interactive", "-i", help="Build it step by step at the prompt, even when piped "
                                    "(the default at a terminal).")] = False,
    dice: DiceOpt = None,
    ask_dice: AskDiceOpt = False,
    campaign: CampaignOpt = None,
) -> None:
    """Distribute a company's recovered steps: explicitly, by --policy, or step by step."""
    explicit = any([heal, resurrect, very_dead, place, transfer, attest_distance is not None])
    rounds = 1
    if all_:
        c = current(campaign)
        rounds = len(c.ruleset.pending(c.state))
    for _ in range(rounds):
        c = current(campaign)
        # Built before the write: a prompt never holds the database, and the command keeps the
        # version it was made against (a campaign changed meanwhile refuses it as stale).
        with guarded():
            command = _distribution(c, company, policy, explicit, interactive, heal, resurrect,
                                    very_dead, place, transfer, attest_distance)
        _run(campaign, lambda _c, m=command: m, dice, ask_dice=ask_dice)


def _distribution(c: Campaign, company: str | None, policy: str | None, explicit: bool,
                  interactive: bool, heal: list[str] | None, resurrect: list[str] | None,
                  very_dead: list[str] | None, place: list[str] | None,
                  transfer: list[str] | None, attest_distance: int | None) -> Command:
    from rallypoint.core.errors import IllegalNowError, MalformedInputError
    from rallypoint.core.suggest import soft_match
    from rallypoint.rulesets.tcs.commands import Distribute, Transfer
    from rallypoint.session import policy_named

    decisions = c.ruleset.pending(c.state)
    if company is not None:
        company = soft_match(company, [d.subject for d in decisions])
    pick = [d for d in decisions if company is None or d.subject == company]
    if not pick:
        raise IllegalNowError(f"no distribution pending{' for ' + company if company else ''}",
                              fix="Run `rallypoint tcs choices` to see what is pending.")
    decision = pick[0]
    if policy is not None:
        return policy_named(c.ruleset, policy).decide(c.state, decision, c.version)
    if not explicit:
        if not (interactive or typer.get_text_stream("stdin").isatty()):
            raise MalformedInputError(
                f"how should {decision.subject} distribute {decision.options['steps']} "
                "step(s)?", fix="Give --policy rebuild, or --heal/--resurrect/--very-dead, "
                                "or --interactive.")
        from rallypoint.rulesets.tcs.front.resolve import interactive as ask

        return ask(c, decision)
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
        redistribute=tuple(transfers), attest_distance=attest_distance)


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
    ask_dice: AskDiceOpt = False,
    campaign: CampaignOpt = None,
) -> None:
    """At a whole hour, roll two dice for each dead Soviet FO."""
    from rallypoint.rulesets.tcs.commands import RollFos

    with guarded():
        where = pairs(place, "--place")
    _run(campaign, lambda c: RollFos(expected_version=c.version, place=where), dice,
         ask_dice=ask_dice)


def _assignment(sheet: SheetState) -> str:
    """Seed: 'The units immediately become unassigned. (If they are on another implemented Op
    Sheet, the units stay on that one.)' — said under an implemented sheet in ``show``."""
    from rallypoint.rulesets.tcs.state import SheetStatus

    if sheet.status is not SheetStatus.IMPLEMENTED:
        return ""
    stays = [c for c in sheet.companies if c in sheet.other_sheet]
    free = [c for c in sheet.companies if c not in stays]
    return ("; unassigned now: " + (", ".join(free) or "none")
            + (f"; stay on their other Op Sheet: {', '.join(stays)}" if stays else ""))


def _on_map(state: TcsState, ids: Iterable[str]) -> list[str]:
    """The company's counters on the map: ``id steps/full`` and ``@hex`` when it has one."""
    return [f"{i} {state.counters[i].steps}/{state.full(i)}"
            + (f"@{state.counters[i].hex}" if state.counters[i].hex else "")
            for i in ids if state.counters[i].pile.value == "map"]


def render(c: Campaign) -> None:
    """Rich tables for ``rallypoint show``: companies and piles, sheets, morale, pending."""
    from rich.markup import escape
    from rich.table import Table

    state = tcs_state(c)
    clock = state.clock.isoformat(timespec="minutes")[11:16]
    console.print(f"[bold]{escape(c.name)}[/] — {escape(state.oob.scenario.scenario.title)} · "
                  f"turn {state.turn} ({clock}{', night' if state.night else ''}) · "
                  f"version {c.version}", highlight=False)
    fos = any(state.counters[i].pile.value == "fo"
              for ids in state.oob.counters_of.values() for i in ids)
    table = Table()
    for header in ("company", "on map (steps/full @hex)", "dead", "very dead", "fo")[:5 if fos
                                                                                   else 4]:
        # A long id folds onto a second line rather than losing its end to an ellipsis.
        table.add_column(header, overflow="fold")
    for cid, ids in state.oob.counters_of.items():
        def pile(name: str, ids: tuple[str, ...] = ids) -> str:
            return escape("\n".join(i for i in ids if state.counters[i].pile.value == name))

        cells = [escape(cid), escape("\n".join(_on_map(state, ids))) or "—", pile("dead") or "—",
                 pile("very_dead") or "—", pile("fo")]
        table.add_row(*cells[:5 if fos else 4])
    console.print(table)
    if state.morale:
        console.print("battalion morale (0 = normal): " + ", ".join(
            f"{k} {v}" for k, v in state.morale.items()), highlight=False)
    for s in state.sheets.values():
        console.print(f"sheet [bold]{escape(s.id)}[/]: {s.status.value}, {s.weighted_turns} "
                      f"weighted turns, row {s.row}; centers " + escape(", ".join(
                          f"{k}@{v}" for k, v in s.centers.items() if k in s.companies))
                      + escape(_assignment(s)), highlight=False)
    from rallypoint.rulesets.tcs.outlook import due_now

    _print_due(due_now(tcs_state(c)))
    for d in c.ruleset.pending(c.state):
        console.print(f"[yellow]pending[/]: {escape(d.prompt)}", highlight=False)
