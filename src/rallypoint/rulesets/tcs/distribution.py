"""Step distribution: the player's decision after a company's recovery roll.

:func:`options` lists the legal choices, :func:`validate` checks a player's distribution and
explains a refusal, and the policies make a distribution for automatic play. The ``rebuild``
policy reproduces every distribution in the seed's two worked examples.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.core.json_types import JsonObject
from rallypoint.errors import Fix, Hint
from rallypoint.rulesets.tcs.choices import DistributeChoices
from rallypoint.rulesets.tcs.commands import Distribute, Transfer
from rallypoint.rulesets.tcs.fixes import FixKind, fix
from rallypoint.rulesets.tcs.hexes import Hex, hexes_apart
from rallypoint.rulesets.tcs.recovery import pairing_limit
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import Recovery, TcsState


@dataclass(frozen=True)
class Options:
    """What a company may do with its recovered steps.

    Attributes:
        company: The company.
        steps: Steps recovered.
        heal: Living counters with step losses → steps they may take back.
        resurrect: Dead counters of the company → their full strength.
        scope_dead: Every counter in the Dead Pile the pairing rule counts (company or formation).
        limit: How many counters may come back.
        single: True when the pile holds one counter: bringing it back takes every step.
        center: The company's center hex.
    """

    company: str
    steps: int
    heal: dict[str, int]
    resurrect: dict[str, int]
    scope_dead: tuple[str, ...]
    limit: int
    single: bool
    center: str | None
    redistribution: bool = field(default=True)

    def very_dead_needed(self, resurrected: int) -> int:
        """Counters that must go Very Dead when ``resurrected`` come back."""
        return min(resurrected, len(self.scope_dead) - resurrected)

    def to_json(self) -> JsonObject:
        """JSON form, listed by ``tcs choices``."""
        return DistributeChoices(
            company=self.company, steps=self.steps, heal=self.heal, resurrect=self.resurrect,
            dead_pile=self.scope_dead, max_resurrections=self.limit,
            very_dead_per_resurrection=1, single_dead_counter=self.single, center=self.center,
            redistribution=self.redistribution).to_json()


def scope_dead(state: TcsState, company_id: str) -> tuple[str, ...]:
    """The Dead Pile the pairing rule counts: the company's, or its whole formation's."""
    if state.rules.params.pairing_scope == "company":
        return tuple(state.in_pile(company_id, Pile.DEAD))
    formation = state.oob.formation_of[company_id]
    return tuple(
        i for c, f in state.oob.formation_of.items() if f == formation
        for i in state.in_pile(c, Pile.DEAD)
    )


def options(state: TcsState, recovery: Recovery) -> Options:
    """The legal choices for one company's recovered steps."""
    company = recovery.company
    heal = {
        i: state.full(i) - state.counters[i].steps
        for i in state.in_pile(company, Pile.MAP)
        if state.counters[i].steps < state.full(i)
    }
    resurrect = {i: state.full(i) for i in state.in_pile(company, Pile.DEAD)}
    dead = scope_dead(state, company)
    sheet = state.sheets[recovery.sheet]
    return Options(
        company=company,
        steps=recovery.steps,
        heal=heal,
        resurrect=resurrect,
        scope_dead=dead,
        limit=min(pairing_limit(len(dead), state.rules.params.odd_pile_limit), len(resurrect)),
        single=len(dead) == 1,
        center=sheet.centers.get(company),
        redistribution=state.rules.params.allow_redistribution,
    )


def _refuse(what: str, said: str | Fix, company: str, instead: str | None = None
            ) -> IllegalNowError:
    return IllegalNowError(what, where=f"distribution for {company}", fix=said, instead=instead)


