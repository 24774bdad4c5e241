"""The battle boundary: the roster handed to a battle, the report taken back, and the STAND-IN
battle generator.

The battle itself is outside rallypoint. The roster (schema ``rallypoint.platoon.roster/1``) and
the report (``rallypoint.platoon.report/1``) are documented in ``docs/platoon-battle.md``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field

from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.core.models import FrozenModel
from rallypoint.dice import D6, ChanceNode, fraction_text
from rallypoint.rulesets.platoon import dice as pd
from rallypoint.rulesets.platoon.fixes import FixKind, fix
from rallypoint.rulesets.platoon.model import SEATS, PlatoonState, Status
from rallypoint.rulesets.platoon.section9 import Hooks

ROSTER_SCHEMA = "rallypoint.platoon.roster/1"
REPORT_SCHEMA = "rallypoint.platoon.report/1"


class TankResult(StrEnum):
    """What happened to a tank in the battle."""

    UNHIT = "unhit"
    HIT = "hit"
    KNOCKED_OUT = "knocked_out"
    WRITTEN_OFF = "written_off"


class ManResult(StrEnum):
    """What happened to a man in the battle."""

    UNHURT = "unhurt"
    LIGHT = "light"
    SERIOUS = "serious"
    KILLED = "killed"


class TankReport(FrozenModel):
    """One fighting tank's outcome."""

    crew: str
    result: TankResult = TankResult.UNHIT
    ordnance_days: int | None = Field(default=None, ge=1, le=60)
    bailed_out: bool = False
    cohesion: int = Field(ge=0, le=100)


class ManReport(FrozenModel):
    """One man's outcome (men left out are unhurt)."""

    man: str
    result: ManResult = ManResult.UNHURT


class BattleReport(FrozenModel):
    """What a battle gives back to the campaign layer."""

    schema_: str = Field(default=REPORT_SCHEMA, alias="schema")
    day: int
    tanks: tuple[TankReport, ...]
    men: tuple[ManReport, ...] = ()
    objective: bool = False
    enemy_withdrawn: bool = False
    generated_by: str | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


def roster(state: PlatoonState, hooks: Hooks) -> dict[str, Any]:
    """The roster handed to a battle: per tank and seat, the man and what the battle needs."""
    shift = hooks.threshold_shift(state.morale, state.rules)
    fit = set(state.fit_crews())
    tanks = []
    for crew in state.crews.values():
        seats: dict[str, Any] = {}
        for seat in SEATS:
            man_id = crew.seats[seat]
            if man_id is None:
                seats[seat.value] = None
                continue
            man = state.men[man_id]
            # 14.3: no wound flag — the battle sees only his reduced skill.
            seats[seat.value] = {
                "man": man.id, "name": man.name, "starting_stress": man.fatigue,
                "stress_gain_multiplier": fraction_text(hooks.stress_gain_multiplier(
                    man, state.rules)),
                "threshold_shift": fraction_text(shift),
                "skill": hooks.effective_skill(man, state.rules), "traits": dict(man.traits),
            }
        tank = state.tanks[crew.tank] if crew.tank else None
        tanks.append({
            "crew": crew.id, "tank": tank.name if tank else None, "fights": crew.id in fit,
            "cohesion": crew.cohesion, "seats": seats,
            "empty_seats": [s.value for s in SEATS if crew.seats[s] is None],
        })
    return {"schema": ROSTER_SCHEMA, "day": state.day, "action": state.action_today,
            "withdrawn": state.withdrawn(), "morale": state.morale,
            "shaken_stress": state.rules.n("fatigue", "shaken_stress"), "tanks": tanks}


def check_report(state: PlatoonState, report: BattleReport) -> None:
    """Refuse a report that contradicts the roster; nothing is changed."""
    if report.schema_ != REPORT_SCHEMA:
        raise MalformedInputError(f"report schema {report.schema_!r} is not {REPORT_SCHEMA!r}",
                                  fix="Write the report in the documented schema.")
    if report.day != state.day:
        raise IllegalNowError(f"the report is for day {report.day}, the platoon is on day "
                              f"{state.day}", fix="Report today's action.")
    if not state.action_today:
        raise IllegalNowError(f"day {state.day} holds no action",
                              fix=fix(FixKind.REST_NO_ACTION),
                              instead="rest")
    if state.withdrawn():
        raise IllegalNowError(
            f"the platoon has {len(state.fit_crews())} fit tank(s) and is withdrawn to refit: "
            "it did not fight", fix=fix(FixKind.REST_WITHDRAWN),
            instead="rest")
    fit = set(state.fit_crews())
    seen: set[str] = set()
    for t in report.tanks:
        if t.crew not in state.crews:
            raise MalformedInputError(f"no crew {t.crew!r}", fix="Use crew ids from the roster.")
        if t.crew not in fit:
            raise IllegalNowError(f"crew {t.crew} did not fight (its tank is not fit)",
                                  fix="Report only tanks marked fights=true in the roster.")
        if t.crew in seen:
            raise MalformedInputError(f"crew {t.crew} is reported twice", fix="Report it once.")
        seen.add(t.crew)
        if (t.result is TankResult.KNOCKED_OUT) != (t.ordnance_days is not None):
            raise MalformedInputError(f"crew {t.crew}: ordnance_days goes with knocked_out only",
                                      at=("report", "tanks", t.crew, "ordnance_days"),
                                      fix="Give ordnance_days for a knocked-out tank, else none.")
    if seen != fit:
        raise MalformedInputError(f"the report leaves out crew(s) {', '.join(sorted(fit - seen))}",
                                  fix="Report every fighting tank (its end cohesion at least).")
    fighting = {m for c in fit for m in state.crews[c].seats.values() if m}
    men: set[str] = set()
    for m in report.men:
        man = state.men.get(m.man)
        if man is None:
            raise MalformedInputError(f"no man {m.man!r} in this platoon",
                                      fix="Use man ids from the roster.")
        if man.status in (Status.KILLED, Status.EVACUATED):
            raise IllegalNowError(f"{man.name} ({m.man}) is {man.status.value}: he cannot fight",
                                  fix="Report only men on the roster.")
        if m.man in men:
            raise MalformedInputError(f"{man.name} ({m.man}) is reported twice (in two tanks?)",
                                      fix="Report each man once.")
        men.add(m.man)
        if m.man not in fighting:
            raise IllegalNowError(f"{man.name} ({m.man}) was not in a fighting tank",
                                  fix="Report only men seated in tanks that fought.")


