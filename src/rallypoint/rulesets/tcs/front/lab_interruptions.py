"""What can happen to a TCS rest while it waits to implement: losses, companies forced off their
centers, FO deaths, and the dead FOs' hourly returns.

These are the designer's model of the battle going on around the rest, not rules: the lab draws
*whether* each happens from the chunk's generator (so a run repeats exactly), and then plays it
through the real rules as a player would record it — ``RecordLoss`` (the step goes where the
rules send it), ``LeaveCenter`` (half the company's Dead Pile goes Very Dead, chosen as the rules
choose by default; the sheet is cancelled when no company is left on it) and, on each whole-hour
turn with an FO in the FO pile, ``RollFos`` (2d6 against the FO Recovery Number).
"""

from __future__ import annotations

from dataclasses import dataclass

from rallypoint.core.errors import MalformedInputError
from rallypoint.lab.kit import NumpyRoller
from rallypoint.rulesets.tcs import recovery as rec
from rallypoint.rulesets.tcs.commands import LeaveCenter, RecordLoss, RollFos
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import SheetStatus, TcsState
from rallypoint.session import Campaign

METRICS = ("steps_lost", "left_center", "fo_killed", "fo_returned")
"""Per-run counts, present when any interruption is on: steps lost during the rest, companies
forced off their centers, FOs eliminated, FOs back from the FO pile."""


@dataclass(frozen=True)
class Interruptions:
    """Per-turn chances of what happens to a rest.

    Attributes:
        loss: Each turn, the chance that one living counter of the resting companies (drawn
            evenly) loses a step in combat.
        forced_off: Each turn, for each company still on the pending sheet, the chance it is
            forced off its center.
        fo_loss: Each turn, the chance that one living FO of the resting side is eliminated.
    """

    loss: float = 0.0
    forced_off: float = 0.0
    fo_loss: float = 0.0

    def active(self) -> bool:
        """Whether anything can happen."""
        return bool(self.loss or self.forced_off or self.fo_loss)


def fos(state: TcsState, companies: tuple[str, ...]) -> list[str]:
    """The FO counters of the resting companies (any pile)."""
    return [i for k in companies for i in state.oob.counters_of[k]
            if state.oob.counter_specs[i].kind == "fo"]


def check(chances: Interruptions, state: TcsState, companies: tuple[str, ...]) -> None:
    """Refuse chances outside 0..1, or FO deaths where the scenario has no FO to lose."""
    for name, p in (("--loss-chance", chances.loss), ("--forced-off", chances.forced_off),
                    ("--fo-loss", chances.fo_loss)):
        if not 0 <= p <= 1:
            raise MalformedInputError(f"{name} {p} is not a chance",
                                      fix=f"Give {name} between 0 and 1 (per turn).")
    if chances.fo_loss and not fos(state, companies):
        raise MalformedInputError("--fo-loss: the resting companies have no FO counter",
                                  fix="Use a scenario whose resting side has FOs (kind = \"fo\").")
    if chances.fo_loss and rec.fo_number(state) is None:
        raise MalformedInputError("--fo-loss: the scenario sets no FO Recovery Number",
                                  fix="Add fo_recovery_number to its [scenario].")


def interrupt(c: Campaign, sheet: str, chances: Interruptions, roller: NumpyRoller,
              tally: dict[str, float]) -> Campaign:
    """One turn's interruptions, then the dead FOs' roll if the turn ends on the hour."""
    gen = roller.generator
    companies = tcs_state(c).sheets[sheet].companies
    if chances.loss and gen.random() < chances.loss:
        living = [i for k in companies for i in tcs_state(c).in_pile(k, Pile.MAP)]
        if living:
            pick = living[int(gen.integers(len(living)))]
            c = c.execute(RecordLoss(expected_version=c.version, counter=pick, steps=1), roller)
            tally["steps_lost"] += 1
    for company in companies:
        on_sheet = tcs_state(c).sheets[sheet].companies
        # A company may already have left with the formation at its center (leave_center_scope).
        pending = tcs_state(c).sheets[sheet].status is SheetStatus.PENDING and company in on_sheet
        if chances.forced_off and pending and gen.random() < chances.forced_off:
            c = c.execute(LeaveCenter(expected_version=c.version, company=company), roller)
            tally["left_center"] += len(on_sheet) - len(tcs_state(c).sheets[sheet].companies)
    if chances.fo_loss and gen.random() < chances.fo_loss:
        state = tcs_state(c)
        living = [i for i in fos(state, companies) if state.counters[i].pile is Pile.MAP]
        if living:
            pick = living[int(gen.integers(len(living)))]
            c = c.execute(RecordLoss(expected_version=c.version, counter=pick), roller)
            tally["fo_killed"] += 1
    state = tcs_state(c)
    dead = [i for i, k in state.counters.items() if k.pile is Pile.FO]
    if dead and state.clock.minute == 0 and state.fo_rolled_turn != state.turn:
        c = c.execute(RollFos(expected_version=c.version), roller)
        after = tcs_state(c)
        tally["fo_returned"] += sum(1 for i in dead if after.counters[i].pile is Pile.MAP)
    return c
