"""Platoon simulation: whole campaign years through the real platoon rules, with the STAND-IN
battle.

The scalar engine plays every day with the ruleset's own transition (the one implementation
``decide`` and ``apply`` share): on an action day with two or more fit tanks the platoon fights a
``StandInBattle(intensity)`` — this project's STAND-IN battle generator, not a rule of the seed —
otherwise it rests; every pending decision (placing men, commander seats, park tanks) is
answered by a named policy (``by_trade`` by default); after each campaign year (the scenario's
calendar, 30 days in the shipped Italy scenario) comes the year's end (14.9). Dice come from a
:class:`~rallypoint.lab.rollers.NumpyRoller`. The setup both engines share is
:mod:`.lab_setup`; :func:`simulate_platoon` chooses the engine.

Runs skip what only a stored campaign needs (sealing each event, replaying it through ``apply``):
the conformance test already proves ``decide`` and ``apply`` agree, and skipping them makes a
run about twice as fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rallypoint.core.ruleset import Command, PolicyInfo
from rallypoint.lab.kit import (
    Backend,
    Chunk,
    FloatArray,
    NumpyRoller,
    SimResult,
    concat,
    generator,
    make_chunks,
    run_chunks,
)
from rallypoint.rulesets.platoon import days as day_rules
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.battle import ManResult, standin_battle
from rallypoint.rulesets.platoon.commands import RestDay, YearEnd
from rallypoint.rulesets.platoon.front.lab_fast import fast_chunk
from rallypoint.rulesets.platoon.front.lab_setup import (
    SERIES,
    STANDIN_NOTE,
    PlatoonSpec,
    Prepared,
    finish,
    prepare,
    prepared,
)
from rallypoint.rulesets.platoon.model import Man, PlatoonState, Status, TankStatus
from rallypoint.rulesets.platoon.ruleset import RULESET as PLATOON
from rallypoint.rulesets.platoon.ruleset import transition


def _step(state: PlatoonState, command: Command, roller: NumpyRoller) -> PlatoonState:
    return transition(state, command, pd.Recorder(roller), PLATOON.hooks)


def _decide_all(state: PlatoonState, policy: PolicyInfo[PlatoonState],
                roller: NumpyRoller) -> PlatoonState:
    while decisions := PLATOON.pending(state):
        state = _step(state, policy.decide(state, decisions[0], 0), roller)
    return state


def _seated(state: PlatoonState) -> list[Man]:
    return [m for m in state.men.values() if m.status is Status.SERVING]


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else math.nan


def _lost(state: PlatoonState) -> int:
    return sum(m.status in (Status.KILLED, Status.EVACUATED) for m in state.men.values())


def _shaken(state: PlatoonState) -> bool:
    """Whether the men about to fight start, on average, at or above the shaken stress (14.1)."""
    fighting = [state.men[m].fatigue for c in state.fit_crews()
                for m in state.crews[c].seats.values() if m]
    return bool(fighting) and _mean(fighting) >= state.rules.n("fatigue", "shaken_stress")


def _battle(state: PlatoonState, intensity: int, roller: NumpyRoller,
            tally: dict[str, int]) -> PlatoonState:
    """The StandInBattle transition (``standin_battle`` then ``days.fight``), keeping the report
    for the light wounds it gives."""
    dice = pd.Recorder(roller)
    tally["shaken"] += _shaken(state)
    report = standin_battle(state, intensity, dice)
    tally["light_wounds"] += sum(m.result is ManResult.LIGHT for m in report.men)
    return day_rules.fight(state, report, dice, PLATOON.hooks)


def _evening_values(state: PlatoonState, withdrawn: bool, lost: int,
                    men: int) -> tuple[float, ...]:
    seated = _seated(state)
    fatigue = [m.fatigue for m in seated]
    cohesion = [c.cohesion for c in state.crews.values()]
    return (len(state.fit_crews()), _mean(fatigue) if fatigue else 0.0, max(fatigue, default=0),
            _mean(cohesion), state.morale, _lost(state) - lost, len(state.men) - men,
            float(withdrawn))


def campaign_once(begin: Prepared, intensity: int, roller: NumpyRoller,
                  tally: dict[str, int] | None = None) -> tuple[FloatArray, PlatoonState]:
    """One campaign: a (days × series) array in :data:`SERIES` order, and the final state
    (``tally`` counts light wounds and shaken days)."""
    tally = tally if tally is not None else {"light_wounds": 0, "shaken": 0}
    state = begin.state
    out = np.zeros((begin.days, len(SERIES)), dtype=np.float64)
    for d in range(begin.days):
        state = _decide_all(state, begin.policy, roller)
        lost, men = _lost(state), len(state.men)
        withdrawn = state.withdrawn()
        if state.action_today and not withdrawn:
            state = _battle(state, intensity, roller, tally)
        else:
            state = _step(state, RestDay(expected_version=0), roller)
        state = _decide_all(state, begin.policy, roller)
        if (d + 1) % begin.year_days == 0:
            state = _decide_all(_step(state, YearEnd(expected_version=0), roller), begin.policy,
                                roller)
        out[d] = _evening_values(state, withdrawn, lost, men)
    return out, state


def platoon_chunk(chunk: Chunk) -> dict[str, FloatArray]:
    """Worker: ``chunk.runs`` campaigns through the rules; series as runs × days, totals per
    run."""
    spec: PlatoonSpec = chunk.spec
    begin = prepared(spec)
    roller = NumpyRoller(generator(chunk.seed))
    runs: list[FloatArray] = []
    totals: dict[str, list[float]] = {k: [] for k in (
        "killed", "evacuated", "light_wounds", "actions_fought", "tanks_written_off",
        "days_shaken", "final_steadiness")}
    start = begin.state
    for _ in range(chunk.runs):
        tally = {"light_wounds": 0, "shaken": 0}
        series, last = campaign_once(begin, spec.intensity, roller, tally)
        runs.append(series)
        for key, status in (("killed", Status.KILLED), ("evacuated", Status.EVACUATED)):
            totals[key].append(_count(last, status) - _count(start, status))
        totals["light_wounds"].append(tally["light_wounds"])
        totals["days_shaken"].append(tally["shaken"])
        totals["actions_fought"].append(last.fought - start.fought)
        totals["tanks_written_off"].append(
            sum(t.status is TankStatus.WRITTEN_OFF for t in last.tanks.values()))
        totals["final_steadiness"].append(_mean([m.steadiness for m in _seated(last)]))
    stacked = np.stack(runs)
    raw = {f"series:{name}": stacked[:, :, i] for i, name in enumerate(SERIES)}
    raw.update({k: np.array(v, dtype=np.float64) for k, v in totals.items()})
    return finish(raw)


def _count(state: PlatoonState, status: Status) -> int:
    return sum(m.status is status for m in state.men.values())



def simulate_platoon(spec: PlatoonSpec, runs: int, entropy: int, chunks: int, backend: Backend,
                     progress: Callable[[int], None] | None = None) -> SimResult:
    """Many platoon campaigns under one parameter set."""
    begin = prepare(spec)
    worker = fast_chunk if spec.engine == "fast" else platoon_chunk
    parts = run_chunks(worker, make_chunks(spec, runs, entropy, chunks), backend, progress)
    joined = concat(parts)
    series = {k.split(":", 1)[1]: v for k, v in joined.items() if k.startswith("series:")}
    metrics = {k: v for k, v in joined.items() if not k.startswith("series:")}
    return SimResult(
        simulation="platoon",
        parameters={"scenario": Path(spec.scenario).name, "intensity": spec.intensity,
                    "days": begin.days, "year_days": begin.year_days, "policy": spec.policy,
                    "engine": spec.engine, "battle": "STAND-IN",
                    "overrides": dict(spec.parameters)},
        entropy=entropy, chunks=chunks, metrics=metrics, series=series,
        notes=[STANDIN_NOTE, "per-day values are taken each evening after the day's decisions"])
