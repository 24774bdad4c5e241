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

import math
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
from rallypoint.rulesets.platoon import days as day_rules
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.battle import ManResult, standin_battle
from rallypoint.rulesets.platoon.commands import RestDay, YearEnd
from rallypoint.rulesets.platoon.model import Man, PlatoonState, Status, TankStatus
from rallypoint.rulesets.platoon.ruleset import RULESET as PLATOON
from rallypoint.rulesets.platoon.ruleset import transition

SERIES = ("fit_tanks", "mean_fatigue", "max_fatigue", "mean_cohesion", "morale", "men_lost",
          "replacements", "withdrawn")
"""Per-day values (after the day and its decisions, i.e. on the next morning): fit tanks, the
seated men's mean and highest fatigue, the crews' mean cohesion, morale, men lost (killed or
evacuated), men joining the platoon (arrivals and Naples' green men), withdrawn (1/0)."""

METRICS = ("men_lost", "killed", "evacuated", "light_wounds", "replacements", "withdrawals",
           "actions_fought", "tanks_written_off", "final_morale", "mean_fit_tanks",
           "fatigue_mean", "fatigue_peak", "days_shaken", "final_cohesion", "final_steadiness")
"""Per-run totals: men lost by cause (killed, evacuated = seriously wounded) and light wounds;
fatigue's mean over the days and its peak (any seated man, any evening); days shaken (actions
fought with the fighting men's mean starting stress at or above ``fatigue.shaken_stress``);
cohesion (mean over crews) and steadiness (mean over seated men) at the end."""

ENGINES = ("fast", "rules")
"""``fast``: the array kernel (:mod:`rallypoint.lab.platoon_fast`); ``rules``: the ruleset's own
transitions, one roll at a time (this module)."""

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
        engine: ``fast`` (the array kernel) or ``rules`` (the ruleset's transitions).
    """

    scenario: str
    intensity: int = 1
    years: int = 1
    days: int | None = None
    policy: str = "by_trade"
    parameters: dict[str, Any] = field(default_factory=dict)
    engine: str = "fast"


@dataclass(frozen=True)
class Prepared:
    """What every run of a chunk starts from."""

    state: PlatoonState
    policy: PolicyInfo
    days: int
    year_days: int


def prepare(spec: PlatoonSpec) -> Prepared:
    """Validate the spec and build the starting platoon (the roster is the scenario's own)."""
    from rallypoint.lab.variants import created_with
    from rallypoint.rulesets.platoon.data import default_data
    from rallypoint.session import start

    if spec.engine not in ENGINES:
        raise MalformedInputError(f"no platoon engine {spec.engine!r}",
                                  fix=f"Use one of: {', '.join(ENGINES)}.")
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
    # The lab lays out every year's days above and ends each year itself, so the player's
    # year-end guard and calendar renewal (14.9) stay out of its way.
    lab_years = {"year.once_after_calendar": 0, "year.renew_calendar": 0}
    scenario = {**scenario, "platoon": platoon_info}
    names = {f"{s}.{k}" for s, body in default_data().sections.items() for k in body}
    state = start(created_with(ruleset, scenario, {**lab_years, **spec.parameters},
                               names)).state
    if spec.engine == "fast":
        from rallypoint.lab.platoon_fast import check_policy, check_readings

        check_policy(spec.policy)
        check_readings(state)
    return Prepared(state, policies[spec.policy], days, year_days)


_PREPARED: dict[str, Prepared] = {}


def prepared(spec: PlatoonSpec) -> Prepared:
    """:func:`prepare`, once per spec per process (a worker runs many chunks of one spec)."""
    key = repr(spec)
    if key not in _PREPARED:
        _PREPARED[key] = prepare(spec)
    return _PREPARED[key]


def _step(state: PlatoonState, command: Command, roller: NumpyRoller) -> PlatoonState:
    return transition(state, command, pd.Recorder(roller), PLATOON.hooks)


def _decide_all(state: PlatoonState, policy: PolicyInfo, roller: NumpyRoller) -> PlatoonState:
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


def finish(raw: dict[str, FloatArray]) -> dict[str, FloatArray]:
    """Per-run metrics from the series and an engine's own totals, the same for both engines,
    in :data:`METRICS` order after the series."""
    col = {k.split(":", 1)[1]: v for k, v in raw.items() if k.startswith("series:")}
    derived = {
        "men_lost": col["men_lost"].sum(axis=1),
        "replacements": col["replacements"].sum(axis=1),
        "withdrawals": col["withdrawn"].sum(axis=1),
        "final_morale": col["morale"][:, -1],
        "mean_fit_tanks": col["fit_tanks"].mean(axis=1),
        "fatigue_mean": col["mean_fatigue"].mean(axis=1),
        "fatigue_peak": col["max_fatigue"].max(axis=1),
        "final_cohesion": col["mean_cohesion"][:, -1],
    }
    merged = {**raw, **derived}
    return {**{f"series:{k}": col[k] for k in SERIES}, **{k: merged[k] for k in METRICS}}


def simulate_platoon(spec: PlatoonSpec, runs: int, entropy: int, chunks: int, backend: Backend,
                     progress: Callable[[int], None] | None = None) -> SimResult:
    """Many platoon campaigns under one parameter set."""
    begin = prepare(spec)
    worker = platoon_chunk
    if spec.engine == "fast":
        from rallypoint.lab.platoon_fast import fast_chunk

        worker = fast_chunk
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
