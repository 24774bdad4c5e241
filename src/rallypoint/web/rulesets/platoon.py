"""The platoon campaign page: roster, morale gauge, calendar, arrivals and park, each decision as
a form, the battle roster download and the battle report as a form or a file."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from rallypoint.core.errors import DataFileError, MalformedInputError
from rallypoint.core.visibility import EVERYTHING, Viewer
from rallypoint.session import Campaign
from rallypoint.web import forms
from rallypoint.web.due import Action
from rallypoint.web.rulesets import View

TEMPLATE = "platoon/campaign.html"
SEATS = ("commander", "gunner", "loader", "driver", "assistant_driver")
TANK_RESULTS = ("unhit", "hit", "knocked_out", "written_off")
MAN_RESULTS = ("unhurt", "light", "serious", "killed")


def battle_roster(campaign: Campaign) -> dict[str, Any]:
    """The roster a battle receives (schema rallypoint.platoon.roster/1), as the CLI writes it."""
    from rallypoint.rulesets.platoon.battle import roster

    return roster(campaign.state, campaign.ruleset.hooks)  # type: ignore[attr-defined]


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


def field_for(where: str) -> str | None:
    """The report form's field a refusal names: ``report.tanks.CREW.X`` → ``tank.CREW.X``,
    ``report.men.ID`` → ``man.ID``."""
    part = where.split(".")
    if part[:2] == ["report", "tanks"] and len(part) == 4:
        return f"tank.{part[2]}.{part[3]}"
    if part[:2] == ["report", "men"] and len(part) == 3:
        return f"man.{part[2]}"
    return None


DOWNLOADS = {"roster": battle_roster}
"""Files the page offers: name → what goes in ``NAME.json``."""


def lab_tables(campaign: Campaign) -> list[tuple[str, list[tuple[str, Any]]]]:
    """The platoon's rolls at the shipped defaults, exact (the lab page)."""
    from rallypoint.lab.odds import platoon

    odds = platoon()
    tables = [(f"{title} (days: chance)", list(odds[key].items())) for key, title in (
        ("man_arrival_days", "A replacement man arrives after"),
        ("tank_arrival_days", "A replacement tank arrives after"),
        ("light_wound_days", "A light wound heals after"))]
    tables.append(("Transfers", [("a man asks to transfer", odds["transfer"])]))
    return tables


def context(campaign: Campaign, viewer: Viewer = EVERYTHING) -> dict[str, Any]:
    """Everything the platoon page template shows."""
    state = campaign.ruleset.state_json(campaign.state)
    fit = set(state["fit_tanks"])
    crews = []
    for crew_id, crew in state["crews"].items():
        tank = state["tanks"].get(crew["tank"]) if crew["tank"] else None
        men = [(seat, state["men"].get(man) if man else None) for seat, man in
               crew["seats"].items()]
        crews.append({"id": crew_id, "tank": tank, "tank_id": crew["tank"],
                      "cohesion": crew["cohesion"], "men": men, "fit": crew_id in fit})
    park = {tid: t for tid, t in state["tanks"].items() if t["crew"] is None}
    return {"s": state, "crews": crews, "park": park,
            "unassigned": [state["men"][m] for m in state["unassigned"]],
            "pending": campaign.ruleset.pending(campaign.state),
            "policies": campaign.ruleset.policies(),
            "tank_results": TANK_RESULTS, "man_results": MAN_RESULTS}


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
    command = forms.command_from_form(plain)
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
                entry[part[2]] = forms._int(name, value)
        elif part[0] == "man" and len(part) == 2 and value != "unhurt":
            men.append({"man": part[1], "result": value})
    for entry in tanks.values():
        if entry.get("result") != "knocked_out":
            entry.pop("ordnance_days", None)  # only a knocked-out tank goes to ordnance
    day = given.get("day", "")
    return {"day": forms._int("day", day) if day else None, "tanks": list(tanks.values()),
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
            field_for=field_for, downloads=DOWNLOADS, lab_tables=lab_tables, translate=translate)
"""The platoon page (its plugin's ``web`` part)."""
