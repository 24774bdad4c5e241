"""The TCS check form's box for the seed's 'if the enemy has broken into the formation's idea of
"the rear"' modifier: given at check time, it reaches each company's recovery roll."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from web.conftest import token_of

CENTERS = {"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21", "MG/ErP112": "8.21"}


def test_the_check_form_takes_the_rear_modifier(client: TestClient) -> None:
    cid = client.post("/api/campaigns", json={"scenario": "example1_tolvajarvi", "name": "ex1",
                                              "seed": "web"}).json()["id"]
    commands: list[dict[str, Any]] = [
        {"kind": "write_sheet", "sheet": "rest", "members": ["ErP112"], "centers": CENTERS,
         "size": 1, "attest": True}, *({"kind": "turn"} for _ in range(6))]
    for version, command in enumerate(commands, start=1):
        r = client.post(f"/api/campaigns/{cid}/commands",
                        json={"command": {**command, "expected_version": version}})
        assert r.status_code == 201, r.text
    page = client.get(f"/c/{cid}").text
    assert re.search(r'<input type="number" id="rear-rest" name="mi:rear_broken\.rest"', page)
    form = {"csrf_token": token_of(page), "expected_version": "8", "kind": "check",
            "form": "check", "s:sheet": "rest", "dice": "6,6,1,1,1", "mi:rear_broken.rest": "2"}
    assert client.post(f"/c/{cid}/do", data=form, follow_redirects=False).status_code == 303
    check = next(e for e in client.get(f"/api/campaigns/{cid}/log").json()
                 if e["type"] == "implementation_checked")
    # Example #1 at battalion morale 4: a die of 1 + company morale 1 + battalion 4 + rear 2 = 8.
    assert [r["total"] for r in check["rolls"][1:]] == [8, 8, 8]
    assert all(r["modifiers"][-1] == {"name": "the enemy has broken into the rear", "value": 2}
               for r in check["rolls"][1:])
