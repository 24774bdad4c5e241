"""``rallypoint squares …``: the squares verbs, and how a squares battle is shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from rallypoint.cli.kit import (
    CampaignOpt,
    JsonOpt,
    campaign_ref,
    console,
    current,
    execute,
    guarded,
    print_due,
    print_json,
    session,
)
from rallypoint.rulesets.squares.front.campaign import squares_state

if TYPE_CHECKING:
    from rallypoint.rulesets.squares.data import RallyKind
    from rallypoint.rulesets.squares.rally import RallyPlan
    from rallypoint.rulesets.squares.state import SquaresState
    from rallypoint.session import Campaign, Command

app = typer.Typer(help="Squares: disorder recovery and leader rally on a square grid (Hail Caesar "
                       "/ Black Powder family).", no_args_is_help=True)

DiceOpt = Annotated[str | None, typer.Option(
    "--dice", help="Script the die of the rally test, e.g. --dice 5.")]
VisibleOpt = Annotated[bool | None, typer.Option(
    "--enemy-visible/--no-enemy-visible",
    help="Your ruling on whether an enemy is visible to the unit (default: line of sight on the "
         "grid).")]


def _run(campaign: str | None, build: Callable[[Campaign], Command],
         dice: str | None = None) -> None:
    from pydantic import ValidationError

    from rallypoint.core.errors import MalformedInputError

    def checked(c: Campaign) -> Command:
        # A value the command model refuses (e.g. losing 0 SP) is bad input, not a crash.
        try:
            return build(c)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            raise MalformedInputError(f"{field}: {first['msg']}",
                                      fix="See `rallypoint squares --help`.") from None
    print_due(execute(campaign, checked, dice), first_only=True)


@app.command()
def board(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Show the grid: terrain, units (SP/stamina, D disordered, S shaken, F under fire), leaders."""
    c = current(campaign)
    if as_json:
        print_json(c.ruleset.state_json(c.state))
        return
    render_board(squares_state(c))


@app.command()
def move(
    who: Annotated[str, typer.Argument(help="Unit or leader id.")],
    square: Annotated[str, typer.Argument(help="New square, e.g. C4.")],
    campaign: CampaignOpt = None,
) -> None:
    """Record a move (attached leaders go with their unit; refused right after a recovery)."""
    from rallypoint.rulesets.squares.commands import Move

    _run(campaign, lambda c: Move(expected_version=c.version, who=who, square=square))


@app.command()
def fire(
    unit: Annotated[str, typer.Argument(help="The unit that was targeted.")],
    bombardment: Annotated[bool, typer.Option(
        help="It was bombarded (default: targeted by ranged fire).")] = False,
    campaign: CampaignOpt = None,
) -> None:
    """Mark a unit as targeted by ranged fire or bombardment this turn (no automatic recovery)."""
    from rallypoint.rulesets.squares.commands import MarkFire

    kind: Literal["ranged", "bombardment"] = "bombardment" if bombardment else "ranged"
    _run(campaign, lambda c: MarkFire(expected_version=c.version, unit=unit, fire=kind))


@app.command()
def lose(
    unit: Annotated[str, typer.Argument(help="Unit id.")],
    sp: Annotated[int, typer.Argument(help="SP lost (default 1).")] = 1,
    campaign: CampaignOpt = None,
) -> None:
    """Record SP lost in the core game; at 0 SP the unit is removed from play."""
    from rallypoint.rulesets.squares.commands import LoseSp

    _run(campaign, lambda c: LoseSp(expected_version=c.version, unit=unit, sp=sp))


@app.command()
def disorder(
    unit: Annotated[str, typer.Argument(help="Unit id.")],
    campaign: CampaignOpt = None,
) -> None:
    """Record that the core game disordered a unit."""
    from rallypoint.rulesets.squares.commands import Disorder

    _run(campaign, lambda c: Disorder(expected_version=c.version, unit=unit))


@app.command()
def activate(
    who: Annotated[str, typer.Argument(help="Unit or leader id.")],
    campaign: CampaignOpt = None,
) -> None:
    """Activate a unit or leader: attachments end; a disordered unit may recover automatically."""
    from rallypoint.rulesets.squares.commands import Activate

    _run(campaign, lambda c: Activate(expected_version=c.version, who=who))


@app.command()
def rally(
    leader: Annotated[str, typer.Argument(help="The unit's brigadier or its army commander.")],
    unit: Annotated[str, typer.Argument(help="The testing unit.")],
    kind: Annotated[str | None, typer.Option(
        help="What the rally tries to win back: disorder or sp (default: the only one allowed "
             "now).")] = None,
    enemy_visible: VisibleOpt = None,
    dice: DiceOpt = None,
    campaign: CampaignOpt = None,
) -> None:
    """Spend a leader's activation on a rally test: 1d6 + modifiers, 6+ passes, 0 or less breaks."""
    from rallypoint.rulesets.squares.commands import Rally
    from rallypoint.rulesets.squares.rally import rally_kind

    with guarded():
        what = None if kind is None else _kind(kind)
    _run(campaign, lambda c: Rally(
        expected_version=c.version, leader=leader, unit=unit,
        rally=what or rally_kind(squares_state(c), leader, unit),
        enemy_visible=enemy_visible), dice)


