"""The JSON API: the session API over HTTP; every refusal a 4xx {code, message}, nothing written."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

CENTERS = {"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21", "MG/ErP112": "8.21"}


def _command(client: TestClient, ref: str, command: dict[str, Any], dice: str | None = None
             ) -> dict[str, Any]:
    r = client.post(f"/api/campaigns/{ref}/commands", json={"command": command, "dice": dice})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def _version(client: TestClient, ref: str) -> int:
    return int(client.get(f"/api/campaigns/{ref}").json()["version"])


def test_play_example1_through_the_api(client: TestClient) -> None:
    r = client.post("/api/campaigns", json={"scenario": "example1_tolvajarvi", "name": "ex1",
                                            "seed": "api"})
    assert r.status_code == 201 and r.json()["version"] == 1
    _command(client, "ex1", {"kind": "write_sheet", "expected_version": 1, "sheet": "rest",
                             "members": ["ErP112"], "centers": CENTERS, "size": 1,
                             "attest": True})
    for v in range(2, 8):
        _command(client, "ex1", {"kind": "turn", "expected_version": v})
    _command(client, "ex1", {"kind": "morale", "expected_version": 8, "formation": "ErP112",
                             "value": 2})
    done = _command(client, "ex1", {"kind": "check", "expected_version": 9, "sheet": "rest"},
                    dice="6,6,5,1,4")
    assert done["payload"]["implemented"] and len(done["pending"]) == 3
    decisions = client.get("/api/campaigns/ex1/decisions").json()
    assert decisions["policies"][0]["name"] == "rebuild"
    first = decisions["pending"][0]
    # The preview stores nothing.
    seen = client.post("/api/campaigns/ex1/preview", json={"command": {
        "kind": "distribute", "company": first["subject"], "heal": {"1/ErP112-1": 9}}}).json()
    assert seen["legal"] is False and seen["error"]["code"] == "illegal-now"
    assert _version(client, "ex1") == 10
    answered = client.post("/api/campaigns/ex1/answers",
                           json={"expected_version": 10, "policy": "rebuild"})
    assert answered.status_code == 201 and answered.json()["type"] == "distributed"
    log = client.get("/api/campaigns/ex1/log").json()
    check = next(e for e in log if e["type"] == "implementation_checked")
    assert [r["faces"] for r in check["rolls"]] == [[6, 6], [5], [1], [4]]
    assert check["rolls"][0]["odds"] == "needs 55+: P(implements) = 2/9"
    undone = client.post("/api/campaigns/ex1/undo", json={"expected_version": 11})
    assert undone.status_code == 201 and client.get("/api/campaigns/ex1/log").json()[10]["undone"]


def test_stale_and_illegal_commands_change_nothing(client: TestClient) -> None:
    client.post("/api/campaigns", json={"scenario": "farm_below_the_ridge", "name": "ridge"})
    before = client.get("/api/campaigns/ridge").json()
    cases = [
        ({"command": {"kind": "rally", "leader": "pack", "unit": "44th", "rally": "disorder",
                      "expected_version": 1}}, 409, "illegal-now"),
        ({"command": {"kind": "turn", "expected_version": 7}}, 409, "stale-version"),
        ({"command": {"kind": "no-such-command", "expected_version": 1}}, 400,
         "malformed-input"),
        ({"command": {"kind": "turn"}}, 400, "malformed-input"),
        ({"command": {"kind": "turn", "expected_version": 1}, "dice": "9,9"}, 400,
         "malformed-input"),
        ({"command": "turn"}, 400, "malformed-input"),
        ({"extra": 1, "command": {}}, 400, "malformed-input"),
    ]
    for body, status, code in cases:
        r = client.post("/api/campaigns/ridge/commands", json=body)
        assert (r.status_code, r.json()["code"]) == (status, code), (body, r.text)
        assert r.json()["message"]
    r = client.post("/api/campaigns/nope/undo", json={"expected_version": 1})
    assert (r.status_code, r.json()["code"]) == (404, "unknown-id")
    assert "web.db" not in r.json()["message"]  # no server path in what a client sees
    assert client.get("/api/campaigns/ridge").json() == before


def test_write_requests_must_be_json(client: TestClient) -> None:
    client.post("/api/campaigns", json={"scenario": "farm_below_the_ridge", "name": "ridge"})
    for content_type in ("text/plain", "application/x-www-form-urlencoded",
                         "multipart/form-data; boundary=x"):
        r = client.post("/api/campaigns/ridge/commands", content=b'{"command": {}}',
                        headers={"content-type": content_type})
        assert (r.status_code, r.json()["code"]) == (415, "unsupported-media-type")
    r = client.post("/api/campaigns/ridge/commands", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert (r.status_code, r.json()["code"]) == (400, "malformed-input")


def test_export_then_import_as_a_copy(client: TestClient, tmp_path: Any) -> None:
    client.post("/api/campaigns", json={"scenario": "farm_below_the_ridge", "name": "ridge"})
    _command(client, "ridge", {"kind": "turn", "expected_version": 1})
    document = client.get("/api/campaigns/ridge/export").json()
    r = client.post("/api/import", json={"document": document})
    assert r.status_code == 201 and r.json()["version"] == 2  # the same campaign, already here
    document["events"][1]["payload"]["turn"] = 9  # an edited event breaks the chain
    r = client.post("/api/import", json={"document": document})
    assert r.status_code in (400, 409) and r.json()["code"] in ("integrity", "bad-data-file")


def test_create_from_uploaded_toml_names_the_problem(client: TestClient) -> None:
    r = client.post("/api/campaigns", json={"scenario_toml": 'ruleset = "squares"\n[oops'})
    assert r.status_code == 400 and r.json()["code"] == "bad-data-file"
    assert "/tmp" not in r.json()["message"]
    r = client.post("/api/campaigns", json={"scenario": "nope"})
    assert (r.status_code, r.json()["code"]) == (400, "malformed-input")
    assert client.get("/api/campaigns").json() == []


def test_rename_and_delete_with_a_backup(client: TestClient) -> None:
    client.post("/api/campaigns", json={"scenario": "farm_below_the_ridge", "name": "ridge"})
    r = client.patch("/api/campaigns/ridge", json={"name": "the farm", "expected_version": 1})
    assert r.status_code == 200 and r.json()["name"] == "the farm"
    r = client.patch("/api/campaigns/the farm", json={"name": "x", "expected_version": 5})
    assert (r.status_code, r.json()["code"]) == (409, "stale-version")
    r = client.delete("/api/campaigns/the farm", params={"expected_version": 1})
    assert r.status_code == 200 and r.json()["events"] == 1
    backup = r.json()["backup"]
    assert client.get("/api/campaigns").json() == []
    with open(backup, encoding="utf-8") as f:
        document = json.load(f)
    r = client.post("/api/import", json={"document": document})
    assert r.status_code == 201 and r.json()["version"] == 1


def test_pages_follow_writes_by_another_process(client: TestClient, settings: Any) -> None:
    from rallypoint.session import Session

    cid = client.post("/api/campaigns", json={"scenario": "farm_below_the_ridge",
                                              "name": "ridge"}).json()["id"]
    assert "turn 1" in client.get(f"/c/{cid}").text
    assert "turn 1" in client.get(f"/c/{cid}").text  # now from memory
    Session(settings.db).execute("ridge", {"kind": "turn", "expected_version": 1})  # the CLI
    page = client.get(f"/c/{cid}").text
    assert "turn 2" in page and "version 2" in page
