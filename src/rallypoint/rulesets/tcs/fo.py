"""Soviet FO recovery (seed: 'Soviet FOs are an exception to this system')."""

from __future__ import annotations

from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.dice import Roller, fraction_text, roll
from rallypoint.rulesets.tcs import recovery as rec
from rallypoint.rulesets.tcs.commands import RollFos
from rallypoint.rulesets.tcs.events import CounterAfter, FoRoll, FoRolled
from rallypoint.rulesets.tcs.hexes import Hex
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import TcsState


def decide_fo(state: TcsState, cmd: RollFos, roller: Roller) -> FoRolled:
    """On a whole-hour turn, roll 2d6 for each dead FO; back on the FO Recovery Number or more."""
    if state.clock.minute != 0:
        raise IllegalNowError(f"FOs roll only on whole-hour turns; this turn is "
                              f"{state.clock:%H:%M}", fix="Advance to a turn ending in :00.")
    if state.fo_rolled_turn == state.turn:
        raise IllegalNowError("the dead FOs were already rolled for this hour",
                              fix="Roll again at the next whole hour.")
    number = rec.fo_number(state)
    if number is None:
        raise IllegalNowError("the scenario sets no FO Recovery Number",
                              fix="Add fo_recovery_number to [scenario] (AFH 12, GD'41 11, BW 9).")
    dead = [i for i, c in state.counters.items() if c.pile is Pile.FO]
    if not dead:
        raise IllegalNowError("no FO is in the FO pile", fix="Nothing to roll this hour.")
    for key in cmd.place:
        if key not in dead:
            raise MalformedInputError(f"{key!r} is not a dead FO",
                                      fix=f"Place one of: {', '.join(dead)}.")
    rolls: list[FoRoll] = []
    counters: dict[str, CounterAfter] = {}
    p = rec.fo_node("").probability(lambda v: v >= number)
    for ident in dead:
        r = roll(rec.fo_node(state.oob.name(ident)), roller,
                 reading=lambda v: "returns" if v >= number else "stays dead",
                 odds=lambda _: f"needs {number}+: P(returns) = {fraction_text(p)}")
        back = r.total >= number
        rolls.append(FoRoll(counter=ident, roll=r, returned=back))
        if back:
            where = cmd.place.get(ident)
            counters[ident] = CounterAfter(steps=state.full(ident), pile=Pile.MAP,
                                           hex=str(Hex.parse(where)) if where else None)
    return FoRolled(turn=state.turn, number=number, rolls=tuple(rolls), counters=counters)


def fo_notes(state: TcsState) -> list[str]:
    """One line per side whose FO counters use the FO pile: which counters, the roll and how to
    turn it off (said when a campaign starts, so nobody has to know the extra step)."""
    oob = state.oob
    notes = []
    number = rec.fo_number(state)
    for side in oob.scenario.sides:
        fos = [i for i, spec in oob.counter_specs.items()
               if spec.kind == "fo" and oob.side_of(oob.company_of[i]) == side.id]
        if not side.fo_pile or not fos:
            continue
        roll = (f"2d6 every whole hour, back on {number}+" if number is not None else
                "2d6 every whole hour, but the scenario sets no FO Recovery Number (add "
                "fo_recovery_number to [scenario])")
        notes.append(f"{side.name or side.id}: a dead FO ({', '.join(fos)}) goes to its own "
                     f"pile, not the Dead Pile, and rolls {roll} (seed: 'Soviet FOs are an "
                     f"exception'); fo_pile = false on the side turns this off")
    return notes
