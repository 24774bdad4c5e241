"""The platoon campaign page: roster, morale gauge, calendar, arrivals and park, each decision as
a form, the battle roster download and the battle report as a form or a file."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from rallypoint.core.errors import DataFileError, MalformedInputError
from rallypoint.core.ruleset import Decision, PolicyInfo
from rallypoint.core.visibility import EVERYTHING, Viewer
from rallypoint.rulesets.platoon.front.campaign import platoon_of
from rallypoint.rulesets.platoon.model import SEATS, Man, PlatoonState, Tank
from rallypoint.session import Campaign
from rallypoint.web.kit import Action, View, command_from_form, whole_number

TEMPLATE = "platoon/campaign.html"
TANK_RESULTS = ("unhit", "hit", "knocked_out", "written_off")
MAN_RESULTS = ("unhurt", "light", "serious", "killed")


def battle_roster(campaign: Campaign) -> dict[str, Any]:
    """The roster a battle receives (schema rallypoint.platoon.roster/1), as the CLI writes it."""
    from rallypoint.rulesets.platoon.battle import roster

    ruleset, state = platoon_of(campaign)
    return roster(state, ruleset.hooks)


COMMANDS = {
    "rest": "Use the Rest day button (under The day).",
    "report": "Fill in the battle report (above), or fight with the STAND-IN battle.",
    "year_end": "Use the Year end button (under The day).",
    "place": "Place the unassigned man with his form (under What next), or choose a serving "
             "man.",
}
"""What does each command kind on this page, for a refusal's ``instead`` (see ``web.words``)."""


DUE_ACTIONS = {
    "report": Action("Fill in the battle report", "#report"),
    "rest": Action("Rest day"),
    "year_end": Action("End the year (14.9)"),
}
"""How this page does each kind of command the rules say is due (``web.due``)."""


def field_for(at: tuple[str, ...]) -> str | None:
    """The report form's field a refusal's typed location names: ``("report", "tanks", CREW,
    X)`` → ``tank.CREW.X``, ``("report", "men", ID)`` → ``man.ID`` (the rules' ``where`` text is
    never split: a crew id may hold a dot)."""
    match at:
        case ("report", "tanks", crew, part):
            return f"tank.{crew}.{part}"
        case ("report", "men", man):
            return f"man.{man}"
    return None


DOWNLOADS = {"roster": battle_roster}
"""Files the page offers: name → what goes in ``NAME.json``."""


@dataclass(frozen=True)
class CrewRow:
    """One crew as the roster table shows it.

    Attributes:
        id: The crew's id.
        tank: Its tank, if it has one (with the crew, or at ordnance).
        tank_id: That tank's id.
        cohesion: The crew's cohesion (14.4).
        men: Each seat in the seats' order, with the man in it (``None``: empty).
        fit: Whether the crew is fit to fight today (its tank present and crewed).
    """

    id: str
    tank: Tank | None
    tank_id: str | None
    cohesion: int
    men: tuple[tuple[str, Man | None], ...]
    fit: bool


@dataclass(frozen=True)
class PlatoonPage:
    """Everything the platoon page template shows, read from the typed state (no text the rules
    wrote is parsed).

    Attributes:
        s: The platoon's JSON view (calendar, morale, men by id for the decision forms).
        crews: The roster, crew by crew.
        park: Tanks without a crew, by id.
        unassigned: Men without a seat, in the roster's order.
        pending: The lieutenant's pending decisions, each a form.
        policies: The named policies that may answer them.
        tank_results: A tank's results the report form offers.
        man_results: A man's results the report form offers.
    """

    s: Mapping[str, Any]
    crews: tuple[CrewRow, ...]
    park: Mapping[str, Tank]
    unassigned: tuple[Man, ...]
    pending: tuple[Decision, ...]
    policies: tuple[PolicyInfo[PlatoonState], ...]
    tank_results: tuple[str, ...] = TANK_RESULTS
    man_results: tuple[str, ...] = MAN_RESULTS


