"""The fast platoon kernel: whole campaigns of many platoons at once, in numpy arrays.

A second implementation of the platoon's campaign layer (14.1–14.9) and of the STAND-IN battle,
for the lab only: ``simulate platoon --engine fast`` (the default). The rules engine
(``--engine rules``, :mod:`.lab_sim`) plays the ruleset's own transitions one
roll at a time and records every roll; this kernel plays the same rules on a structure of arrays
— one row per campaign, all campaigns of a chunk on the same day — and records nothing but the
lab's metrics. It reads every number from the same data file (with the scenario's parameters)
and builds section 8's draws with the rules' own ``attribute_value``.

Why structure of arrays rather than a mutable per-campaign copy: the campaigns of a chunk share
one calendar, so every step of a day (battle rolls, fatigue, cohesion, morale, the evening) is a
handful of array operations over all of them, and the rare branching steps (a man lost, a man
placed, a seat filled) are array operations over the campaigns that need them, one decision per
campaign per round. A mutable Python copy still pays Python per man per day (measured 26× the
engine in the issue's prototype, short of the 30× goal); arrays pay it per chunk per day.

It is held to the engine by ``tests/test_lab_platoon_fast.py``: every summary metric and every
per-day series of the two, on the same scenario and parameters, compared by two-sample tests.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from rallypoint.lab.kit import Chunk, FloatArray, generator
from rallypoint.rulesets.platoon.front.lab_fast_people import decide_all, land_men, year_end
from rallypoint.rulesets.platoon.front.lab_fast_state import BoolArray, Platoons, Tables
from rallypoint.rulesets.platoon.front.lab_setup import (
    SERIES,
    Prepared,
    check_policy,
    check_readings,
    finish,
    prepared,
)
from rallypoint.rulesets.platoon.model import PlatoonState, TankStatus

Floats = npt.NDArray[np.float64]


def _fight(p: Platoons, t: Tables, gen: np.random.Generator, day: int, fit: BoolArray,
           fights: BoolArray, intensity: int) -> BoolArray:
    """A STAND-IN battle (``battle.standin_battle``) taken back by ``days.fight`` (14.1–14.6)
    for the campaigns that fight; returns the seats whose men fought (for the evening)."""
    n = t.n
    crews = fit & fights[:, None]
    total = gen.integers(1, 7, size=(2, *crews.shape)).sum(axis=0) + intensity
    result = np.select([total >= n["standin.tank_written_off"],
                        total >= n["standin.tank_knocked_out"], total >= n["standin.tank_hit"]],
                       [3, 2, 1], 0)
    result = np.where(crews, result, 0)
    aboard = p.occ & crews[:, :, None]
    faces = gen.integers(1, 7, size=aboard.shape)
    man = np.where(aboard, t.man_result[result[:, :, None], faces], 0)
    lost = (man >= 2).sum(axis=2)
    # 14.1: battle-start stress is fatigue; a platoon is shaken when its fighting men's mean is
    # at or above the named section 9 stand-in.
    count = aboard.sum(axis=(1, 2))
    start = np.where(aboard, p.fat, 0).sum(axis=(1, 2))
    p.counters["shaken"] += fights & (count > 0) & (start >= n["fatigue.shaken_stress"] * count)
    # 14.1 fatigue for every man who fought; 14.2 steadiness for each who survives.
    gain = (n["fatigue.fight"] + (result >= 1) * n["fatigue.tank_hit"]
            + (result >= 2) * n["fatigue.knocked_out"])
    p.fat[...] = np.where(aboard, np.clip(p.fat + gain[:, :, None], 0, 100), p.fat)
    p.stead[...] = np.where(aboard & (man <= 1),
                            np.minimum(100, p.stead + n["steadiness.per_battle"]), p.stead)
    p.coh[...] = np.where(crews, np.clip(p.coh - 5 * lost, 0, 100), p.coh)
    _tanks_lost(p, t, gen, day, result)
    _men_lost(p, t, gen, day, man)
    objective = gen.integers(1, 7, size=p.runs) >= n["standin.objective"]
    withdrew = gen.integers(1, 7, size=p.runs) >= n["standin.enemy_withdrawn"]
    tanks = ((result == 2) | (result == 3)).sum(axis=1)
    killed = (man == 3).sum(axis=(1, 2))
    p.morale[...] = np.where(fights, _morale_after(
        p.morale, n, -n["morale.tank_lost"] * tanks - n["morale.man_killed"] * killed,
        n["morale.objective"] * objective, n["morale.enemy_withdrawn"] * withdrew), p.morale)
    p.fought += fights
    seats: BoolArray = p.occ & crews[:, :, None]
    return seats


def _morale_after(morale: npt.NDArray[np.int64], n: Mapping[str, int],
                  *changes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``days._morale_after``: the battle's changes (losses, objective, withdrawn) netted then
    bounded once, or (``morale.bound_each_step``) bounded after each. Losses are bounded
    together: successive losses clipped one by one end where their sum clipped once does."""
    cap = n["morale.cap"]
    if n.get("morale.bound_each_step", 0) != 1:
        netted: npt.NDArray[np.int64] = np.clip(morale + sum(changes), 0, cap)
        return netted
    for change in changes:
        morale = np.clip(morale + change, 0, cap)
    return morale


