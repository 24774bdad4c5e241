"""The TCS campaign page: formations → companies → counters, piles, sheets with their odds,
what is due this turn, and each pending distribution as a form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rallypoint.core.visibility import (
    EVERYTHING,
    Viewer,
    declaration_of,
    redact_state,
    visible_decisions,
)
from rallypoint.rulesets.tcs.front.campaign import tcs_state
from rallypoint.rulesets.tcs.outlook import (
    Due,
    DueKind,
    due_now,
    fo_outlook,
    sheet_outlook,
)
from rallypoint.session import Campaign, Decision
from rallypoint.session.ownership import offered
from rallypoint.web.kit import Action, SeatPreview, View

TEMPLATE = "tcs/campaign.html"
PREVIEW_TEMPLATE = "tcs/preview.html"
PARTS = {"sheets": "tcs/sheets.html"}
"""Parts of the page served alone (``/c/ID/part/NAME``)."""
OUTLOOK_TURNS = 12
"""How many coming turns the odds table of a pending sheet looks ahead."""


@dataclass(frozen=True)
class Counter:
    """A counter as the page lists it (public: its steps, pile and hex are on the table).

    Attributes:
        id: The counter id.
        pile: Where it is (``map``, ``dead``, ``very_dead``, ``fo``).
        steps: Steps it has.
        full: Steps it has at full strength.
        hex: Its hex on the map (``None``: off the map or not placed).
    """

    id: str
    pile: str
    steps: int
    full: int
    hex: str | None


@dataclass(frozen=True)
class Company:
    """A company as the page lists it."""

    id: str
    name: str
    counters: tuple[Counter, ...]
    piles: dict[str, int]
    sheet: str | None


def _companies(state: dict[str, Any]) -> dict[str, list[Company]]:
    """Companies grouped by formation, in scenario order."""
    on_sheet = {c: sid for sid, s in state["sheets"].items() if s["status"] == "pending"
                for c in s["companies"]}
    grouped: dict[str, list[Company]] = {}
    for cid, comp in state["companies"].items():
        counters = tuple(Counter(i, v["pile"], v["steps"], v["full"], v["hex"])
                         for i, v in comp["counters"].items())
        grouped.setdefault(comp["formation"], []).append(
            Company(cid, comp["name"], counters, comp["piles"], on_sheet.get(cid)))
    return grouped


COMMANDS = {
    "fo": "Roll for the dead FOs first (under Turn), or tick “skip this hour's FO roll” on "
          "the turn form.",
    "turn": "Advance the turn (under Turn) first.",
    "distribute": "Record the pending distribution first (its form is at the top).",
}
"""What does each command kind on this page, for a refusal's ``instead`` (see ``web.words``)."""

DUE_ACTIONS = {
    "check": Action("Check it now (seeded dice)", field="s:sheet"),
    "fo": Action("Roll for the dead FOs"),
}
"""How this page does each kind of command the rules say is due (``web.due``)."""

DECISION_LINK = "#distribute-{n}"
"""Where the N-th pending distribution's form is."""

FIELDS = {
    "attest": "Check the centers on the map, then tick the box that attests them.",
    "leave_center": "Tick “may leave its recovery center” to do that, or move within 2 hexes "
                    "of the center.",
    "centers": "Give its center (a hex such as 23.15) under Centers.",
}
"""The web's fix for a refusal whose ``where`` is one of these command fields."""


def due(campaign: Campaign, state: dict[str, Any], pending: list[Decision]) -> list[str]:
    """What the player may do this turn, one line each (the library's ``due_now``, as the CLI's
    ``show`` says it: sheets to check, the FO roll, attacked companies), then pending decisions;
    only what concerns the sheets in ``state``, the viewer's view."""
    lines = [d.text for d in due_now(tcs_state(campaign)) if _shown(d, state["sheets"])]
    lines += [d.prompt for d in pending]
    return lines