MAN_TABLES: dict[TankResult, dict[int, ManResult]] = {
    TankResult.HIT: {6: ManResult.LIGHT},
    TankResult.KNOCKED_OUT: {5: ManResult.LIGHT, 6: ManResult.SERIOUS},
    TankResult.WRITTEN_OFF: {4: ManResult.LIGHT, 5: ManResult.SERIOUS, 6: ManResult.KILLED},
}
"""STAND-IN: 1d6 face → what happens to each man aboard a tank with that result (else unhurt)."""


def standin_battle(state: PlatoonState, intensity: int, dice: pd.Recorder) -> BattleReport:
    """STAND-IN battle generator (not a rule of the seed): enough to run a campaign unattended.

    Per fighting tank 2d6 + intensity: hit, knocked out (ordnance 1d6+2 days) or written off by
    the thresholds in data [standin]; each man aboard a hit tank rolls 1d6 on :data:`MAN_TABLES`;
    the crew ends 5 cohesion lower per man lost; objective and enemy withdrawal 1d6 each.
    """
    rules = state.rules
    hit, ko, wo = (rules.n("standin", k) for k in ("tank_hit", "tank_knocked_out",
                                                   "tank_written_off"))
    def tank_reading(v: int) -> str:
        return (TankResult.WRITTEN_OFF if v >= wo else TankResult.KNOCKED_OUT if v >= ko else
                TankResult.HIT if v >= hit else TankResult.UNHIT).value

    # The laws are worked out once per battle, not once per roll.
    tank_law = pd.standin_tank_node("", intensity).outcomes(tank_reading)
    man_laws = {result: ChanceNode("", D6).outcomes(
        lambda v, t=table: t.get(v, ManResult.UNHURT).value)  # type: ignore[misc]
        for result, table in MAN_TABLES.items()}
    tanks, men = [], []
    for crew_id in state.fit_crews():
        crew = state.crews[crew_id]
        r = dice.roll(pd.standin_tank_node(f"stand-in battle: crew {crew_id}'s tank", intensity),
                      reading=tank_reading, law=tank_law)
        result = TankResult(r.outcome)
        days = None
        if result is TankResult.KNOCKED_OUT:
            days = dice.roll(ChanceNode(f"stand-in: crew {crew_id} days at ordnance", D6)).total + 2
        lost = 0
        if result is not TankResult.UNHIT:
            table = MAN_TABLES[result]
            for man_id in (m for m in crew.seats.values() if m):
                mr = dice.roll(ChanceNode(f"stand-in: {state.men[man_id].name}", D6),
                               reading=lambda v, t=table: t.get(  # type: ignore[misc]
                                   v, ManResult.UNHURT).value, law=man_laws[result])
                if mr.outcome != ManResult.UNHURT.value:
                    men.append(ManReport(man=man_id, result=ManResult(mr.outcome)))
                    lost += mr.outcome in (ManResult.SERIOUS.value, ManResult.KILLED.value)
        tanks.append(TankReport(crew=crew_id, result=result, ordnance_days=days,
                                bailed_out=result in (TankResult.KNOCKED_OUT,
                                                      TankResult.WRITTEN_OFF),
                                cohesion=max(0, crew.cohesion - 5 * lost)))
    obj = dice.roll(ChanceNode("stand-in: objective taken or held", D6)).total \
        >= rules.n("standin", "objective")
    wd = dice.roll(ChanceNode("stand-in: enemy withdrew", D6)).total \
        >= rules.n("standin", "enemy_withdrawn")
    return BattleReport(day=state.day, tanks=tuple(tanks), men=tuple(men), objective=obj,
                        enemy_withdrawn=wd, generated_by=f"stand-in, intensity {intensity}")