def _tanks_lost(p: Platoons, t: Tables, gen: np.random.Generator, day: int,
                result: npt.NDArray[np.int64]) -> None:
    """14.6: a knocked-out tank goes to ordnance for 1d6 + 2 days and comes back to the park; a
    written-off one files a request for a tank (base + 1dN days)."""
    n = t.n
    ring = p.tank_ring.shape[1]
    rows, crews = np.nonzero(result >= 2)
    if not len(rows):
        return
    wo = result[rows, crews] == 3
    back = np.where(wo, n["replacements.tank_days_base"]
                    + gen.integers(1, n["replacements.tank_days_die"] + 1, size=len(rows)),
                    gen.integers(1, 7, size=len(rows)) + 2)
    np.add.at(p.tank_ring, (rows, (day + back) % ring), 1)
    np.add.at(p.counters["written_off"], rows[wo], 1)
    p.has_tank[rows, crews] = False


def _men_lost(p: Platoons, t: Tables, gen: np.random.Generator, day: int,
              man: npt.NDArray[np.int64]) -> None:
    """14.3, 14.6: a serious wound or a death empties the seat and files a request for the trade
    of that seat, landing base + 1dN days later."""
    n = t.n
    gone = man >= 2
    p.counters["light_wounds"] += (man == 1).sum(axis=(1, 2))
    p.counters["killed"] += (man == 3).sum(axis=(1, 2))
    p.counters["evacuated"] += (man == 2).sum(axis=(1, 2))
    if not gone.any():
        return
    delay = n["replacements.man_days_base"] + gen.integers(
        1, n["replacements.man_days_die"] + 1, size=gone.shape)
    slot = day % p.req.shape[1]
    p.req[:, slot, :] = np.where(gone.reshape(p.runs, -1), day + delay.reshape(p.runs, -1), 0)
    p.occ &= ~gone