def validate(state: TcsState, recovery: Recovery, cmd: Distribute) -> None:
    """Check a distribution against the R&R rules; raise with an explanation if it is illegal."""
    opt = options(state, recovery)
    c = opt.company
    for ident in [*cmd.heal, *cmd.resurrect, *cmd.very_dead, *cmd.place]:
        if ident not in state.counters:
            raise UnknownIdError(f"no counter {ident!r}", where=f"distribution for {c}",
                                 fix=fix(FixKind.PICK_CHOICE), instead=Hint.PICK_ID)
    for ident, n in cmd.heal.items():
        if ident not in opt.heal:
            raise _refuse(f"{ident} cannot be healed: it is not a living counter of {c} with "
                          "step losses", f"Heal one of: {', '.join(opt.heal) or 'none'}.", c)
        if not 1 <= n <= opt.heal[ident]:
            raise _refuse(f"{ident} can take back 1..{opt.heal[ident]} steps, not {n}",
                          "Heal no more than the steps it has lost.", c)
    for ident, n in cmd.resurrect.items():
        if state.counters[ident].pile is Pile.VERY_DEAD:
            raise _refuse(f"{ident} is in the Very Dead Pile and can never be recovered",
                          "Choose a counter from the Dead Pile.", c)
        if ident not in opt.resurrect:
            raise _refuse(f"{ident} is not in {c}'s Dead Pile",
                          f"Resurrect one of: {', '.join(opt.resurrect) or 'none'}.", c)
        if not 1 <= n <= opt.resurrect[ident]:
            raise _refuse(f"{ident} comes back with 1..{opt.resurrect[ident]} steps, not {n}",
                          "A counter returns at any strength up to full.", c)
    spent = sum(cmd.heal.values()) + sum(cmd.resurrect.values())
    if spent > opt.steps:
        raise _refuse(f"the distribution spends {spent} steps but {c} recovered {opt.steps}",
                      "Spend no more steps than the roll gave.", c)
    k = len(cmd.resurrect)
    if k > opt.limit:
        raise _refuse(
            f"{k} counters cannot come back: with {len(opt.scope_dead)} in the Dead Pile at most "
            f"{opt.limit} may (each one sends another to the Very Dead Pile)",
            f"Resurrect at most {opt.limit}.", c)
    need = opt.very_dead_needed(k)
    vd = list(cmd.very_dead)
    if len(set(vd)) != len(vd) or len(vd) != need:
        raise _refuse(
            f"resurrecting {k} counter(s) sends exactly {need} other Dead Pile counter(s) to the "
            f"Very Dead Pile; {len(set(vd))} named",
            f"Name {need} of: {', '.join(i for i in opt.scope_dead if i not in cmd.resurrect)}.",
            c)
    for ident in vd:
        if ident not in opt.scope_dead or ident in cmd.resurrect:
            raise _refuse(f"{ident} cannot be the counter sent Very Dead",
                          "Name another counter from the same Dead Pile, not one coming back.", c)
    if opt.single and k == 1:
        ident, n = next(iter(cmd.resurrect.items()))
        want = min(opt.steps, opt.resurrect[ident])
        if cmd.heal or n != want:
            raise _refuse(
                f"{ident} is the only counter in the Dead Pile: bringing it back takes all "
                f"{opt.steps} recovered steps (so it returns with {want}; any excess is lost)",
                f"Resurrect {ident} with {want} and heal nothing, or leave it dead.", c)
    for ident, where in cmd.place.items():
        if ident not in cmd.resurrect:
            raise _refuse(f"{ident} is placed but not resurrected",
                          "Place only counters being brought back.", c)
        if opt.center is not None and _apart(state, where, opt.center, cmd, c) > 1:
            raise _refuse(f"{ident} must be placed in or next to the center {opt.center}, "
                          f"not {where}", "Pick the center hex or one adjacent to it.", c)
    _validate_transfers(state, recovery, cmd)


def _apart(state: TcsState, where: str, center: str, cmd: Distribute, company: str) -> int:
    """Hexes from a placement to the center; across a map seam, the count the player attests
    (seed: a resurrected counter 'is placed in any protected or partly protected hex in or
    adjacent to the center hex')."""
    a, b = Hex.parse(where), Hex.parse(center)
    if a.map != b.map and cmd.attest_distance is None:
        raise _refuse(f"{where} and the center {center} are on different map sections: the "
                      "hexes between them cannot be counted here",
                      fix(FixKind.ATTEST_PLACEMENT), company, instead=Hint.FIX_FIELD)
    return hexes_apart(a, b, state.rules.params.hex_offset, cmd.attest_distance)


def _validate_transfers(state: TcsState, recovery: Recovery, cmd: Distribute) -> None:
    c = recovery.company
    if cmd.redistribute and not state.rules.params.allow_redistribution:
        raise _refuse("redistribution is switched off in this campaign",
                      "Leave out the transfers (parameter allow_redistribution).", c)
    steps = after_distribution(state, cmd)
    for t in cmd.redistribute:
        for ident in (t.source, t.target):
            if state.oob.company_of.get(ident) != c or steps.get(ident, 0) <= 0:
                raise _refuse(f"{ident} is not a living counter of {c}",
                              "Redistribute only between the company's counters on the map.", c)
        # A counter just brought back stands where it is placed (or on the center).
        center = state.sheets[recovery.sheet].centers.get(c)
        hex_a, hex_b = (cmd.place.get(i, center) if i in cmd.resurrect else state.counters[i].hex
                        for i in (t.source, t.target))
        spec_a, spec_b = state.oob.counter_specs[t.source], state.oob.counter_specs[t.target]
        if hex_a is not None:
            hex_a = Hex.normal(hex_a)
        if hex_b is not None:
            hex_b = Hex.normal(hex_b)
        if hex_a is None or hex_a != hex_b or spec_a.type is not spec_b.type:
            raise _refuse(f"{t.source} and {t.target} must share a hex and a type to pool steps",
                          "Move them into one hex first, or leave them as they are.", c)
        if steps[t.source] < t.steps or steps[t.target] + t.steps > state.full(t.target):
            raise _refuse(f"moving {t.steps} step(s) {t.source}→{t.target} does not fit",
                          "Keep every counter between 0 and full strength.", c)
        steps[t.source] -= t.steps
        steps[t.target] += t.steps