def _shown(item: Due, sheets: dict[str, Any]) -> bool:
    """Whether a due item concerns only what the viewer sees: a check of one of their sheets,
    an attack on a company of one of their sheets (it tells that the company recovers), the FO
    roll (on the table)."""
    if item.sheet:
        return item.sheet in sheets
    if item.kind is DueKind.NO_ORDERS:
        return any(item.subject in s["companies"] for s in sheets.values())
    return True


def context(campaign: Campaign, viewer: Viewer = EVERYTHING) -> dict[str, Any]:
    """Everything the TCS page template shows, as ``viewer`` may see it (another side's
    sheets, their odds and its pending distributions are left out)."""
    declared = declaration_of(campaign.ruleset.name)
    full = campaign.ruleset.state_json(campaign.state)
    state = redact_state(full, campaign.created.scenario, viewer, declared)
    own = tcs_state(campaign)
    outlooks = {sid: sheet_outlook(own, sid, OUTLOOK_TURNS)
                for sid, s in state["sheets"].items() if s["status"] == "pending"}
    fo = fo_outlook(own)
    everyone: list[Decision] = campaign.ruleset.pending(campaign.state)
    shown = visible_decisions([d.model_dump() for d in everyone], full,
                              campaign.created.scenario, viewer, declared)
    pending = [everyone[n] for n in shown]
    return {**_forms(campaign, viewer, full, state),
        "s": state,
        "formations": _companies(state),
        "outlooks": outlooks,
        "fo": fo,
        "due": due(campaign, state, pending),
        "due_next": tuple(d.typed() for d in due_now(own)
                          if _shown(d, state["sheets"])),
        "pending": pending,
        "policies": campaign.ruleset.policies(),
    }


def _forms(campaign: Campaign, viewer: Viewer, full: dict[str, Any], state: dict[str, Any]
           ) -> dict[str, Any]:
    """What each form offers ``viewer``: only what their seat may command (the ruleset's
    ownership declaration, :func:`rallypoint.session.ownership.offered`)."""
    def own(kind: str, field: str, values: list[str], many: bool = False) -> list[str]:
        return offered(campaign, viewer, kind, field, values, many=many, state=full)

    on_map = [k.id for comps in _companies(state).values() for comp in comps
              for k in comp.counters if k.pile == "map"]
    recovering = [c for sh in state["sheets"].values() if sh["status"] == "pending"
                  for c in sh["companies"]]
    members = sorted({c["formation"] for c in state["companies"].values()}) \
        + list(state["companies"])
    return {"loss_counters": own("loss", "counter", on_map),
            "move_counters": own("move", "counter", on_map),
            "attack_members": own("attack", "members", recovering, many=True),
            "recovering": own("reassign", "members", recovering, many=True),
            "member_ids": own("write_sheet", "members", members, many=True),
            "morale_formations": own("morale", "formation", list(state["morale"]))}


def preview_context(campaign: Campaign, result: SeatPreview) -> dict[str, Any]:
    """The company's counters before → after a previewed distribution (both states as the seat
    may see them)."""
    company = getattr(result.command, "company", None)
    companies = result.before["companies"]
    if result.after is None or company not in companies:
        return {"rows": []}
    old = companies[company]["counters"]
    new = result.after["companies"][company]["counters"]
    return {"rows": [{"id": i, "before": v, "after": new[i], "changed": v != new[i]}
                     for i, v in old.items()]}


LAB_TEMPLATE = "tcs/lab_panel.html"
"""The TCS panel of the lab page: the sheets, each with its exact odds."""

VIEW = View(template=TEMPLATE, context=context, parts=PARTS, commands=COMMANDS, fields=FIELDS,
            due_actions=DUE_ACTIONS, decision_link=DECISION_LINK,
            preview_template=PREVIEW_TEMPLATE, preview_context=preview_context,
            lab_template=LAB_TEMPLATE, lab_context=context)
"""The TCS page (its plugin's ``web`` part)."""
