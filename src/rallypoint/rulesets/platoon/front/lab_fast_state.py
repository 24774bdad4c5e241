"""The fast platoon kernel's state: many platoons at once, as a structure of arrays.

One row per campaign. Seated men are kept by seat — ``(runs, crews, seats)`` arrays of fatigue,
skill, steadiness and an arrival serial — and the unassigned men in a pool of ``(runs, slots)``
arrays. Tanks are what the rules make them: a crew has one or not, the park holds a count (a tank
back from ordnance and a new one from the depot wait there alike, 14.6), and tanks on their way
are counts in a ring of days. Man requests sit in a ring of filing days by the seat they empty,
so they land in the order they were filed, as in the engine.

What the lab never reads is not kept: age, nerve, initiative, names, tank names, trust (9.9 acts
only through the roster handed to a battle, and the STAND-IN battle reads none of it) and light
wounds' healing days (a light wound changes only the skill the roster shows, 14.3). The light
wounds themselves are counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.battle import MAN_TABLES, ManResult, TankResult
from rallypoint.rulesets.platoon.model import SEATS, PlatoonState, Status, TankStatus

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
S = len(SEATS)
COMMANDER, GUNNER, DRIVER, ASSISTANT = (SEATS.index(s) for s in (
    SEATS[0], SEATS[1], SEATS[3], SEATS[4]))
BIG = np.int64(1) << 40
"""Larger than any sort key of the kernel: an impossible choice."""
SERIAL = np.int64(1) << 24
"""Larger than any man serial (a tie-break weight)."""

_MAN_CODE = {ManResult.UNHURT: 0, ManResult.LIGHT: 1, ManResult.SERIOUS: 2, ManResult.KILLED: 3}
_TANK_CODE = {TankResult.HIT: 1, TankResult.KNOCKED_OUT: 2, TankResult.WRITTEN_OFF: 3}


@dataclass(frozen=True)
class Tables:
    """Every number the kernel plays, read once from the platoon data (the rules' own file).

    Attributes:
        n: ``section.key`` → value, every parameter of the data file.
        skill: Skill drawn by 2d6 (column ``total − 2``); row ``k`` for a transfer after ``k``
            actions fought, the last row for a green man from the depot (progress 0).
        steadiness: The same for steadiness.
        man_result: STAND-IN man result code by tank result code (row) and 1d6 face (column).
        total_actions: Actions the campaign holds (progress = fought / this).
    """

    n: dict[str, int]
    skill: IntArray
    steadiness: IntArray
    man_result: IntArray
    total_actions: int

    @classmethod
    def from_state(cls, state: PlatoonState) -> Tables:
        """The tables of a starting platoon (its data with the scenario's parameters)."""
        rules = state.rules
        n = {f"{s}.{k}": p.value for s, body in rules.sections.items() for k, p in body.items()}
        total = len(state.action_days)
        progress = [Fraction(min(k, total), total) if total else Fraction(1)
                    for k in range(total + 1)] + [Fraction(0)]

        def table(attribute: str) -> IntArray:
            column = rules.section8[attribute]
            return np.array([[pd.attribute_value(column, p, t) for t in range(2, 13)]
                             for p in progress], dtype=np.int64)

        man = np.zeros((4, 7), dtype=np.int64)
        for result, faces in MAN_TABLES.items():
            for face, outcome in faces.items():
                man[_TANK_CODE[result], face] = _MAN_CODE[outcome]
        return cls(n, table("skill"), table("steadiness"), man, total)

    def days_window(self) -> tuple[int, int]:
        """Ring sizes (days) for man requests and for tanks on their way: one more than the
        longest delay, so a slot is free again before it is reused."""
        man = self.n["replacements.man_days_base"] + self.n["replacements.man_days_die"] + 1
        tank = max(self.n["replacements.tank_days_base"] + self.n["replacements.tank_days_die"],
                   6 + 2) + 1
        return man, tank


class Platoons:
    """``runs`` platoons, mutable, all on the same day of the same calendar."""

    def __init__(self, state: PlatoonState, runs: int, tables: Tables) -> None:
        crews = list(state.crews.values())
        self.runs, self.crews = runs, len(crews)
        c = self.crews
        self.occ = np.zeros((runs, c, S), dtype=np.bool_)
        self.fat = np.zeros((runs, c, S), dtype=np.int64)
        self.skill = np.zeros((runs, c, S), dtype=np.int64)
        self.stead = np.zeros((runs, c, S), dtype=np.int64)
        self.ser = np.zeros((runs, c, S), dtype=np.int64)
        order = {man_id: i for i, man_id in enumerate(state.men)}
        for ci, crew in enumerate(crews):
            for si, seat in enumerate(SEATS):
                man_id = crew.seats[seat]
                if man_id is not None:
                    man = state.men[man_id]
                    self.occ[:, ci, si] = True
                    self.fat[:, ci, si], self.skill[:, ci, si] = man.fatigue, man.skill
                    self.stead[:, ci, si], self.ser[:, ci, si] = man.steadiness, order[man_id]
        waiting = state.unassigned()
        slots = max(4, len(waiting))
        self.pocc = np.zeros((runs, slots), dtype=np.bool_)
        self.ptrade, self.pfat, self.pskill, self.pstead, self.pser = (
            np.zeros((runs, slots), dtype=np.int64) for _ in range(5))
        for i, man in enumerate(waiting):
            self.pocc[:, i] = True
            self.ptrade[:, i], self.pfat[:, i] = SEATS.index(man.trade), man.fatigue
            self.pskill[:, i], self.pstead[:, i] = man.skill, man.steadiness
            self.pser[:, i] = order[man.id]
        self.coh = np.array([[cr.cohesion for cr in crews]] * runs, dtype=np.int64)
        self.has_tank = np.array([[cr.tank is not None and state.tanks[cr.tank].status is
                                   TankStatus.WITH_CREW for cr in crews]] * runs, dtype=np.bool_)
        self.deferred = np.zeros((runs, c), dtype=np.bool_)
        self.park = np.full(runs, len(state.park()), dtype=np.int64)
        man_w, tank_w = tables.days_window()
        self.tank_ring = np.zeros((runs, tank_w), dtype=np.int64)
        for tank in state.tanks.values():
            if tank.status is TankStatus.ORDNANCE and tank.return_day is not None:
                self.tank_ring[:, tank.return_day % tank_w] += 1
        self.req = np.zeros((runs, man_w, c * S), dtype=np.int64)
        """Arrival day of the man requested when seat (crew, seat) emptied on a filing day (ring
        slot = filing day mod window); 0 = none."""
        if state.requests:
            raise NotImplementedError("a scenario that starts with requests pending")
        self.morale = np.full(runs, state.morale, dtype=np.int64)
        self.fought = np.full(runs, state.fought, dtype=np.int64)
        self.serial = np.full(runs, len(state.men), dtype=np.int64)
        lost = sum(m.status in (Status.KILLED, Status.EVACUATED) for m in state.men.values())
        self.counters: dict[str, IntArray] = {
            k: np.zeros(runs, dtype=np.int64) for k in (
                "killed", "evacuated", "light_wounds", "written_off", "new_men", "shaken")}
        self.start_lost = lost

    def grow_pool(self) -> None:
        """Twice the pool slots (a platoon with more men waiting than the pool holds)."""
        extra = self.pocc.shape[1]
        self.pocc = np.concatenate([self.pocc, np.zeros_like(self.pocc)], axis=1)
        for name in ("ptrade", "pfat", "pskill", "pstead", "pser"):
            old = getattr(self, name)
            setattr(self, name, np.concatenate(
                [old, np.zeros((self.runs, extra), dtype=np.int64)], axis=1))

    def pool_add(self, rows: IntArray, trade: IntArray, skill: IntArray,
                 stead: IntArray) -> None:
        """One new man waiting in each of ``rows`` (distinct campaigns), fresh (fatigue 0)."""
        while self.pocc[rows].all(axis=1).any():
            self.grow_pool()
        slot = np.argmin(self.pocc[rows], axis=1)
        self.pocc[rows, slot] = True
        self.ptrade[rows, slot], self.pskill[rows, slot] = trade, skill
        self.pstead[rows, slot], self.pfat[rows, slot] = stead, 0
        self.pser[rows, slot] = self.serial[rows]
        self.serial[rows] += 1
        self.counters["new_men"][rows] += 1

    def seat_from_pool(self, rows: IntArray, slot: IntArray, crew: IntArray, seat: IntArray,
                       loss: int) -> None:
        """Seat pool men; each is a stranger to the crew he joins (9.6 stand-in: a flat loss)."""
        self.occ[rows, crew, seat] = True
        for mine, pool in (("fat", "pfat"), ("skill", "pskill"), ("stead", "pstead"),
                           ("ser", "pser")):
            getattr(self, mine)[rows, crew, seat] = getattr(self, pool)[rows, slot]
        self.pocc[rows, slot] = False
        self.coh[rows, crew] = np.maximum(0, self.coh[rows, crew] - loss)

    def move(self, rows: IntArray, src_crew: IntArray, src_seat: IntArray, crew: IntArray,
             seat: IntArray) -> None:
        """Move seated men: their old seats empty; skill, steadiness, fatigue kept exactly."""
        for name in ("fat", "skill", "stead", "ser"):
            values = getattr(self, name)
            values[rows, crew, seat] = values[rows, src_crew, src_seat]
        self.occ[rows, src_crew, src_seat] = False
        self.occ[rows, crew, seat] = True

    def fit(self, min_crew: int) -> BoolArray:
        """Fit crews (14.7 as data [fit] defines it): a tank, enough men, someone to drive."""
        aboard = self.occ.sum(axis=2)
        drives = self.occ[:, :, DRIVER] | self.occ[:, :, ASSISTANT]
        fit: BoolArray = self.has_tank & (aboard >= min_crew) & drives
        return fit

    def serving_mean(self, values: IntArray) -> npt.NDArray[np.float64]:
        """Mean over seated men per campaign (NaN with nobody seated)."""
        count = self.occ.sum(axis=(1, 2))
        total = np.where(self.occ, values, 0).sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            mean: npt.NDArray[np.float64] = np.where(count > 0, total / np.maximum(count, 1),
                                                     np.nan)
        return mean


def draw_attributes(tables: Tables, gen: np.random.Generator, row: IntArray,
                    ) -> tuple[IntArray, IntArray]:
    """Skill and steadiness for new men (section 8 at the given table rows), 2d6 each."""
    n = len(row)
    totals = gen.integers(1, 7, size=(2, 2, n)).sum(axis=1) - 2
    return tables.skill[row, totals[0]], tables.steadiness[row, totals[1]]


def as_ints(values: Any) -> IntArray:
    """An int64 array."""
    return np.asarray(values, dtype=np.int64)