def _evening(p: Platoons, t: Tables, fought: BoolArray) -> None:
    """``days.evening``: a man who fought today gets back the night's little, every other man
    most of it (14.1); cohesion up a little for each crew together (14.4)."""
    n = t.n
    pct = np.where(fought, n["fatigue.night_recovery"], n["fatigue.rest_recovery"])
    # A day out of action's share rounds up when fatigue.rest_rounds_up is on ('rested men start
    # fresh'); the night's rounds down.
    up = n.get("fatigue.rest_rounds_up", 0) == 1
    p.fat -= np.where(fought | (not up), p.fat * pct // 100, -(-p.fat * pct // 100))
    rest = n["fatigue.rest_recovery"]
    p.pfat -= -(-p.pfat * rest // 100) if up else p.pfat * rest // 100
    together = p.occ.any(axis=2)
    p.coh[...] = np.where(together, np.maximum(p.coh, np.minimum(
        n["cohesion.cap"], p.coh + n["cohesion.per_day"])), p.coh)


def _morning(p: Platoons, t: Tables, gen: np.random.Generator, day: int) -> None:
    """``days.morning`` of ``day``: men due land, tanks due wait in the park."""
    p.deferred[...] = False
    land_men(p, t, gen, day)
    slot = day % p.tank_ring.shape[1]
    p.park += p.tank_ring[:, slot]
    p.tank_ring[:, slot] = 0


def campaigns(begin: Prepared, intensity: int, runs: int, gen: np.random.Generator,
              tables: Tables | None = None) -> dict[str, FloatArray]:
    """``runs`` campaigns from ``begin`` (a :class:`~.lab_setup.Prepared`):
    series as runs × days and totals per run, as :func:`.lab_sim.campaign_once` records them."""
    state = begin.state
    t = tables or Tables.from_state(state)
    waits = check_policy(begin.policy.name)
    check_readings(state)
    p = Platoons(state, runs, t)
    action_days = set(state.action_days)
    out = {name: np.zeros((runs, begin.days)) for name in SERIES}
    final_stead = np.full(runs, np.nan)
    min_crew, min_tanks = t.n["fit.min_crew"], t.n["fit.min_tanks"]
    for d in range(begin.days):
        day = state.day + d
        decide_all(p, t, waits)
        lost = p.counters["killed"] + p.counters["evacuated"]
        men = p.counters["new_men"].copy()
        fit = p.fit(min_crew)
        action = day in action_days
        withdrawn = np.full(runs, action) & (fit.sum(axis=1) < min_tanks)
        fights = np.full(runs, action) & ~withdrawn
        fought = (_fight(p, t, gen, day, fit, fights, intensity) if fights.any()
                  else np.zeros_like(p.occ))
        rest = ~fights
        p.morale[...] = np.where(rest, np.minimum(p.morale + t.n["morale.rest_day"],
                                                  t.n["morale.cap"]), p.morale)
        p.fought += withdrawn
        _evening(p, t, fought)
        _morning(p, t, gen, day + 1)
        decide_all(p, t, waits)
        if (d + 1) % begin.year_days == 0:
            year_end(p, t, gen, day + 1)
            decide_all(p, t, waits)
        after = p.fit(min_crew)
        out["fit_tanks"][:, d] = after.sum(axis=1)
        out["mean_fatigue"][:, d] = np.nan_to_num(p.serving_mean(p.fat))
        out["max_fatigue"][:, d] = np.where(p.occ, p.fat, 0).max(axis=(1, 2))
        out["mean_cohesion"][:, d] = p.coh.mean(axis=1)
        out["morale"][:, d] = p.morale
        out["men_lost"][:, d] = p.counters["killed"] + p.counters["evacuated"] - lost
        out["replacements"][:, d] = p.counters["new_men"] - men
        out["withdrawn"][:, d] = withdrawn
        final_stead = p.serving_mean(p.stead)
    series = {f"series:{k}": v for k, v in out.items()}
    c = p.counters
    totals = {"killed": c["killed"], "evacuated": c["evacuated"],
              "light_wounds": c["light_wounds"], "actions_fought": p.fought - state.fought,
              "tanks_written_off": c["written_off"] + _written_off(state),
              "days_shaken": c["shaken"], "final_steadiness": final_stead}
    return {**series, **{k: np.asarray(v, dtype=np.float64) for k, v in totals.items()}}


_TABLES: dict[str, Tables] = {}
"""Tables per spec, per process (section 8's draws are exact fractions: worth building once)."""


def fast_chunk(chunk: Chunk) -> dict[str, FloatArray]:
    """Worker: ``chunk.runs`` campaigns with the fast kernel (same chunk seeds as the engine)."""
    spec = chunk.spec
    begin = prepared(spec)
    key = repr(spec)
    if key not in _TABLES:
        _TABLES[key] = Tables.from_state(begin.state)
    raw = campaigns(begin, spec.intensity, chunk.runs, generator(chunk.seed), _TABLES[key])
    return finish(raw)


def _written_off(state: PlatoonState) -> int:
    return sum(tank.status is TankStatus.WRITTEN_OFF for tank in state.tanks.values())