@app.command()
def odds(
    leader: Annotated[str | None, typer.Argument(help="Leader (give with UNIT).")] = None,
    unit: Annotated[str | None, typer.Argument(help="Testing unit (give with LEADER).")] = None,
    kind: Annotated[str | None, typer.Option(
        help="disorder or sp (default: every kind allowed now).")] = None,
    enemy_visible: VisibleOpt = None,
    campaign: CampaignOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact chances of pass, no effect and break, each modifier named; no arguments: every rally
    allowed now."""
    from rallypoint.core.errors import IllegalNowError, MalformedInputError
    from rallypoint.rulesets.squares.data import RallyKind
    from rallypoint.rulesets.squares.rally import opportunities, plan_rally

    with guarded():
        c = session().load(campaign_ref(campaign))
        state = squares_state(c)
        if (leader is None) != (unit is None):
            raise MalformedInputError("give both LEADER and UNIT, or neither",
                                      fix="e.g. `rallypoint squares odds kempt 28th`.")
        if leader is None or unit is None:
            plans = [p for p in opportunities(state) if kind is None or p.kind == _kind(kind)]
            if enemy_visible is not None:
                plans = [plan_rally(state, p.leader, p.unit, p.kind, enemy_visible)
                         for p in plans]
        else:
            kinds = [_kind(kind)] if kind else list(RallyKind)
            plans, refused = [], {}
            for k in kinds:
                try:
                    plans.append(plan_rally(state, leader, unit, k, enemy_visible))
                except IllegalNowError as exc:
                    refused[k] = exc
            if not plans:
                # Explain the rally the player most likely meant: disorder if it is disordered.
                meant = RallyKind.DISORDER if state.unit(unit).disordered else RallyKind.SP
                raise refused.get(meant) or next(iter(refused.values()))
    if as_json:
        print_json([_plan_json(state, p) for p in plans])
    elif leader is None:
        _print_table(state, plans)
    else:
        for plan in plans:
            print_plan(state, plan)


@app.command()
def turn(campaign: CampaignOpt = None) -> None:
    """Start the next turn: fire marks and activations are cleared."""
    from rallypoint.rulesets.squares.commands import NextTurn

    _run(campaign, lambda c: NextTurn(expected_version=c.version))


@app.command()
def sight(
    a: Annotated[str, typer.Argument(help="A square, e.g. C2.")],
    b: Annotated[str, typer.Argument(help="Another square.")],
    ruling: Annotated[str | None, typer.Option(
        "--set", help="Record your ruling: clear, blocked, or auto (remove the ruling).")] = None,
    campaign: CampaignOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Line of sight between two squares; --set records your ruling (it wins over the grid)."""
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.rulesets.squares.commands import SetSight

    if ruling is not None:
        with guarded():
            if ruling not in ("clear", "blocked", "auto"):
                raise MalformedInputError(f"--set {ruling!r} is not a ruling",
                                          fix="Use clear, blocked or auto.")
        _run(campaign, lambda c: SetSight.model_validate(
            {"expected_version": c.version, "a": a, "b": b, "ruling": ruling}))
        return
    from rallypoint.rulesets.squares.grid import squares_between

    with guarded():
        c = session().load(campaign_ref(campaign))
        state = squares_state(c)
        sa, sb = state.board.square(a), state.board.square(b)
        visible, why = state.sees(sa, sb)
    between = ["/".join(str(s) for s in step) for step in squares_between(
        sa, sb, state.rules.params.line_of_sight)]
    if as_json:
        print_json({"a": str(sa), "b": str(sb), "visible": visible, "why": why,
                    "between": between})
        return
    console.print(f"{sa}–{sb}: {'visible' if visible else 'NOT visible'} ({why}); squares "
                  f"between: {', '.join(between) or 'none'}", highlight=False)


def _kind(text: str) -> RallyKind:
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.rulesets.squares.data import RallyKind

    try:
        return RallyKind(text.lower())
    except ValueError:
        raise MalformedInputError(f"--kind {text!r} is not a rally kind",
                                  fix="Use --kind disorder or --kind sp.") from None


def _plan_json(state: SquaresState, plan: RallyPlan) -> dict[str, Any]:
    from rallypoint.dice import fraction_text

    odds_ = plan.odds(state)
    return {"leader": plan.leader, "unit": plan.unit, "rally": plan.kind.value,
            "modifiers": [m.model_dump() for m in plan.node.modifiers],
            "modifier": plan.node.modifier_total,
            **{r.value: fraction_text(p) for r, p in odds_.items()},
            "enemy_visible": plan.enemy_visible}


def _die_needs(state: SquaresState, total: int) -> str:
    limits = state.rules.thresholds
    need, cap = limits.pass_at - total, limits.break_at - total
    passes = "never passes" if need > 6 else "always passes" if need <= 1 else \
        f"passes on a die of {need}+"
    breaks = "never breaks" if cap < 1 else "always breaks" if cap >= 6 else \
        f"breaks on a die of {cap} or less"
    return f"{passes}, {breaks}"


def print_plan(state: SquaresState, plan: RallyPlan) -> None:
    """One rally test: each modifier by name, the die it needs, and the exact chances."""
    from rich.markup import escape

    from rallypoint.dice import fraction_text, percent_text

    limits = state.rules.thresholds
    console.print(f"[bold]{escape(plan.node.purpose)}[/]: 1d6, {limits.pass_at}+ passes, "
                  f"{limits.break_at} or less breaks", highlight=False)
    for m in plan.node.modifiers:
        console.print(f"  {m.value:+d} {escape(m.name)}", highlight=False)
    total = plan.node.modifier_total
    console.print(f"  = {total:+d} in all: {_die_needs(state, total)}", highlight=False)
    for result, p in plan.odds(state).items():
        console.print(f"  {result.label:<10} {fraction_text(p):>5}  {percent_text(p):>6}",
                      highlight=False)


def _print_table(state: SquaresState, plans: list[RallyPlan]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from rallypoint.dice import fraction_text

    if not plans:
        console.print("no rally is allowed now")
        return
    table = Table("side", "unit", "leader", "kind", "mod", "pass", "no effect", "break")
    for plan in plans:
        o = plan.odds(state)
        table.add_row(escape(state.board.side_of(plan.unit)), escape(plan.unit),
                      escape(plan.leader), plan.kind.value,
                      f"{plan.node.modifier_total:+d}", *(fraction_text(p) for p in o.values()))
    console.print(table)


def render_board(state: SquaresState) -> None:
    """The grid as a Rich table fitted to the terminal's width (80 columns when piped), the key
    to its marks, then terrain, removed units and this turn's activations."""
    from rich.markup import escape

    from rallypoint.rulesets.squares.front.board import SIDE_STYLES, board_layout, board_table

    board = state.board
    layout = board_layout(state)
    console.print(board_table(layout, console.width))
    styles = {s.id: SIDE_STYLES[n % len(SIDE_STYLES)] for n, s in enumerate(board.scenario.sides)}
    sides = ", ".join(f"[{styles[s.id]}]{escape(board.side_marks[s.id])}: {escape(s.id)}[/]"
                      for s in board.scenario.sides)
    console.print(f"{sides} · *leader (+ attached)", highlight=False)
    console.print("D disordered, S shaken, ! under fire this turn", highlight=False)
    if layout.cut:
        _print_wrapped("cut short: ", ", ".join(f"{short} is {whole}"
                                                for short, whole in layout.cut.items()))
    _print_wrapped("terrain: ", "; ".join(_terrain_lines(state)))
    _print_status(state)


def _terrain_lines(state: SquaresState) -> list[str]:
    """Each terrain kind on the board with its squares and what it does there."""
    kinds = state.rules.terrain.kinds
    found = []
    for t in state.board.scenario.terrain:
        traits = [f"{t.side}'s fortification" if t.side else "fortification"] \
            if kinds[t.kind].fortification else []
        traits += ["blocks sight"] if kinds[t.kind].blocks_sight else []
        found.append(f"{t.kind} {' '.join(t.squares)}"
                     + (f" ({', '.join(traits)})" if traits else ""))
    return found


def _print_wrapped(head: str, text: str) -> None:
    """``head`` + ``text`` wrapped to the console at spaces (no trailing blanks), or nothing."""
    import textwrap

    from rich.markup import escape

    if text:
        console.print(escape(textwrap.fill(head + text, width=console.width,
                                           break_long_words=False, break_on_hyphens=False,
                                           subsequent_indent="  ")),
                      highlight=False, soft_wrap=True)


def _print_status(state: SquaresState) -> None:
    """Units out of play, the turn, this turn's activations and the sight rulings given."""
    from rich.markup import escape

    gone = [f"{u.id} ({u.status.value})" for u in state.units.values() if not u.in_play]
    if gone:
        console.print(escape("out of play: " + ", ".join(gone)), highlight=False)
    line = f"turn {state.turn}"
    if state.activation is not None:
        line += f" · activation: {state.activation.who}" + (
            " (recovered: may fire, not move)" if state.activation.recovered else "")
    if state.activated:
        line += f" · activated: {', '.join(sorted(state.activated))}"
    console.print(escape(line), highlight=False)
    if state.sight:
        console.print("sight rulings: " + ", ".join(
            f"{k.replace('|', '–')} {'clear' if v else 'blocked'}"
            for k, v in state.sight.items()), highlight=False)


def render(c: Campaign) -> None:
    """``rallypoint show``: the title, the board, and who is attached to whom."""
    from rich.markup import escape

    state = squares_state(c)
    console.print(f"[bold]{escape(c.name)}[/] — {escape(state.board.scenario.scenario.title)} · "
                  f"turn {state.turn} · version {c.version}", highlight=False)
    render_board(state)
    attached = [f"{ld.id}→{ld.attached}" for ld in state.leaders.values() if ld.attached]
    if attached:
        console.print(escape("attached: " + ", ".join(attached)), highlight=False)
    print_due(c)
