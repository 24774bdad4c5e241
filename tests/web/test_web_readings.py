"""The readings page: the campaign page links it, and it lists the ruleset's readings with the
settings the campaign was created with (the same list as ``rallypoint rules readings``)."""

from __future__ import annotations

import html

from fastapi.testclient import TestClient

from rallypoint.core.readings import readings_of


def test_the_campaign_page_links_the_readings_page(client: TestClient) -> None:
    made = client.post("/api/campaigns", json={"scenario": "italy_1944", "name": "p"})
    cid = made.json()["id"]
    page = client.get(f"/c/{cid}")
    assert f'href="/c/{cid}/readings"' in page.text
    listed = client.get(f"/c/{cid}/readings")
    assert listed.status_code == 200
    text = html.unescape(listed.text)
    for reading in readings_of("platoon"):
        assert reading.switch in text and reading.reading in text
    assert "this campaign: 0" in text  # morale.bound_each_step as created
    assert client.get("/c/nope/readings").status_code == 404
