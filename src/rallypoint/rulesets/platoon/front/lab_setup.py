"""What every platoon simulation starts from and ends with, whichever engine plays it.

A :class:`PlatoonSpec` names the scenario, the battle's intensity, the calendar, the policy and
the engine; :func:`prepare` checks it and builds the starting platoon (refusing what the fast
kernel does not play before a run starts); :func:`finish` turns either engine's raw columns into
the same metrics. The engines themselves (:mod:`.lab_sim`'s rules engine, :mod:`.lab_fast`'s
array kernel) import this module, and :mod:`.lab_sim` chooses between them: neither imports the
other's setup back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rallypoint.core.erased import ErasedRuleset
from rallypoint.core.errors import MalformedInputError
from rallypoint.core.registry import get_ruleset
from rallypoint.core.ruleset import PolicyInfo
from rallypoint.lab.kit import FloatArray
from rallypoint.rulesets.platoon.front.campaign import platoon_state
from rallypoint.rulesets.platoon.front.lab_fast_people import WAITING_POLICIES
from rallypoint.rulesets.platoon.model import PlatoonState
from rallypoint.rulesets.platoon.scenario import PlatoonInfo

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
"""``fast``: the array kernel (:mod:`.lab_fast`); ``rules``: the ruleset's own transitions, one
roll at a time (:mod:`.lab_sim`)."""

MAX_DAYS = 3650
"""The longest calendar a platoon scenario accepts."""

STANDIN_NOTE = ("battles are this project's STAND-IN battle generator (2d6 + intensity per tank), "
                "not a rule of the seed: read losses as illustrative")


def platoon() -> ErasedRuleset:
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
    policy: PolicyInfo[PlatoonState]
    days: int
    year_days: int


def prepare(spec: PlatoonSpec) -> Prepared:
    """Validate the spec and build the starting platoon (the roster is the scenario's own)."""
    from rallypoint.lab.kit import created_with
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
    info = PlatoonInfo.model_validate(scenario["platoon"])
    year_days = info.days
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
    platoon_info = info.model_copy(update={"days": max(days, year_days)}).model_dump(mode="json")
    # The lab lays out every year's days above and ends each year itself, so the player's
    # year-end guard and calendar renewal (14.9) stay out of its way.
    lab_years = {"year.once_after_calendar": 0, "year.renew_calendar": 0}
    scenario = {**scenario, "platoon": platoon_info}
    names = {f"{s}.{k}" for s, body in default_data().sections.items() for k in body}
    state = platoon_state(start(created_with(ruleset, scenario, {**lab_years, **spec.parameters},
                                             names)))
    if spec.engine == "fast":
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


def check_policy(policy: str) -> bool:
    """Whether the policy's commander seats wait (the kernel knows the engine's two policies)."""
    if policy not in WAITING_POLICIES:
        raise MalformedInputError(f"the fast platoon kernel does not play policy {policy!r}",
                                  fix="Use --engine rules for it, or one of: "
                                      f"{', '.join(WAITING_POLICIES)}.")
    return WAITING_POLICIES[policy]


def check_readings(state: PlatoonState) -> None:
    """The kernel plays the shipped reading of each switch it does not mirror (docs/rules/
    platoon.md, "Readings"); another is refused rather than silently played the default way."""
    from rallypoint.rulesets.platoon.data import SWITCHED_READINGS

    off = [f"{s}.{k}" for s, k in SWITCHED_READINGS if not state.rules.reading(s, k, before=True)]
    if off:
        raise MalformedInputError(
            f"the fast platoon kernel plays only the default reading of {', '.join(off)}",
            fix="Use --engine rules for another reading.")


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
