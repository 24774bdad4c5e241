"""The TCS distribution form's in-hex transfers (seed: 'units in the same hex and of the same type
and from the same company may redistribute their remaining steps'): reached from What next,
refused with every value kept, then recorded.

Example #1's 2/ErP 112th has two platoons at 2 of 5 steps each, both at 17.21. The dice
6,6 / 5,1,4 implement the sheet and give it a roll of 1 + 3 = 4: 4 steps back (seed table).
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from web.conftest import token_of

CENTERS = {"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21", "MG/ErP112": "8.21"}


def _ready(client: TestClient) -> str:
    """Example #1 with its sheet implemented and 1/ErP 112th's steps placed: 2/ErP 112th's
    distribution is the first one pending."""
    cid: str = client.post("/api/campaigns", json={"scenario": "example1_tolvajarvi",
                                                   "name": "ex1", "seed": "web"}).json()["id"]
    commands: list[dict[str, Any]] = [
        {"kind": "write_sheet", "sheet": "rest", "members": ["ErP112"], "centers": CENTERS,
         "size": 1, "attest": True}, *({"kind": "turn"} for _ in range(6))]
    for version, command in enumerate(commands, start=1):
        r = client.post(f"/api/campaigns/{cid}/commands",
                        json={"command": {**command, "expected_version": version}})
        assert r.status_code == 201, r.text
    page = client.get(f"/c/{cid}").text
    form = {"csrf_token": token_of(page), "expected_version": "8", "kind": "check",
            "form": "check", "s:sheet": "rest", "dice": "6,6,5,1,4"}
    assert client.post(f"/c/{cid}/do", data=form, follow_redirects=False).status_code == 303
    page = client.get(f"/c/{cid}").text
    policy = {"csrf_token": token_of(page), "expected_version": "9",
              "decision": "distribute:1/ErP112", "policy": "rebuild",
              "form": "distribute:1/ErP112"}
    assert client.post(f"/c/{cid}/answer", data=policy,
                       follow_redirects=False).status_code == 303
    return cid


def _counters(client: TestClient, cid: str) -> dict[str, Any]:
    state = client.get(f"/api/campaigns/{cid}").json()["state"]
    counters: dict[str, Any] = state["companies"]["2/ErP112"]["counters"]
    return counters


def test_a_transfer_is_refused_with_the_form_kept_then_recorded(client: TestClient) -> None:
    cid = _ready(client)
    page = client.get(f"/c/{cid}").text
    # What next points at the distribution's form, which offers the transfer rows.
    due = page[page.index('id="due"'):]
    assert re.search(r"2/ErP 112th recovered 4 step\(s\).*?href=\"#distribute-1\"", due, re.S)
    form = page[page.index('id="distribute-1"'):page.index("</section>",
                                                           page.index('id="distribute-1"'))]
    assert 'id="transfers-1"' in form
    offered = set(re.findall(r'name="o:redistribute\.0\.source".*?</select>', form,
                             re.S)[0].split('value="')[2:])
    assert {o.split('"')[0] for o in offered} == {"2/ErP112-a-1", "2/ErP112-a-2",
                                                  "2/ErP112-dead"}
    sent = {"csrf_token": token_of(page), "expected_version": "10", "kind": "distribute",
            "form": "distribute:2/ErP112", "s:company": "2/ErP112",
            "mi:heal.2/ErP112-a-1": "3", "mi:heal.2/ErP112-a-2": "1",
            "o:redistribute.0.source": "2/ErP112-a-2", "o:redistribute.0.target": "2/ErP112-a-1",
            "oi:redistribute.0.steps": "1",
            "o:redistribute.1.source": "", "o:redistribute.1.target": "",
            "oi:redistribute.1.steps": "0"}
    # a-1 healed to 5 of 5 cannot take another step: refused, nothing written, all kept.
    refused = client.post(f"/c/{cid}/do", data=sent, follow_redirects=False)
    assert refused.status_code in (400, 409), refused.text[:300]
    assert "moving 1 step(s) 2/ErP112-a-2→2/ErP112-a-1 does not fit" in refused.text
    assert "rallypoint " not in refused.text.split('id="distribute-1"')[1].split("</section>")[0]
    kept = refused.text[refused.text.index('id="distribute-1"'):]
    assert re.search(r'name="o:redistribute\.0\.source">.*?<option value="2/ErP112-a-2" '
                     r'selected>', kept, re.S)
    assert re.search(r'name="o:redistribute\.0\.target">.*?<option value="2/ErP112-a-1" '
                     r'selected>', kept, re.S)
    assert re.search(r'name="oi:redistribute\.0\.steps" min="0" value="1"', kept)
    assert re.search(r'name="mi:heal\.2/ErP112-a-1" min="0" max="3" value="3"', kept)
    assert client.get(f"/api/campaigns/{cid}").json()["version"] == 10
    # The other way round fits: a-1 5 - 2 = 3, a-2 2 + 1 + 2 = 5.
    fixed = {**sent, "csrf_token": token_of(refused.text),
             "o:redistribute.0.source": "2/ErP112-a-1",
             "o:redistribute.0.target": "2/ErP112-a-2", "oi:redistribute.0.steps": "2"}
    done = client.post(f"/c/{cid}/do", data=fixed, follow_redirects=False)
    assert done.status_code == 303, done.text[:300]
    event = client.get(f"/api/campaigns/{cid}/log").json()[-1]
    assert event["type"] == "distributed"
    assert "redistribute 2/ErP112-a-1→2/ErP112-a-2 2" in event["summary"], event["summary"]
    counters = _counters(client, cid)
    assert (counters["2/ErP112-a-1"]["steps"], counters["2/ErP112-a-2"]["steps"]) == (3, 5)
    # What next moves on to the next company's distribution.
    page = client.get(done.headers["location"]).text
    assert re.search(r"3/ErP 112th recovered \d step\(s\)", page[page.index('id="due"'):])


def test_a_transfer_that_empties_a_counter_sends_it_to_the_dead_pile(
        client: TestClient) -> None:
    cid = _ready(client)
    page = client.get(f"/c/{cid}").text
    # The lone dead platoon takes every step (seed); then a-1 passes both its steps to a-2.
    sent = {"csrf_token": token_of(page), "expected_version": "10", "kind": "distribute",
            "form": "distribute:2/ErP112", "s:company": "2/ErP112",
            "mi:resurrect.2/ErP112-dead": "4",
            "o:redistribute.0.source": "2/ErP112-a-1", "o:redistribute.0.target": "2/ErP112-a-2",
            "oi:redistribute.0.steps": "0"}
    # A row with no steps is half filled: refused, naming the field, nothing written.
    refused = client.post(f"/c/{cid}/do", data=sent, follow_redirects=False)
    assert refused.status_code == 400, refused.text[:300]
    assert re.search(r'name="oi:redistribute\.0\.steps"[^>]*aria-invalid="true"', refused.text)
    sent.update({"oi:redistribute.0.steps": "2", "csrf_token": token_of(refused.text)})
    done = client.post(f"/c/{cid}/do", data=sent, follow_redirects=False)
    assert done.status_code == 303, done.text[:300]
    counters = _counters(client, cid)
    # a-2: 2 + 2 = 4; a-1 emptied into the Dead Pile; the dead platoon back at 4.
    assert (counters["2/ErP112-a-2"]["pile"], counters["2/ErP112-a-2"]["steps"]) == ("map", 4)
    assert counters["2/ErP112-a-1"]["pile"] == "dead"
    assert (counters["2/ErP112-dead"]["pile"], counters["2/ErP112-dead"]["steps"]) == ("map", 4)