def page(campaign: Campaign) -> PlatoonPage:
    """The platoon page's view of a campaign."""
    ruleset, state = platoon_of(campaign)
    fit = set(state.fit_crews())
    crews = tuple(CrewRow(
        id=crew.id, tank=state.tanks.get(crew.tank) if crew.tank else None, tank_id=crew.tank,
        cohesion=crew.cohesion, fit=crew.id in fit,
        men=tuple((seat.value, _man(state, crew.seats[seat])) for seat in SEATS))
        for crew in state.crews.values())
    return PlatoonPage(
        s=ruleset.state_json(state), crews=crews,
        park={t.id: t for t in state.tanks.values() if t.crew is None},
        unassigned=tuple(state.unassigned()), pending=tuple(ruleset.pending(state)),
        policies=tuple(ruleset.policies()))


def _man(state: PlatoonState, man_id: str | None) -> Man | None:
    return state.men.get(man_id) if man_id else None


def context(campaign: Campaign, viewer: Viewer = EVERYTHING) -> dict[str, Any]:
    """Everything the platoon page template shows (:class:`PlatoonPage`, field by field)."""
    shown = page(campaign)
    return {f.name: getattr(shown, f.name) for f in fields(shown)}


def translate(items: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Form fields → command JSON; the battle report form and a seat choice have their own shape.

    Report fields: ``tank.CREW.result|ordnance_days|cohesion``, ``tank.CREW.bailed_out``,
    ``man.ID`` (a man's result), ``objective``, ``enemy_withdrawn``, ``report_json`` (pasted
    JSON) or ``report_file`` (an uploaded file), either of which wins when given. A seat
    choice: ``seat_choice`` = ``CREW|SEAT``.
    """
    pairs = list(items)
    given = dict(pairs)
    if given.get("kind") == "report":
        return {"kind": "report", "report": _report(pairs)}
    plain = [(k, v) for k, v in pairs if k != "seat_choice"]
    command = command_from_form(plain)
    if "seat_choice" in given:
        crew, _, seat = given["seat_choice"].partition("|")
        command.update(crew=crew, seat=seat)
    return command


def _report(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    given = dict(pairs)
    uploaded = given.get("report_file", "").strip()
    if uploaded:
        return report_from_text(uploaded, given.get("report_file.filename", "report.json"))
    pasted = given.get("report_json", "").strip()
    if pasted:
        return report_from_text(pasted, "report.json")
    tanks: dict[str, dict[str, Any]] = {}
    men = []
    for name, value in pairs:
        part = name.split(".")
        if part[0] == "tank" and len(part) == 3:
            entry = tanks.setdefault(part[1], {"crew": part[1]})
            if part[2] == "bailed_out":
                entry["bailed_out"] = True
            elif part[2] == "result":
                entry["result"] = value
            elif value.strip():
                entry[part[2]] = whole_number(name, value)
        elif part[0] == "man" and len(part) == 2 and value != "unhurt":
            men.append({"man": part[1], "result": value})
    for entry in tanks.values():
        if entry.get("result") != "knocked_out":
            entry.pop("ordnance_days", None)  # only a knocked-out tank goes to ordnance
    day = given.get("day", "")
    return {"day": whole_number("day", day) if day else None, "tanks": list(tanks.values()),
            "men": men, "objective": "objective" in given,
            "enemy_withdrawn": "enemy_withdrawn" in given}


def report_from_text(text: str, filename: str) -> dict[str, Any]:
    """A battle report file's content (JSON, or TOML by its name) as the command's ``report``.

    Raises:
        DataFileError: The file is not JSON (or TOML), or not an object.
    """
    if filename.lower().endswith(".toml"):
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise DataFileError(f"bad TOML: {exc}", where=filename,
                                fix="Fix the TOML, or paste JSON.") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"bad JSON: {exc.msg}", where=f"{filename}:{exc.lineno}",
                            fix="Fix the JSON on that line.") from None
    if not isinstance(value, dict):
        raise MalformedInputError("a battle report is a JSON object", where=filename,
                                  fix="See docs/platoon-battle.md for the schema.")
    return value


VIEW = View(template=TEMPLATE, context=context, commands=COMMANDS, due_actions=DUE_ACTIONS,
            field_for=field_for, downloads=DOWNLOADS, translate=translate)
"""The platoon page (its plugin's ``web`` part)."""
