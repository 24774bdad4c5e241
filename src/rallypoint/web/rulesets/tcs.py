"""The TCS campaign page: formations → companies → counters, piles, sheets with their odds,
what is due this turn, and each pending distribution as a form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rallypoint.rulesets.tcs.outlook import (
    FoOutlook,
    SheetOutlook,
    due_now,
    fo_outlook,
    sheet_outlook,
)
from rallypoint.session import Campaign, Decision
from rallypoint.session.preview import Preview

TEMPLATE = "tcs/campaign.html"
PREVIEW_TEMPLATE = "tcs/preview.html"
PARTS = {"sheets": "tcs/sheets.html"}
"""Parts of the page served alone (``/c/ID/part/NAME``)."""
OUTLOOK_TURNS = 12
"""How many coming turns the odds table of a pending sheet looks ahead."""


@dataclass(frozen=True)
class Company:
    """A company as the page lists it."""

    id: str
    name: str
    counters: list[dict[str, Any]]
    piles: dict[str, int]
    sheet: str | None


def _companies(state: dict[str, Any]) -> dict[str, list[Company]]:
    """Companies grouped by formation, in scenario order."""
    on_sheet = {c: sid for sid, s in state["sheets"].items() if s["status"] == "pending"
                for c in s["companies"]}
    grouped: dict[str, list[Company]] = {}
    for cid, comp in state["companies"].items():
        counters = [{"id": i, **v} for i, v in comp["counters"].items()]
        grouped.setdefault(comp["formation"], []).append(
            Company(cid, comp["name"], counters, comp["piles"], on_sheet.get(cid)))
    return grouped


def due(campaign: Campaign, outlooks: dict[str, SheetOutlook], fo: FoOutlook) -> list[str]:
    """What the player may do this turn, one line each (the library's ``due_now``, as the CLI's
    ``show`` says it: sheets to check, the FO roll, attacked companies), then pending decisions."""
    lines = [d.text for d in due_now(campaign.state)]
    lines += [d.prompt for d in campaign.ruleset.pending(campaign.state)]
    return lines


def context(campaign: Campaign) -> dict[str, Any]:
    """Everything the TCS page template shows."""
    state = campaign.ruleset.state_json(campaign.state)
    outlooks = {sid: sheet_outlook(campaign.state, sid, OUTLOOK_TURNS)
                for sid, s in state["sheets"].items() if s["status"] == "pending"}
    fo = fo_outlook(campaign.state)
    pending: list[Decision] = campaign.ruleset.pending(campaign.state)
    return {
        "s": state,
        "formations": _companies(state),
        "outlooks": outlooks,
        "fo": fo,
        "due": due(campaign, outlooks, fo),
        "pending": pending,
        "policies": campaign.ruleset.policies(),
        "member_ids": sorted({c["formation"] for c in state["companies"].values()})
        + list(state["companies"]),
    }


def preview_context(campaign: Campaign, result: Preview) -> dict[str, Any]:
    """The company's counters before → after a previewed distribution."""
    company = getattr(result.command, "company", None)
    companies = campaign.ruleset.state_json(campaign.state)["companies"]
    if result.after is None or company not in companies:
        return {"rows": []}
    old = companies[company]["counters"]
    new = result.after.ruleset.state_json(result.after.state)["companies"][company]["counters"]
    return {"rows": [{"id": i, "before": v, "after": new[i], "changed": v != new[i]}
                     for i, v in old.items()]}