def pool_groups(state: TcsState, cmd: Distribute) -> list[tuple[str, ...]]:
    """Counters of the company that may pool steps after ``cmd``'s healing and resurrections:
    groups of two or more living counters in one hex and of one type, one not at full strength
    (seed: 'units in the same hex and of the same type and from the same company may
    redistribute their remaining steps'). Empty when redistribution is switched off."""
    if not state.rules.params.allow_redistribution:
        return []
    steps = after_distribution(state, cmd)
    center = next((state.sheets[r.sheet].centers.get(cmd.company)
                   for r in state.pending_recoveries() if r.company == cmd.company), None)
    groups: dict[tuple[str, str], list[str]] = {}
    for ident, n in steps.items():
        where = cmd.place.get(ident, center) if ident in cmd.resurrect \
            else state.counters[ident].hex
        if n > 0 and where is not None:
            kind = state.oob.counter_specs[ident].type.value
            groups.setdefault((Hex.normal(where), kind), []).append(ident)
    return [tuple(ids) for ids in groups.values()
            if len(ids) > 1 and any(steps[i] < state.full(i) for i in ids)]


def after_distribution(state: TcsState, cmd: Distribute) -> dict[str, int]:
    """Steps per living counter of the company after healing and resurrection."""
    company = cmd.company
    steps = {i: state.counters[i].steps for i in state.in_pile(company, Pile.MAP)}
    for ident, n in cmd.heal.items():
        steps[ident] += n
    steps.update(cmd.resurrect)
    return steps


def rebuild(state: TcsState, recovery: Recovery, version: int) -> Distribute:
    """Policy ``rebuild``: bring back as many counters as the pairing rule allows, steps spread
    evenly; send the least valuable others Very Dead; heal the rest (most damaged first)."""
    opt = options(state, recovery)
    k = min(opt.limit, opt.steps)
    chosen = sorted(opt.resurrect, key=lambda i: -opt.resurrect[i])[:k]
    resurrect = dict.fromkeys(chosen, 0)
    left = opt.steps
    if opt.single and k == 1:
        resurrect[chosen[0]] = min(left, opt.resurrect[chosen[0]])
        left = 0
    while left and any(resurrect[i] < opt.resurrect[i] for i in chosen):
        for ident in chosen:
            if left and resurrect[ident] < opt.resurrect[ident]:
                resurrect[ident] += 1
                left -= 1
    heal = _heal(opt, left)
    return Distribute(expected_version=version, company=opt.company, heal=heal,
                      resurrect=resurrect, very_dead=_very_dead(state, opt, chosen))


def heal_first(state: TcsState, recovery: Recovery, version: int) -> Distribute:
    """Policy ``heal_first``: heal living counters first, then bring back what steps remain."""
    opt = options(state, recovery)
    heal = _heal(opt, opt.steps)
    left = opt.steps - sum(heal.values())
    chosen: list[str] = []
    resurrect: dict[str, int] = {}
    if left and opt.limit and not (opt.single and heal):
        for ident in sorted(opt.resurrect, key=lambda i: -opt.resurrect[i])[:min(opt.limit, left)]:
            chosen.append(ident)
            resurrect[ident] = 1
            left -= 1
        for ident in chosen:
            extra = min(left, opt.resurrect[ident] - 1)
            resurrect[ident] += extra
            left -= extra
        if opt.single and chosen:
            resurrect[chosen[0]] = min(opt.steps, opt.resurrect[chosen[0]])
    return Distribute(expected_version=version, company=opt.company, heal=heal,
                      resurrect=resurrect, very_dead=_very_dead(state, opt, chosen))


def _heal(opt: Options, steps: int) -> dict[str, int]:
    heal: dict[str, int] = {}
    for ident in sorted(opt.heal, key=lambda i: -opt.heal[i]):
        n = min(steps, opt.heal[ident])
        if n:
            heal[ident] = n
            steps -= n
    return heal


def _very_dead(state: TcsState, opt: Options, chosen: list[str]) -> tuple[str, ...]:
    # The player picks which counters go; the policy keeps the most valuable: the company's own
    # counters first (formation scope), fewest full steps first, last in scenario order first.
    rest = [i for i in opt.scope_dead if i not in chosen]
    order = {i: n for n, i in enumerate(opt.scope_dead)}
    rest.sort(key=lambda i: (state.oob.company_of[i] != opt.company, state.full(i), -order[i]))
    return tuple(rest[: opt.very_dead_needed(len(chosen))])


POLICIES = {"rebuild": rebuild, "heal_first": heal_first}
"""Named distribution policies; ``rebuild`` is the default."""

__all__ = ["POLICIES", "Options", "Transfer", "options", "validate"]
