"""Platoon simulation: whole campaign years through the real platoon rules, with the STAND-IN
battle.

The scalar engine plays every day with the ruleset's own transition (the one implementation
``decide`` and ``apply`` share): on an action day with two or more fit tanks the platoon fights a
``StandInBattle(intensity)`` — this project's STAND-IN battle generator, not a rule of the seed —
otherwise it rests; every pending decision (placing men, commander seats, park tanks) is
answered by a named policy (``by_trade`` by default); after each campaign year (the scenario's
calendar, 30 days in the shipped Italy scenario) comes the year's end (14.9). Dice come from a
:class:`~rallypoint.lab.rollers.NumpyRoller`.

Runs skip what only a stored campaign needs (sealing each event, replaying it through ``apply``):
the conformance test already proves ``decide`` and ``apply`` agree, and skipping them makes a
run about twice as fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rallypoint.core.errors import MalformedInputError
from rallypoint.core.ruleset import Command, PolicyInfo, Ruleset, get_ruleset
from rallypoint.lab.backend import Backend, Chunk, concat, make_chunks, run_chunks
from rallypoint.lab.results import FloatArray, SimResult
from rallypoint.lab.rollers import NumpyRoller, generator
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.commands import RestDay, StandInBattle, YearEnd
from rallypoint.rulesets.platoon.model import PlatoonState, Status, TankStatus
from rallypoint.rulesets.platoon.ruleset import RULESET as PLATOON
from rallypoint.rulesets.platoon.ruleset import transition

SERIES = ("fit_tanks", "mean_fatigue", "morale", "men_lost", "replacements", "withdrawn")
"""Per-day values (after the day and its decisions, i.e. on the next morning)."""

METRICS = ("men_lost", "replacements", "withdrawals", "actions_fought", "tanks_written_off",
           "final_morale", "mean_fit_tanks")
"""Per-run totals."""

MAX_DAYS = 3650
"""The longest calendar a platoon scenario accepts."""

STANDIN_NOTE = ("battles are this project's STAND-IN battle generator (2d6 + intensity per tank), "
                "not a rule of the seed: read losses as illustrative")


def platoon() -> Ruleset[Any]:
    """The registered platoon ruleset."""
    return get_ruleset("platoon")


def scenario_path(name: str | None) -> Path:
    """A platoon scenario: a path, else the shipped Italy 1944 scenario."""
    if name:
        path = Path(name)
        if path.is_file():
            return path
        for shipped in platoon().example_scenarios():
            if shipped.stem.startswith(name):
                return shipped
        raise MalformedInputError(f"no scenario file {name!r}",
                                  fix="Give a platoon scenario path, or leave it out.")
    return Path(platoon().example_scenarios()[0])


@dataclass(frozen=True)
class PlatoonSpec:
    """A platoon simulation (picklable).

    Attributes:
        scenario: Platoon scenario file.
        intensity: STAND-IN battle intensity (0–6).
        years: Campaign years to play (each the scenario's calendar, then the year's end).
        days: Days to play instead of whole years (the year's end still comes after each
            calendar's worth of days).
        policy: Policy name for every decision.
        parameters: ``[parameters]`` overrides of the platoon data (``"fatigue.fight" = 25``).
    """

    scenario: str
    intensity: int = 1
    years: int = 1
    days: int | None = None
    policy: str = "by_trade"
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Prepared:
    """What every run of a chunk starts from."""

    state: PlatoonState
    policy: PolicyInfo
    days: int
    year_days: int


def prepare(spec: PlatoonSpec) -> Prepared:
    """Validate the spec and build the starting platoon (the roster is the scenario's own)."""
    from rallypoint.core.campaign import created_from_scenario, start

    ruleset = platoon()
    policies = {p.name: p for p in ruleset.policies()}
    if spec.policy not in policies:
        raise MalformedInputError(f"no platoon policy {spec.policy!r}",
                                  fix=f"Use one of: {', '.join(policies)}.")
    if not 0 <= spec.intensity <= 6:
        raise MalformedInputError(f"--intensity {spec.intensity} is outside 0..6",
                                  fix="Give a stand-in battle intensity from 0 to 6.")
    scenario = ruleset.load_scenario(Path(spec.scenario))
    year_days = int(scenario["platoon"]["days"])
    if spec.days is not None and spec.days < 1:
        raise MalformedInputError(f"--days {spec.days}: play at least one day",
                                  fix="Give --days 1 or more.")
    if spec.days is None and spec.years < 1:
        raise MalformedInputError(f"--years {spec.years}: play at least one year",
                                  fix="Give --years 1 or more.")
    days = spec.days if spec.days is not None else spec.years * year_days
    if days > MAX_DAYS:
        raise MalformedInputError(f"{days} days is more than a campaign calendar holds",
                                  fix=f"Play at most {MAX_DAYS} days (--years or --days).")
    # The calendar repeats its weekly pattern for as many days as are played.
    platoon_info = {**scenario["platoon"], "days": max(days, year_days)}
    scenario = {**scenario, "platoon": platoon_info,
                "parameters": {**(scenario.get("parameters") or {}), **spec.parameters}}
    state = start(created_from_scenario(ruleset, scenario, "simulation", seed="lab")).state
    return Prepared(state, policies[spec.policy], days, year_days)


def _step(state: PlatoonState, command: Command, roller: NumpyRoller) -> PlatoonState:
    return transition(state, command, pd.Recorder(roller), PLATOON.hooks)


def _decide_all(state: PlatoonState, policy: PolicyInfo, roller: NumpyRoller) -> PlatoonState:
    while decisions := PLATOON.pending(state):
        state = _step(state, policy.decide(state, decisions[0], 0), roller)
    return state


def _serving_fatigue(state: PlatoonState) -> float:
    serving = [m.fatigue for m in state.men.values() if m.status is Status.SERVING]
    return sum(serving) / len(serving) if serving else 0.0


def _lost(state: PlatoonState) -> int:
    return sum(m.status in (Status.KILLED, Status.EVACUATED) for m in state.men.values())


def campaign_once(begin: Prepared, intensity: int,
                  roller: NumpyRoller) -> tuple[FloatArray, PlatoonState]:
    """One campaign: a (days × series) array in :data:`SERIES` order, and the final state."""
    state = begin.state
    out = np.zeros((begin.days, len(SERIES)), dtype=np.float64)
    for d in range(begin.days):
        state = _decide_all(state, begin.policy, roller)
        lost, men = _lost(state), len(state.men)
        withdrawn = state.withdrawn()
        if state.action_today and not withdrawn:
            command: Command = StandInBattle(expected_version=0, intensity=intensity)
        else:
            command = RestDay(expected_version=0)
        state = _decide_all(_step(state, command, roller), begin.policy, roller)
        if (d + 1) % begin.year_days == 0:
            state = _decide_all(_step(state, YearEnd(expected_version=0), roller), begin.policy,
                                roller)
        out[d] = (len(state.fit_crews()), _serving_fatigue(state), state.morale,
                  _lost(state) - lost, len(state.men) - men, float(withdrawn))
    return out, state


def platoon_chunk(chunk: Chunk) -> dict[str, FloatArray]:
    """Worker: ``chunk.runs`` campaigns; series as runs × days, totals per run."""
    spec: PlatoonSpec = chunk.spec
    begin = prepare(spec)
    roller = NumpyRoller(generator(chunk.seed))
    runs, fought, written_off = [], [], []
    for _ in range(chunk.runs):
        series, last = campaign_once(begin, spec.intensity, roller)
        runs.append(series)
        fought.append(last.fought - begin.state.fought)
        written_off.append(sum(t.status is TankStatus.WRITTEN_OFF for t in last.tanks.values()))
    stacked = np.stack(runs)
    col = {name: stacked[:, :, i] for i, name in enumerate(SERIES)}
    out = {f"series:{name}": values for name, values in col.items()}
    out.update({
        "men_lost": col["men_lost"].sum(axis=1),
        "replacements": col["replacements"].sum(axis=1),
        "withdrawals": col["withdrawn"].sum(axis=1),
        "actions_fought": np.array(fought, dtype=np.float64),
        "tanks_written_off": np.array(written_off, dtype=np.float64),
        "final_morale": col["morale"][:, -1],
        "mean_fit_tanks": col["fit_tanks"].mean(axis=1),
    })
    return out


def simulate_platoon(spec: PlatoonSpec, runs: int, entropy: int, chunks: int, backend: Backend,
                     progress: Callable[[int], None] | None = None) -> SimResult:
    """Many platoon campaigns under one parameter set."""
    begin = prepare(spec)
    parts = run_chunks(platoon_chunk, make_chunks(spec, runs, entropy, chunks), backend, progress)
    joined = concat(parts)
    series = {k.split(":", 1)[1]: v for k, v in joined.items() if k.startswith("series:")}
    metrics = {k: v for k, v in joined.items() if not k.startswith("series:")}
    return SimResult(
        simulation="platoon",
        parameters={"scenario": Path(spec.scenario).name, "intensity": spec.intensity,
                    "days": begin.days, "year_days": begin.year_days, "policy": spec.policy,
                    "battle": "STAND-IN", "overrides": dict(spec.parameters)},
        entropy=entropy, chunks=chunks, metrics=metrics, series=series,
        notes=[STANDIN_NOTE, "per-day values are taken each evening after the day's decisions"])
