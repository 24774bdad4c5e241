"""The authorization matrix: every route × owner / opponent / referee / outsider / anonymous.

Reads: nobody gets a secret that is not theirs (sheet names and centres are the secret strings,
searched for in every response: HTML, JSON, the log and the export); the owner and the referee
do get theirs. Writes: nothing is recorded for a seat by anyone else (the version is unchanged and
the refusal is 401/403/404), while the owner's own command goes through.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seats_kit import scrub
from web.conftest import BACKENDS, database
from web.seats_table import SECRETS, Table, open_table

READS = ["/", "/c/{id}", "/c/{id}/log", "/c/{id}/lab", "/c/{id}/lab/rest.svg",
         "/c/{id}/part/sheets", "/c/{id}/export",
         "/c/{id}/seats", "/api/campaigns", "/api/campaigns/{id}",
         "/api/campaigns/{id}/decisions", "/api/campaigns/{id}/log",
         "/api/campaigns/{id}/export", "/api/campaigns/{id}/seats"]
PEOPLE = ["finland", "soviet", "referee", "outsider", "anonymous"]


@pytest.fixture(scope="module", params=BACKENDS)
def table(request: pytest.FixtureRequest,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    folder = tmp_path_factory.mktemp("matrix")
    for db in database(request.param, folder):
        yield from open_table(db, folder)


def _read(table: Table, who: str, route: str) -> Any:
    url = route.format(id=table.ref)
    return table.people[who].get(url, headers={"accept": "text/html"},
                                 follow_redirects=False)


@pytest.mark.parametrize("route", READS)
@pytest.mark.parametrize("who", PEOPLE)
def test_no_read_leaks_a_secret(table: Table, who: str, route: str) -> None:
    r = _read(table, who, route)
    text = scrub(r.text)
    mine = SECRETS.get(who, ())
    theirs = [s for side, secrets in SECRETS.items() if side != who and who != "referee"
              for s in secrets]
    for secret in theirs:
        assert secret not in text, f"{who} sees {secret!r} at {route}"
    if who == "anonymous":
        assert r.status_code in (303, 401) if route != "/api/campaigns" else r.status_code == 401
    elif who == "outsider" and "{id}" in route:
        assert r.status_code == 404
    elif route.endswith("rest.svg"):
        assert r.status_code == 409  # the lab simulates shipped scenarios only
    else:
        assert r.status_code == 200, (who, route, r.text[:300])
    # The owner and the referee see the secrets where the campaign shows its sheets.
    if who in ("finland", "referee") and route in ("/c/{id}", "/api/campaigns/{id}",
                                                   "/c/{id}/export", "/api/campaigns/{id}/log"):
        assert SECRETS["finland"][0] in text
    if who == "finland":
        assert all(s in _read(table, who, "/c/{id}").text for s in mine)


WRITES: list[tuple[str, str, dict[str, Any]]] = [
    # (route, the side it acts for, body); {v} is the current version.
    ("/api/campaigns/{id}/commands", "finland",
     {"command": {"kind": "loss", "counter": "1/ErP112-1", "steps": 1}}),
    ("/api/campaigns/{id}/commands", "finland",
     {"command": {"kind": "distribute", "company": "1/ErP112", "heal": {"1/ErP112-1": 2}}}),
    ("/api/campaigns/{id}/commands", "finland",
     {"command": {"kind": "write_sheet", "sheet": "F2", "members": ["ErP112"],
                  "centers": {"1/ErP112": "23.15"}, "size": 0, "attest": True}}),
    ("/api/campaigns/{id}/commands", "soviet",
     {"command": {"kind": "check", "sheet": "S-lair"}}),
    ("/api/campaigns/{id}/commands", "soviet", {"command": {"kind": "fo"}}),
    ("/api/campaigns/{id}/answers", "finland", {"policy": "rebuild"}),
    ("/api/campaigns/{id}/preview", "finland",
     {"command": {"kind": "distribute", "company": "1/ErP112", "heal": {"1/ErP112-1": 2}}}),
]


def _write(table: Table, who: str, route: str, body: dict[str, Any]) -> Any:
    version = table.version()
    if "command" in body:
        body = {**body, "command": {**body["command"], "expected_version": version}}
    else:
        body = {**body, "expected_version": version}
    return table.people[who].post(route.format(id=table.ref), body)


@pytest.mark.parametrize(("route", "side", "body"), WRITES,
                         ids=[f"{r.rsplit('/', 1)[-1]}-{b.get('command', b)}"[:60]
                              for r, _, b in WRITES])
@pytest.mark.parametrize("who", ["finland", "soviet", "outsider", "anonymous"])
def test_no_one_acts_for_another_seat(table: Table, who: str, route: str, side: str,
                                      body: dict[str, Any]) -> None:
    if who == side:
        return  # the owner's own writes are tested below
    before = table.version()
    r = _write(table, who, route, body)
    assert r.status_code in (401, 403, 404), (who, route, r.status_code, r.text)
    assert table.version() == before
    for secret in (s for o, ss in SECRETS.items() if o != who for s in ss):
        assert secret not in scrub(r.text)


def test_the_owner_and_the_referee_act_and_see_only_what_they_may(
        db: Path | str, tmp_path: Path) -> None:
    for table in open_table(db, tmp_path):
        finland, soviet = table.people["finland"], table.people["soviet"]
        # Finland's own distribution goes through, and its answer carries its own details.
        r = _write(table, "finland", "/api/campaigns/{id}/answers", {"policy": "rebuild"})
        assert r.status_code == 201 and r.json()["payload"]["sheet"] == "F-hideout"
        # A turn advanced by the Soviets accrues Finland's sheet too, unseen by them.
        turned = table.command("soviet", {"kind": "turn", "skip_fo": True}).json()
        assert "F-hideout" not in str(turned) and "S-lair" in str(turned)
        # Typed-in dice choose the outcome: only the referee may.
        r = table.command("soviet", {"kind": "check", "sheet": "S-lair"}, "6,6,3")
        assert r.status_code == 403 and r.json()["code"] == "not-your-seat"
        # Undo: only the seat that made the event; one that rolled needs the other's consent.
        assert table.command("soviet", {"kind": "loss", "counter": "1/609-1"}).status_code == 201
        undo = {"expected_version": table.version()}
        r = finland.post(f"/api/campaigns/{table.ref}/undo", undo)
        assert r.status_code == 403
        assert soviet.post(f"/api/campaigns/{table.ref}/undo", undo).status_code == 201
        rolled = table.command("soviet", {"kind": "check", "sheet": "S-lair"})
        assert rolled.status_code == 201
        undo = {"expected_version": table.version()}
        r = soviet.post(f"/api/campaigns/{table.ref}/undo", undo)
        assert r.status_code == 403 and "consent" in r.json()["message"]
        target = rolled.json()["seq"]
        assert finland.post(f"/api/campaigns/{table.ref}/undo-consent",
                            {"target": target}).status_code == 204
        assert soviet.post(f"/api/campaigns/{table.ref}/undo", undo).status_code == 201
        # Deleting is the referee's alone; a shared server imports nothing.
        r = finland.client.delete(f"/api/campaigns/{table.ref}",
                                  params={"expected_version": table.version()},
                                  headers={"x-csrf-token": finland.token})
        assert r.status_code == 403
        # The reveal: when both sides ask, each sees the other's secrets (and still acts only
        # for itself).
        assert "S-lair" not in finland.get(f"/api/campaigns/{table.ref}/export").text
        for person in (finland, soviet):
            assert person.post(f"/api/campaigns/{table.ref}/reveal").status_code == 200
        final = finland.get(f"/api/campaigns/{table.ref}/export").text
        assert "S-lair" in final
        assert "S-lair" in finland.get(f"/c/{table.ref}").text
        # The revealed export carries the dice secret: every roll re-derives offline.
        from rallypoint.dice.report import Verdict
        from rallypoint.session.pbem import verify_file

        (tmp_path / "final.json").write_text(final, encoding="utf-8")
        report = verify_file(tmp_path / "final.json").dice
        assert report.ok and report.count(Verdict.VERIFIED) > 0
        assert report.count(Verdict.COMMITTED) == 0
        r = table.command("finland", {"kind": "loss", "counter": "1/609-1"})
        assert r.status_code == 403


FORMS: list[tuple[str, str, dict[str, str]]] = [
    ("/c/{id}/do", "finland", {"kind": "loss", "s:counter": "1/ErP112-1", "i:steps": "1"}),
    ("/c/{id}/do", "soviet", {"kind": "check", "s:sheet": "S-lair"}),
    ("/c/{id}/answer", "finland", {"decision": "distribute:1/ErP112", "policy": "rebuild"}),
    ("/c/{id}/preview", "finland", {"kind": "distribute", "s:company": "1/ErP112",
                                    "mi:heal.1/ErP112-1": "2"}),
    ("/c/{id}/undo", "referee", {}),
    ("/c/{id}/delete", "referee", {"confirm": "yes"}),
    ("/c/{id}/rename", "seated", {"name": "renamed"}),
]


@pytest.mark.parametrize(("route", "side", "fields"), FORMS,
                         ids=[f"{r.rsplit('/', 1)[-1]}-{s}" for r, s, _ in FORMS])
@pytest.mark.parametrize("who", ["finland", "soviet", "outsider", "anonymous"])
def test_no_form_acts_for_another_seat(table: Table, who: str, route: str, side: str,
                                       fields: dict[str, str]) -> None:
    if who == side or (side == "seated" and who in ("finland", "soviet")):
        return
    before = table.version()
    person = table.people[who]
    r = person.client.post(route.format(id=table.ref), data={
        **fields, "expected_version": str(before), "csrf_token": person.token},
        headers={"accept": "text/html"}, follow_redirects=False)
    assert r.status_code in (401, 403, 404) or (
        route.endswith("/preview") and "not-your-seat" in r.text), (who, route, r.status_code)
    assert table.version() == before
    assert table.people["referee"].get(f"/api/campaigns/{table.ref}").json()["name"] \
        == "tolvajarvi"
    for secret in (s for o, ss in SECRETS.items() if o != who for s in ss):
        assert secret not in scrub(r.text)
