"""The toy ruleset (tests/data/toy: rules only, no view) in the browser: the generic page shows
its state and a form per command built from the command's schema; the form records a foray;
a bad form is refused with one message and nothing written; the lab page lists the exact odds
of the rolls the rules declare (by hand: d6, 1 ambushed, 2-4 nothing, 5-6 found)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

import toy_kit
from rallypoint.web.rulesets import GENERIC, view_of
from web.conftest import token_of


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    with toy_kit.installed():
        yield


def _started(client: TestClient) -> str:
    text = toy_kit.SCENARIO.read_text(encoding="utf-8")
    r = client.post("/api/campaigns", json={"scenario_toml": text, "name": "ford", "seed": "w"})
    assert r.status_code == 201, r.text
    cid: str = r.json()["id"]
    return cid


def test_the_generic_page_offers_a_form_built_from_the_command_schema(
        client: TestClient) -> None:
    assert view_of("toy") is GENERIC
    cid = _started(client)
    page = client.get(f"/c/{cid}").text
    assert '<section class="panel no-print" id="command-forage">' in page
    assert "<h2>Send a party out to forage (one d6).</h2>" in page
    assert ('<input id="command-forage-party" name="s:party" required>') in page
    assert "&#34;supplies&#34;: 2" in page
    form = {"csrf_token": token_of(page), "expected_version": "1", "kind": "forage",
            "form": "command-forage", "s:party": "south", "dice": "5"}
    assert client.post(f"/c/{cid}/do", data=form, follow_redirects=False).status_code == 303
    state = client.get(f"/api/campaigns/{cid}").json()["state"]
    assert state == {"parties": ["north", "south"], "supplies": 3, "forays": 1}


def test_a_bad_form_is_refused_and_nothing_written(client: TestClient) -> None:
    cid = _started(client)
    page = client.get(f"/c/{cid}").text
    form = {"csrf_token": token_of(page), "expected_version": "1", "kind": "forage",
            "form": "command-forage", "s:party": "west"}
    r = client.post(f"/c/{cid}/do", data=form, follow_redirects=False)
    assert r.status_code == 409, r.status_code
    assert "no party &#39;west&#39; in camp" in r.text
    assert client.get(f"/api/campaigns/{cid}").json()["version"] == 1


def test_the_lab_page_lists_the_declared_rolls_exactly(client: TestClient) -> None:
    cid = _started(client)
    page = client.get(f"/c/{cid}/lab").text
    assert "<h2>north forages (1d6)</h2>" in page
    assert "<h2>south forages (1d6)</h2>" in page
    rows = page.split("<h2>north forages (1d6)</h2>")[1].split("</table>")[0]
    assert [r.split("</td>")[0] for r in rows.split("<tr><td>")[1:]] == [
        "ambushed", "nothing", "found"]


def test_each_schema_type_gets_its_input() -> None:
    from enum import StrEnum
    from typing import Any, Literal

    from rallypoint.core.ruleset import Command
    from rallypoint.web.rulesets.generic import FormField, command_forms

    class Pace(StrEnum):
        SLOW = "slow"
        FAST = "fast"

    class March(Command):
        """March a column.

        More words that are not the title."""

        kind: Literal["march"] = "march"
        steps: int
        pace: Pace
        night: bool = False
        who: list[str]
        note: str | None = None
        orders: dict[str, Any] | None = None

    (form,) = command_forms([March])
    assert (form.kind, form.title) == ("march", "March a column.")
    assert form.fields == (
        FormField("i:steps", "steps", "number", True),
        FormField("s:pace", "pace", "select", True, ("slow", "fast")),
        FormField("b:night", "night", "checkbox", False),
        FormField("l:who", "who", "text", True),
        FormField("s:note", "note", "text", False),
        FormField("j:orders", "orders", "json", False),
    )


def test_the_json_api_plays_and_logs_a_toy_command(client: TestClient) -> None:
    cid = _started(client)
    r = client.post(f"/api/campaigns/{cid}/commands", json={
        "command": {"kind": "forage", "party": "north", "expected_version": 1}, "dice": "1"})
    assert r.status_code == 201, r.text
    log = client.get(f"/api/campaigns/{cid}/log").json()
    assert [e["type"] for e in log] == ["created", "foraged"]
    assert log[1]["summary"].splitlines()[0] == "north forages: 1 supplies"
    assert client.get(f"/c/{cid}/log").status_code == 200


def test_the_lab_page_draws_the_toys_own_simulation(client: TestClient) -> None:
    from rallypoint.core.registry import plugin

    assert plugin("toy").lab == "rallypoint_toy.lab:LAB"  # loaded from the toy's own folder
    cid = _started(client)
    page = client.get(f"/c/{cid}/lab").text
    assert ("<p>Three forays from this camp, 200 times through the toy&#39;s rules, seed "
            "20261201:</p>") in page
    assert 'alt="a histogram of the supplies left after three forays, over 200 runs"' in page
    svg = client.get(f"/c/{cid}/lab/rest.svg")
    assert svg.headers["content-type"] == "image/svg+xml"
    # The figure's text, as matplotlib writes it beside each glyph run (the title wraps).
    for text in ("ford: 200 runs of three forays", "(seed 20261201)", "supplies",
                 "parties in turn (n=200)"):
        assert f"<!-- {text} -->" in svg.text


def test_the_toys_simulation_runs_its_rules() -> None:
    from rallypoint_toy.lab import three_forays

    run = three_forays(toy_kit.SCENARIO, 300, 7)
    values = run["supplies"]
    # By hand: from 2 supplies, three forays each move it by -1, 0 or +1 (never below 0).
    assert len(values) == 300 and set(values) <= {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}
    assert {5.0, 0.0} & set(values), "300 runs reach an extreme (each has chance 1/27, 1/216)"
    assert three_forays(toy_kit.SCENARIO, 300, 7) == run  # the same seed, the same runs
    assert three_forays(toy_kit.SCENARIO, 300, 8) != run
