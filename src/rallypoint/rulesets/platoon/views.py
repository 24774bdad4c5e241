"""What a platoon looks like from outside: JSON state, event summaries, log lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rallypoint.core.ruleset import Decision
from rallypoint.rulesets.platoon.choices import CommanderChoices, PlaceChoices, TankChoices
from rallypoint.rulesets.platoon.model import SEATS, PlatoonState, Status, TankStatus, Wound

if TYPE_CHECKING:
    from rallypoint.rulesets.platoon.events import PlatoonEvent


def _man_json(state: PlatoonState, man_id: str) -> dict[str, Any]:
    m = state.men[man_id]
    return {"id": m.id, "name": m.name, "age": m.age, "trade": m.trade.value, "skill": m.skill,
            "traits": dict(m.traits), "fatigue": m.fatigue, "steadiness": m.steadiness,
            "wound": m.wound.value, "fit_day": m.fit_day, "years_with_crew": m.years_with_crew,
            "trust": m.trust, "status": m.status.value, "crew": m.crew,
            "seat": m.seat.value if m.seat else None, "lieutenant": m.lieutenant,
            "transfer": m.transfer}


def state_json(state: PlatoonState) -> dict[str, Any]:
    """The platoon as JSON: calendar, morale, crews and seats, men, tanks, requests."""
    total = len(state.action_days)
    return {
        "ruleset": "platoon", "name": state.name, "day": state.day, "year": state.year,
        "action_today": state.action_today, "withdrawn": state.withdrawn(),
        "actions": {"fought": state.fought, "total": total,
                    "progress": f"{state.progress.numerator}/{state.progress.denominator}"},
        "morale": state.morale, "fit_tanks": state.fit_crews(),
        "crews": {c.id: {"tank": c.tank, "cohesion": c.cohesion,
                         "seats": {s.value: c.seats[s] for s in SEATS}}
                  for c in state.crews.values()},
        "men": {m: _man_json(state, m) for m in state.men},
        "unassigned": [m.id for m in state.unassigned()],
        "tanks": {t.id: {"name": t.name, "status": t.status.value, "crew": t.crew,
                         "return_day": t.return_day} for t in state.tanks.values()},
        "requests": [{"id": r.id, "kind": r.kind, "trade": r.trade.value if r.trade else None,
                      "filed_day": r.filed_day, "arrival_day": r.arrival_day,
                      "reason": r.reason} for r in state.requests],
    }


def _who(state: PlatoonState, man_id: str) -> str:
    man = state.men.get(man_id)
    return f"{man.name} ({man_id})" if man else man_id


def decision_lines(state: PlatoonState, decision: Decision) -> list[str]:
    """A pending decision in words, its choices by name (``Baker (m002)``), for a listing."""
    o = decision.options
    lines = [f"{decision.key}: {decision.prompt}"]
    if decision.kind == "place":
        place = PlaceChoices.model_validate(o)
        seats = [f"crew {s.crew} {s.seat.replace('_', ' ')}" for s in place.seats]
        lines.append(f"  empty seats: {', '.join(seats)}")
    elif decision.kind == "commander":
        commander = CommanderChoices.model_validate(o)
        own = ", ".join(_who(state, m) for m in commander.own) or "none"
        other = ", ".join(_who(state, m) for m in commander.other) or "none"
        lines += [f"  its own men: {own}", f"  from another crew: {other}", "  or wait"]
    elif decision.kind == "tank":
        lines.append(f"  crews without a tank: {', '.join(TankChoices.model_validate(o).crews)}")
    return lines


def summary(before: PlatoonState, after: PlatoonState) -> list[str]:
    """Lines saying what changed between two states (stored in the event for the log)."""
    lines = []
    if after.day != before.day:
        lines.append(f"day {before.day} → {after.day}")
    for man_id, m in after.men.items():
        old = before.men.get(man_id)
        if old is None:
            where = "from another unit" if m.transfer else "from the depot"
            lines.append(f"{m.name} ({m.trade.value}, skill {m.skill}) arrives {where}")
            continue
        if m.status is not old.status and m.status in (Status.KILLED, Status.EVACUATED):
            lines.append(f"{m.name} {m.status.value}")
        elif m.wound is Wound.LIGHT and old.wound is Wound.NONE:
            lines.append(f"{m.name} lightly wounded, fit on day {m.fit_day}")
        elif m.light_wounds > old.light_wounds:
            # 14.3: a second light wound on a man already wounded; the later fit day holds.
            lines.append(f"{m.name} lightly wounded again, fit on day {m.fit_day}")
        elif m.wound is Wound.NONE and old.wound is Wound.LIGHT:
            lines.append(f"{m.name} fit again")
        if (m.crew, m.seat) != (old.crew, old.seat) and m.crew is not None and m.seat:
            lines.append(f"{m.name} takes crew {m.crew}'s {m.seat.value} seat")
    for tank_id, t in after.tanks.items():
        old_t = before.tanks.get(tank_id)
        if old_t is None:
            where = f"joins crew {t.crew}" if t.crew else "arrives in the park"
            lines.append(f"tank {t.name} ({t.id}) {where}")
        elif t.status is not old_t.status:
            extra = f" until day {t.return_day}" if t.status is TankStatus.ORDNANCE else ""
            label = {"park": "back in the park", "with_crew": "with crew",
                     "ordnance": "at ordnance"}.get(t.status.value,
                                                    t.status.value.replace("_", " "))
            lines.append(f"tank {t.name} {label}{extra}"
                         + (f" (crew {t.crew})" if t.crew else ""))
    new_requests = [r for r in after.requests if r not in before.requests]
    for r in new_requests:
        what = r.trade.value if r.trade else "tank"
        lines.append(f"request: {what.replace('_', ' ')} ({r.reason}), due day {r.arrival_day}")
    if after.morale != before.morale:
        lines.append(f"morale {before.morale} → {after.morale}")
    if after.year != before.year:
        lines.append(f"year {before.year} → {after.year}")
    return lines


def _head(command: dict[str, Any]) -> str:
    """What the player asked for, in words (never ``key=value``)."""
    kind = command.get("kind")
    seat = str(command.get("seat", "")).replace("_", " ")
    if kind == "report":
        return f"battle report for day {command['report']['day']}"
    if kind == "standin":
        return f"stand-in battle, intensity {command.get('intensity', 1)}"
    if kind == "place":
        return f"place {command['man']} in crew {command['crew']}'s {seat} seat"
    if kind == "commander":
        return f"{command['man']} to crew {command['crew']}'s commander seat"
    if kind == "wait":
        return f"crew {command['crew']}'s commander seat waits"
    if kind == "tank":
        return f"tank {command['tank']} to crew {command['crew']}"
    words = {"rest": "rest day", "year_end": "the year's end (14.9)"}
    return words.get(str(kind), str(kind).replace("_", " "))


def describe(event: PlatoonEvent) -> str:
    """The log line of an event: the command in words, then what changed."""
    head = _head(dict(event.command))
    rolls = len(event.rolls)
    lines = [head + (f" ({rolls} roll{'s' if rolls != 1 else ''})" if rolls else "")]
    lines += ["  " + line for line in event.summary]
    return "\n".join(lines)
