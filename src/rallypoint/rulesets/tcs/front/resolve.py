"""``rallypoint tcs resolve`` at a prompt: a distribution built step by step, previewed, confirmed.

The steps follow the seed's order of choices: bring counters back from the Dead Pile (each one
sends another Very Dead), name the ones that go Very Dead, heal living counters with what is
left, place the returning counters, and (optional rule) pool steps between counters in one hex.
Every question lists the legal answers, which come from the library
(:func:`rallypoint.rulesets.tcs.distribution.options`, ``pool_groups``); the result is shown by the
session's :func:`~rallypoint.session.preview.preview` before anything is written, and the rules
check the command again when it is recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from rallypoint.cli.kit import console
from rallypoint.rulesets.tcs.front.campaign import tcs_state

if TYPE_CHECKING:
    from rallypoint.core.ruleset import Command, Decision
    from rallypoint.rulesets.tcs.commands import Distribute, Transfer
    from rallypoint.rulesets.tcs.distribution import Options
    from rallypoint.rulesets.tcs.state import TcsState
    from rallypoint.session import Campaign

_NONE = "none"


def _say(text: str) -> None:
    console.print(escape(text), highlight=False)


def _pick(question: str, choices: list[str], *, allow_none: bool = True) -> str | None:
    """One of ``choices`` (its id in any case, or its number), or ``None`` for none."""
    listed = ", ".join(f"{n}) {c}" for n, c in enumerate(choices, 1))
    if allow_none:
        listed += f", or {_NONE}"
    while True:
        answer = typer.prompt(f"{question} [{listed}]", default=_NONE if allow_none else None,
                              show_default=False).strip()
        if allow_none and answer.casefold() in (_NONE, "n", "no", ""):
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        hit = [c for c in choices if c.casefold() == answer.casefold()]
        if hit:
            return hit[0]
        _say(f"{answer!r} is not one of the choices; type a number from 1 to {len(choices)}"
             + (f" or {_NONE}" if allow_none else ""))


def _steps(question: str, low: int, high: int) -> int:
    """A whole number of steps between ``low`` and ``high``."""
    if low == high:
        _say(f"{question}: {low} (the only legal number)")
        return low
    while True:
        answer = typer.prompt(f"{question} ({low}-{high})", default=str(high)).strip()
        if answer.isdigit() and low <= int(answer) <= high:
            return int(answer)
        _say(f"give a whole number from {low} to {high}")


def _options(c: Campaign, decision: Decision) -> Options:
    from rallypoint.rulesets.tcs.distribution import options

    state: Any = c.state
    recovery = next(r for r in state.pending_recoveries() if r.company == decision.subject)
    return options(state, recovery)


def _resurrect(opt: Options) -> dict[str, int]:
    """Step 1: counters back from the Dead Pile, and their strength."""
    back: dict[str, int] = {}
    left = opt.steps
    if not opt.limit or not opt.resurrect:
        _say("no counter can come back from the Dead Pile")
        return back
    _say(f"Dead Pile: {', '.join(opt.scope_dead)} — at most {opt.limit} may come back, each "
         "sending another to the Very Dead Pile")
    if opt.single:
        _say(f"{opt.scope_dead[0]} is the only counter in the Dead Pile: bringing it back takes "
             f"all {opt.steps} steps (any above its full strength are lost)")
    while left and len(back) < opt.limit:
        choices = [f"{i} (full {n})" for i, n in opt.resurrect.items() if i not in back]
        pick = _pick("bring back", choices)
        if pick is None:
            break
        ident = pick.split(" (", 1)[0]
        full = opt.resurrect[ident]
        if opt.single:
            back[ident] = min(opt.steps, full)
            _say(f"{ident} comes back with {back[ident]} step(s)")
            break
        back[ident] = _steps(f"{ident} comes back with how many steps", 1, min(full, left))
        left -= back[ident]
    return back


def _very_dead(opt: Options, back: dict[str, int]) -> tuple[str, ...]:
    """Step 2: the counters that go Very Dead, one per counter brought back."""
    need = opt.very_dead_needed(len(back))
    rest = [i for i in opt.scope_dead if i not in back]
    if need == 0:
        return ()
    if need == len(rest):
        _say(f"to the Very Dead Pile (every other counter must go): {', '.join(rest)}")
        return tuple(rest)
    gone: list[str] = []
    while len(gone) < need:
        pick = _pick(f"send to the Very Dead Pile ({len(gone) + 1} of {need})",
                     [i for i in rest if i not in gone], allow_none=False)
        assert pick is not None
        gone.append(pick)
    return tuple(gone)


def _heal(opt: Options, left: int) -> dict[str, int]:
    """Step 3: heal living counters with the steps left."""
    heal: dict[str, int] = {}
    while left:
        choices = [f"{i} (up to +{n - heal.get(i, 0)})" for i, n in opt.heal.items()
                   if n > heal.get(i, 0)]
        if not choices:
            break
        _say(f"{left} step(s) left to spend")
        pick = _pick("heal", choices)
        if pick is None:
            break
        ident = pick.split(" (", 1)[0]
        n = _steps(f"{ident} takes back how many steps", 1,
                   min(left, opt.heal[ident] - heal.get(ident, 0)))
        heal[ident] = heal.get(ident, 0) + n
        left -= n
    return heal


def _place(opt: Options, back: dict[str, int]) -> dict[str, str]:
    """Step 4: where each returning counter stands (in or next to the center)."""
    place: dict[str, str] = {}
    for ident in back:
        where = typer.prompt(f"place {ident} in or next to the center (hex)",
                             default=opt.center or "").strip()
        if where and where != opt.center:
            place[ident] = where
    return place


def by_hand(c: Campaign, decision: Decision) -> Command:
    """The distribution the player builds at the prompt, step by step."""
    from rallypoint.rulesets.tcs.commands import Distribute

    opt = _options(c, decision)
    _say(f"{decision.subject}: {opt.steps} step(s) to distribute")
    back = _resurrect(opt)
    very_dead = _very_dead(opt, back)
    spent = sum(back.values())
    heal = {} if opt.single and back else _heal(opt, opt.steps - spent)
    spent += sum(heal.values())
    if spent < opt.steps:
        _say(f"{opt.steps - spent} step(s) left unspent (they are lost)")
    command = Distribute(expected_version=c.version, company=decision.subject, heal=heal,
                         resurrect=back, very_dead=very_dead, place=_place(opt, back))
    return command.model_copy(update={"redistribute": _pool(c, command)})


def _pool(c: Campaign, command: Distribute) -> tuple[Transfer, ...]:
    """Step 5 (optional rule): counters in one hex and of one type pool their steps."""
    from rallypoint.rulesets.tcs.commands import Transfer
    from rallypoint.rulesets.tcs.distribution import after_distribution, pool_groups

    state = tcs_state(c)
    groups = pool_groups(state, command)
    if not groups:
        return ()
    steps = after_distribution(state, command)
    for ids in groups:
        _say("may pool steps in one hex: " + ", ".join(
            f"{i} {steps[i]}/{state.full(i)}" for i in ids))
    transfers: list[Transfer] = []
    pairs = [f"{a}→{b}" for ids in groups for a in ids for b in ids if a != b]
    while True:
        pick = _pick("move steps", pairs)
        if pick is None:
            return tuple(transfers)
        source, target = pick.split("→")
        room = min(steps[source], state.full(target) - steps[target])
        if room < 1:
            _say(f"{target} is full or {source} has nothing to give")
            continue
        n = _steps(f"{source} gives {target} how many steps", 1, room)
        steps[source] -= n
        steps[target] += n
        transfers.append(Transfer(source=source, target=target, steps=n))


def show_preview(c: Campaign, command: Command) -> bool:
    """Print the company's counters before → after ``command``; ``False`` if it is refused."""
    from rallypoint.session.preview import preview

    result = preview(c, command)
    if result.error is not None or result.after is None:
        _say(f"refused: {result.error.message if result.error else 'not legal now'}")
        return False
    company = getattr(command, "company", "")
    before = tcs_state(c)
    after = tcs_state(result.after)
    _say(f"preview of {company}'s distribution (nothing written yet):")
    for ident in before.oob.counters_of[company]:
        if after.counters[ident] != before.counters[ident]:
            _say(f"  {ident}: {_where(before, ident)} → {_where(after, ident)}")
    for r in result.rolls:
        _say(f"  then rolls {r.dice} for {r.purpose}")
    if result.summary:
        _say(f"  log: {result.summary}")
    return True


def _where(state: TcsState, ident: str) -> str:
    """Where a counter is, in words (``3/4 at 17.21``, ``Dead Pile``)."""
    counter = state.counters[ident]
    pile = counter.pile.value
    if pile == "map":
        return f"{counter.steps}/{state.full(ident)}" + (
            f" at {counter.hex}" if counter.hex else "")
    names = {"dead": "Dead Pile", "very_dead": "Very Dead Pile", "fo": "FO pile"}
    return names.get(pile, pile)


def interactive(c: Campaign, decision: Decision) -> Command:
    """Ask how to distribute, preview it, and return the command once the player confirms.

    Raises:
        typer.Exit: The player declined (nothing is written).
    """
    from rallypoint.session import policy_named

    policies = [p.name for p in c.ruleset.policies()]
    _say(decision.prompt)
    while True:
        how = _pick("distribute by hand, or let a policy decide", ["by hand", *policies],
                    allow_none=False)
        command = (by_hand(c, decision) if how == "by hand"
                   else policy_named(c.ruleset, how).decide(c.state, decision, c.version))
        if show_preview(c, command) and typer.confirm("record it?", default=True):
            return command
        if not typer.confirm("start again?", default=True):
            _say("nothing written")
            raise typer.Exit(1)
