"""The squares page's unit part: who may rally the chosen unit, from the typed panel."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from rallypoint.core.registry import get_ruleset
from rallypoint.rulesets.squares.front.campaign import squares_state
from rallypoint.rulesets.squares.front.web import RallyChoice, UnitPanel, unit_panel
from rallypoint.session import Session
from rallypoint.web.settings import WebSettings


def test_the_unit_part_lists_each_rally_and_each_refusal(client: TestClient,
                                                         settings: WebSettings) -> None:
    ridge = get_ruleset("squares").example_scenarios()[0]
    session = Session(settings.db)
    info = session.create(ridge, name="ridge", seed="s")
    c = session.load("ridge")
    panel = unit_panel(squares_state(c), "28th")
    assert isinstance(panel, UnitPanel) and panel.id == "28th"
    assert panel.choices and all(isinstance(ch, RallyChoice) for ch in panel.choices)
    page = client.get(f"/c/{info.id}/part/unit?unit=28th")
    assert page.status_code == 200, page.text
    text = " ".join(re.sub(r"<[^>]+>", " ", page.text).split())
    for ch in panel.choices:
        assert f"{ch.leader_name} rallies 28th ({ch.kind})" in text
    for r in panel.refused:
        assert f"{r.leader} ({r.kind}): {r.reason}" in text
