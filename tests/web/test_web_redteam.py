"""Red team on ``serve --shared``: every route × every person, for leaks, writes and caching.

The table (``seats_table``, ``creator="host"``): Hank opened the campaign with a referee's seat and
holds no seat; Ann plays Finland, Bob the Soviets, Rita referees; Carol has an account and no
seat; Dan is not logged in. Every route the app serves (the list is checked against the app's
routers, so a new route fails here until it is added) is called by each of them:

- **leaks**: no response body holds a secret string of a side the person may not see (sheet
  names and centers: a sheet's members, weighted turns, row and size sit under its name). The
  JSON preview and the HTML preview are run, not only refused: they were the leak of issue 18;
- **writes**: a write the person may not make is refused (4xx, or the live preview's refusal)
  and the campaign, its name and its seats are unchanged;
- **caching**: every response carries ``Cache-Control: no-store`` (the static assets do not).

Then the invite attacks of issue 18 and the permission table (docs/web.md), each on SQLite and
PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from seats_kit import scrub
from web.conftest import BACKENDS, database
from web.seats_table import PASSWORD, SCENARIO, SECRETS, Person, Table, open_table

PEOPLE = ("finland", "soviet", "referee", "host", "outsider", "anonymous")
SEES = {"finland": {"finland"}, "soviet": {"soviet"}, "referee": {"finland", "soviet"}}
"""Whose secrets each person may see (anyone not named: nobody's)."""
SEATS = frozenset({"finland", "soviet", "referee"})
LOGGED_IN = frozenset({*SEATS, "host", "outsider"})


@pytest.fixture(scope="module", params=BACKENDS)
def table(request: pytest.FixtureRequest,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    folder = tmp_path_factory.mktemp("redteam")
    for db in database(request.param, folder):
        yield from open_table(db, folder, creator="host")


def forbidden_secrets(who: str) -> list[str]:
    """Every secret string ``who`` may not see."""
    return [s for side, secrets in SECRETS.items() if side not in SEES.get(who, set())
            for s in secrets]


def assert_no_leak(who: str, route: str, response: Any) -> None:
    """No secret of a side ``who`` may not see in the body; no browser may keep it."""
    text = scrub(response.text)
    for secret in forbidden_secrets(who):
        assert secret not in text, f"{who} sees {secret!r} at {route}: {text[:400]}"
    assert response.headers.get("cache-control") == "no-store", (who, route, response.headers)


# --- reads ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """A GET route and the status each kind of person gets."""

    path: str
    seated: tuple[int, ...] = (200,)
    host: tuple[int, ...] | None = None
    outsider: tuple[int, ...] = (404,)
    anonymous: tuple[int, ...] = (303, 401)

    def expected(self, who: str) -> tuple[int, ...]:
        if who == "anonymous":
            return self.anonymous
        if who == "outsider":
            return self.outsider
        if who == "host":
            return self.host or self.seated
        return self.seated


READS = [
    Read("/", outsider=(200,), anonymous=(303,)),
    Read("/c/{cid}"),
    Read("/c/{cid}?done=2"),  # what the events from #2 on did (Finland's sheet, the Soviets')
    Read("/c/{cid}/part/{name}"),
    Read("/c/{cid}/lab"),
    Read("/c/{cid}/lab/rest.svg", seated=(409,)),  # the lab simulates shipped scenarios only
    Read("/c/{cid}/log"),
    Read("/c/{cid}/readings"),
    Read("/c/{cid}/download/{name}.json", seated=(404,)),  # a TCS page offers no download
    Read("/c/{cid}/export"),
    Read("/c/{cid}/seats"),
    Read("/c/{cid}/news?since=2"),  # whose move, and the events after #2 as the seat's log
    Read("/c/{cid}/live?v=2"),  # the live stream: a bare "changed" signal, nothing to filter
    Read("/login", outsider=(200,), anonymous=(200,)),
    Read("/join/{token}", outsider=(200,), anonymous=(303,)),
    Read("/api/scenarios", outsider=(200,), anonymous=(200,)),
    Read("/api/docs", outsider=(200,), anonymous=(200,)),
    Read("/api/campaigns", outsider=(200,), anonymous=(401,)),
    Read("/api/campaigns/{ref}"),
    Read("/api/campaigns/{ref}/decisions"),
    Read("/api/campaigns/{ref}/log"),
    Read("/api/campaigns/{ref}/export"),
    Read("/api/campaigns/{ref}/seats"),
    Read("/api/campaigns/{ref}/news?since=2"),
    Read("/api/session", outsider=(200,), anonymous=(200,)),
    Read("/build", outsider=(200,), anonymous=(303,)),
    Read("/build/{ruleset}", outsider=(200,), anonymous=(303,)),
]


def _url(table: Table, path: str) -> str:
    """A route's path with the table's campaign (a part: the TCS sheets; a download: the only
    file any page offers, the platoon's roster)."""
    name = "roster" if "/download/" in path else "sheets"
    return path.format(cid=table.ref, ref=table.ref, name=name, token="made-up-token",
                       ruleset="tcs")


@pytest.mark.parametrize("read", READS, ids=[r.path for r in READS])
@pytest.mark.parametrize("who", PEOPLE)
def test_no_read_leaks(table: Table, who: str, read: Read) -> None:
    route = _url(table, read.path)
    r = table.people[who].get(route, headers={"accept": "text/html"}, follow_redirects=False)
    assert r.status_code in read.expected(who), (who, route, r.status_code, r.text[:300])
    assert_no_leak(who, route, r)


def test_the_seatless_creator_sees_the_public_campaign(table: Table) -> None:
    host = table.people["host"]
    listed = host.get("/api/campaigns").json()
    assert [c["id"] for c in listed] == [table.ref]
    view = host.get(f"/api/campaigns/{table.ref}").json()
    assert view["state"]["sheets"] == {} and view["pending"] == []
    seats = host.get(f"/api/campaigns/{table.ref}/seats").json()
    assert seats["yours"] is None and seats["powers"] == ["invite", "rename"]
    # A seat has no power over the campaign; the referee has them all.
    assert table.people["finland"].get(
        f"/api/campaigns/{table.ref}/seats").json()["powers"] == []
    assert table.people["referee"].get(f"/api/campaigns/{table.ref}/seats").json()["powers"] \
        == ["delete", "invite", "rename", "reveal", "type dice", "undo any"]


# --- writes -----------------------------------------------------------------------------------


Send = Callable[[Table, Person], Any]


def _json(method: str, path: str, body: dict[str, Any] | None = None,
          versioned: str | None = None) -> Send:
    """A JSON write; ``versioned``: put the current version in ``body`` (``"command"``: in the
    command, ``"body"``: at the top, ``"query"``: as ``expected_version``)."""
    def send(table: Table, person: Person) -> Any:
        url = _url(table, path)
        payload = dict(body or {})
        if versioned == "command":
            payload["command"] = {**payload["command"], "expected_version": table.version()}
        elif versioned == "body":
            payload["expected_version"] = table.version()
        elif versioned == "query":
            return person.client.request(method, url, headers={"x-csrf-token": person.token},
                                         params={"expected_version": table.version()})
        return person.client.request(method, url, json=payload,
                                     headers={"x-csrf-token": person.token})
    return send


def _form(path: str, fields: dict[str, str]) -> Send:
    """A page's form post, with the person's CSRF token and the current version."""
    def send(table: Table, person: Person) -> Any:
        return person.client.post(
            _url(table, path), data={**fields, "expected_version": str(table.version()),
                                     "csrf_token": person.token},
            headers={"accept": "text/html"}, follow_redirects=False)
    return send


def _latest_seq(table: Table) -> int:
    return int(table.people["referee"].get(f"/api/campaigns/{table.ref}/log").json()[-1]["seq"])


def _consent(table: Table, person: Person) -> Any:
    return person.post(f"/api/campaigns/{table.ref}/undo-consent",
                       {"target": _latest_seq(table)})


FINLAND_LOSS = {"kind": "loss", "counter": "1/ErP112-1", "steps": 1}
TURN = {"kind": "turn", "skip_fo": True}
SOVIET_CHECK = {"kind": "check", "sheet": "S-lair"}


@dataclass(frozen=True)
class Write:
    """A write route: who may make it, and whether running it for them changes nothing."""

    method: str
    path: str
    send: Send
    label: str
    may: frozenset[str] = frozenset()
    harmless: bool = False
    """Run it for those who may too (a preview; a refusal every time)."""
    only: frozenset[str] | None = None
    """Run it only for these people (a login or logout would spoil the others' sessions)."""


WRITES = [
    Write("POST", "/api/campaigns", _json("POST", "/api/campaigns", {"scenario": "nothing"}),
          "create-unknown", harmless=True),
    Write("POST", "/api/import", _json("POST", "/api/import", {"document": {}}), "import"),
    Write("PATCH", "/api/campaigns/{ref}", _json("PATCH", "/api/campaigns/{ref}",
                                                 {"name": "mine now"}, "body"),
          "rename", may=frozenset({"host", "referee"})),
    Write("DELETE", "/api/campaigns/{ref}", _json("DELETE", "/api/campaigns/{ref}",
                                                  versioned="query"),
          "delete", may=frozenset({"referee"})),
    Write("POST", "/api/campaigns/{ref}/commands",
          _json("POST", "/api/campaigns/{ref}/commands", {"command": FINLAND_LOSS}, "command"),
          "command-finland", may=frozenset({"finland", "referee"})),
    Write("POST", "/api/campaigns/{ref}/commands",
          _json("POST", "/api/campaigns/{ref}/commands", {"command": TURN}, "command"),
          "command-turn", may=SEATS),
    Write("POST", "/api/campaigns/{ref}/commands",
          _json("POST", "/api/campaigns/{ref}/commands",
                {"command": SOVIET_CHECK, "dice": "6,6,3"}, "command"),
          "command-typed-dice", may=frozenset({"referee"})),
    Write("POST", "/api/campaigns/{ref}/preview",
          _json("POST", "/api/campaigns/{ref}/preview", {"command": FINLAND_LOSS}, "command"),
          "preview-finland", may=frozenset({"finland", "referee"}), harmless=True),
    Write("POST", "/api/campaigns/{ref}/preview",
          _json("POST", "/api/campaigns/{ref}/preview", {"command": TURN}, "command"),
          "preview-turn", may=SEATS, harmless=True),
    Write("POST", "/api/campaigns/{ref}/preview",
          _json("POST", "/api/campaigns/{ref}/preview", {"command": SOVIET_CHECK}, "command"),
          "preview-soviet-check", may=frozenset({"soviet", "referee"}), harmless=True),
    Write("POST", "/api/campaigns/{ref}/answers",
          _json("POST", "/api/campaigns/{ref}/answers", {"policy": "rebuild"}, "body"),
          "answer-finland", may=frozenset({"finland", "referee"})),
    Write("POST", "/api/campaigns/{ref}/undo",
          _json("POST", "/api/campaigns/{ref}/undo", {}, "body"),
          "undo-referees-check", may=frozenset({"referee"})),
    Write("POST", "/api/session", _json("POST", "/api/session",
                                        {"login": "ann", "password": "not her password"}),
          "log-in-wrong", only=frozenset({"anonymous"})),
    Write("DELETE", "/api/session", _json("DELETE", "/api/session"), "log-out",
          may=frozenset({"anonymous"}), harmless=True, only=frozenset({"anonymous"})),
    Write("POST", "/api/accounts", _json("POST", "/api/accounts",
                                         {"login": "mallory", "password": "short"}),
          "account-short-password"),
    Write("POST", "/api/join", _json("POST", "/api/join", {"invite": "made-up-token"}),
          "join-made-up"),
    Write("POST", "/api/campaigns/{ref}/invites",
          _json("POST", "/api/campaigns/{ref}/invites", {"seat": "soviet"}),
          "invite-held-seat"),
    Write("POST", "/api/campaigns/{ref}/reveal", _json("POST", "/api/campaigns/{ref}/reveal"),
          "reveal", may=SEATS),
    Write("POST", "/api/campaigns/{ref}/undo-consent", _consent, "undo-consent",
          may=frozenset({"finland", "soviet"})),
    Write("POST", "/campaigns", _form("/campaigns", {}), "create-form-empty"),
    Write("POST", "/import", _form("/import", {}), "import-form"),
    Write("POST", "/c/{cid}/do", _form("/c/{cid}/do", {
        "kind": "loss", "s:counter": "1/ErP112-1", "i:steps": "1"}), "do-finland",
          may=frozenset({"finland", "referee"})),
    Write("POST", "/c/{cid}/do", _form("/c/{cid}/do", {"kind": "turn", "b:skip_fo": "true"}),
          "do-turn", may=SEATS),
    Write("POST", "/c/{cid}/preview", _form("/c/{cid}/preview", {
        "kind": "turn", "b:skip_fo": "true"}), "preview-form-turn", may=SEATS, harmless=True),
    Write("POST", "/c/{cid}/preview", _form("/c/{cid}/preview", {
        "kind": "distribute", "s:company": "1/ErP112", "mi:heal.1/ErP112-1": "2"}),
          "preview-form-finland", may=frozenset({"finland", "referee"}), harmless=True),
    Write("POST", "/c/{cid}/answer", _form("/c/{cid}/answer", {
        "decision": "distribute:1/ErP112", "policy": "rebuild"}), "answer-form",
          may=frozenset({"finland", "referee"})),
    Write("POST", "/c/{cid}/undo", _form("/c/{cid}/undo", {}), "undo-form",
          may=frozenset({"referee"})),
    Write("POST", "/c/{cid}/rename", _form("/c/{cid}/rename", {"name": "mine now"}),
          "rename-form", may=frozenset({"host", "referee"})),
    Write("POST", "/c/{cid}/delete", _form("/c/{cid}/delete", {"confirm": "yes"}),
          "delete-form", may=frozenset({"referee"})),
    Write("POST", "/login", _form("/login", {"login": "ann", "password": "not her password"}),
          "login-form-wrong", only=frozenset({"anonymous"})),
    Write("POST", "/signup", _form("/signup", {"login": "mallory", "password": "short"}),
          "signup-form-short"),
    Write("POST", "/logout", _form("/logout", {}), "logout-form",
          may=frozenset({"anonymous"}), harmless=True, only=frozenset({"anonymous"})),
    Write("POST", "/join", _form("/join", {"token": "made-up-token"}), "join-form-made-up"),
    Write("POST", "/c/{cid}/seats", _form("/c/{cid}/seats", {
        "action": "invite", "seat": "soviet"}), "seats-form-invite-held"),
    Write("POST", "/c/{cid}/seats", _form("/c/{cid}/seats", {"action": "reveal"}),
          "seats-form-reveal", may=SEATS),
    # The builder keeps nothing: an edit or a check only answers the form back.
    Write("POST", "/build", _form("/build", {}), "build-open-no-file"),
    Write("POST", "/build/{ruleset}", _form("/build/{ruleset}", {
        "action": "add:sides", "r:sides.0": "1", "v:sides.0.id": "finland"}), "build-edit",
          may=LOGGED_IN, harmless=True),
    Write("POST", "/build/{ruleset}", _form("/build/{ruleset}", {
        "action": "create", "r:sides.0": "1", "v:sides.0.id": "finland"}), "build-create-bad"),
    Write("POST", "/build/{ruleset}/check", _form("/build/{ruleset}/check", {
        "r:sides.0": "1"}), "build-check", may=LOGGED_IN, harmless=True),
]


def fingerprint(table: Table) -> tuple[Any, ...]:
    """What a refused write must leave alone: version, name, seats and their reveal asks."""
    referee = table.people["referee"]
    view = referee.get(f"/api/campaigns/{table.ref}").json()
    seats = referee.get(f"/api/campaigns/{table.ref}/seats").json()
    return view["version"], view["name"], seats["revealed"], str(seats["seats"])


def _refused(response: Any) -> bool:
    # The live preview answers 200 with the refusal in the fragment (htmx swaps it in).
    return response.status_code in (400, 401, 403, 404, 409, 429) or (
        response.status_code == 200 and "not-your-seat" in response.text)


@pytest.mark.parametrize("write", WRITES, ids=[w.label for w in WRITES])
@pytest.mark.parametrize("who", PEOPLE)
def test_no_write_leaks_or_oversteps(table: Table, who: str, write: Write) -> None:
    if write.only is not None and who not in write.only:
        pytest.skip("would end the session the other cases use")
    allowed = who in write.may
    if allowed and not write.harmless:
        pytest.skip("an allowed change: tested below, on its own campaign")
    before = fingerprint(table)
    r = write.send(table, table.people[who])
    assert_no_leak(who, write.label, r)
    if allowed:
        assert r.status_code < 400 and "not-your-seat" not in r.text, (who, r.text[:300])
    else:
        assert _refused(r), (who, write.label, r.status_code, r.text[:300])
    assert fingerprint(table) == before


def test_every_route_is_in_the_matrix() -> None:
    from rallypoint.web import accounts, api, builder, live, pages

    served = {(m, str(getattr(r, "path", ""))) for router in (
        api.router, accounts.api_router, pages.router, accounts.router, builder.router,
        live.router, live.api_router)
              for r in router.routes for m in getattr(r, "methods", ())}
    covered = {("GET", r.path.split("?")[0]) for r in READS} | {(w.method, w.path)
                                                                 for w in WRITES}
    assert served == covered


def test_static_assets_may_be_cached_and_refusals_may_not(table: Table) -> None:
    person = table.people["anonymous"]
    asset = person.get("/static/htmx.min.js")
    assert asset.status_code == 200 and "cache-control" not in asset.headers
    refused = person.client.get("/", headers={"host": "evil.example"})
    assert refused.status_code == 421 and refused.headers["cache-control"] == "no-store"


# --- the preview shows no more than recording would ------------------------------------------


def test_a_preview_shows_a_seat_what_its_own_view_shows_after(db: Path | str,
                                                             tmp_path: Path) -> None:
    for table in open_table(db, tmp_path, creator="host"):
        soviet = table.people["soviet"]
        body = {"command": {**TURN, "expected_version": table.version()}}
        seen = soviet.post(f"/api/campaigns/{table.ref}/preview", body).json()
        whole = table.people["referee"].post(f"/api/campaigns/{table.ref}/preview", body).json()
        assert "F-hideout" in str(whole)  # the referee's preview is whole
        done = soviet.post(f"/api/campaigns/{table.ref}/commands", body)
        assert done.status_code == 201
        # The oracle: the seat's own view and log after the command was recorded.
        view = soviet.get(f"/api/campaigns/{table.ref}").json()
        log = soviet.get(f"/api/campaigns/{table.ref}/log").json()
        assert seen["state"] == view["state"]
        assert seen["summary"] == done.json()["summary"] == log[-1]["summary"]
        assert "F-hideout" not in str(seen) and "S-lair" in str(seen["state"])


# --- invites and powers -----------------------------------------------------------------------


@dataclass
class Fresh:
    """A new shared campaign, nothing played: Ann created it (and took Finland's seat, unless
    told not to), the other invites are still free."""

    ref: str
    invites: dict[str, str]
    people: dict[str, Person] = field(default_factory=dict)


def _fresh(db: Path | str, tmp_path: Path, referee: bool, creator_joins: bool = True
           ) -> Iterator[Fresh]:
    from contextlib import ExitStack

    from fastapi.testclient import TestClient

    from rallypoint.web.app import create_app
    from rallypoint.web.settings import WebSettings

    app = create_app(WebSettings(db=db, allowed_hosts=("testserver",), shared=True,
                                 backups=tmp_path / "backups"))
    with ExitStack() as stack:
        people = {who: Person(stack.enter_context(TestClient(app, base_url="http://testserver")))
                  for who in ("ann", "bob", "rita", "mallory")}
        for login, person in people.items():
            person.log_in(login)
        made = people["ann"].post("/api/campaigns", {
            "scenario_toml": SCENARIO.read_text(encoding="utf-8"), "name": "tolvajarvi",
            **({"referee": True} if referee else {})})
        assert made.status_code == 201, made.text
        fresh = Fresh(made.json()["id"], made.json()["invites"], people)
        if creator_joins:
            assert _join(fresh, "ann", fresh.invites["finland"]).status_code == 201
        yield fresh


def _mint(fresh: Fresh, who: str, seat: str) -> Any:
    return fresh.people[who].post(f"/api/campaigns/{fresh.ref}/invites", {"seat": seat})


def _join(fresh: Fresh, who: str, token: str) -> Any:
    return fresh.people[who].post("/api/join", {"invite": token})


def test_no_referee_seat_unless_the_creator_opens_one(db: Path | str, tmp_path: Path) -> None:
    for fresh in _fresh(db, tmp_path, referee=False):
        assert set(fresh.invites) == {"finland", "soviet"}
        # Not even the creator can add one later.
        r = _mint(fresh, "ann", "@referee")
        assert r.status_code == 404 and r.json()["code"] == "unknown-id"
        assert _join(fresh, "bob", fresh.invites["soviet"]).status_code == 201
        seats = fresh.people["bob"].get(f"/api/campaigns/{fresh.ref}/seats").json()
        assert [s["seat"] for s in seats["seats"]] == ["finland", "soviet"]
        # Without a referee, nobody types dice, and it takes both sides to reveal.
        body = {"command": {"kind": "turn", "skip_fo": True, "expected_version": 1},
                "dice": "6,6"}
        for who in ("ann", "bob"):
            r = fresh.people[who].post(f"/api/campaigns/{fresh.ref}/commands", body)
            assert r.status_code == 403 and r.json()["code"] == "not-your-seat"
        assert fresh.people["ann"].post(f"/api/campaigns/{fresh.ref}/reveal").json() \
            == {"revealed": False}
        assert fresh.people["bob"].post(f"/api/campaigns/{fresh.ref}/reveal").json() \
            == {"revealed": True}


def test_a_seat_mints_no_invite_for_a_seat_it_does_not_hold(db: Path | str,
                                                             tmp_path: Path) -> None:
    for fresh in _fresh(db, tmp_path, referee=True):
        assert _join(fresh, "bob", fresh.invites["soviet"]).status_code == 201
        # Issue 18: Bob mints himself (or a friend) into the free referee seat.
        for route in ("api", "form"):
            if route == "api":
                r = _mint(fresh, "bob", "@referee")
            else:
                bob = fresh.people["bob"]
                r = bob.client.post(f"/c/{fresh.ref}/seats", data={
                    "action": "invite", "seat": "@referee", "csrf_token": bob.token})
            assert r.status_code == 403 and "not-your-seat" in r.text, r.text
            assert "/join/" not in r.text and '"invite"' not in r.text
        # ...and the creator's referee invite still works: nothing was replaced.
        assert _join(fresh, "rita", fresh.invites["@referee"]).status_code == 201
        seats = fresh.people["rita"].get(f"/api/campaigns/{fresh.ref}/seats").json()
        assert seats["yours"] == "@referee"


def test_minting_for_the_opponents_free_seat_cancels_nothing(db: Path | str,
                                                             tmp_path: Path) -> None:
    for fresh in _fresh(db, tmp_path, referee=False, creator_joins=False):
        # Ann created the campaign and has not taken Finland's seat yet; Bob took the Soviets'.
        assert _join(fresh, "bob", fresh.invites["soviet"]).status_code == 201
        # Issue 18: Bob mints a Finland invite (for a friend), cancelling Ann's own.
        r = _mint(fresh, "bob", "finland")
        assert r.status_code == 403 and r.json()["code"] == "not-your-seat"
        # Mallory holds no seat: the campaign does not exist for her.
        assert _mint(fresh, "mallory", "finland").status_code == 404
        assert _join(fresh, "ann", fresh.invites["finland"]).status_code == 201


def test_the_creator_and_the_referee_mint_for_free_seats(db: Path | str,
                                                        tmp_path: Path) -> None:
    for fresh in _fresh(db, tmp_path, referee=True):
        assert _join(fresh, "rita", fresh.invites["@referee"]).status_code == 201
        lost = fresh.invites["soviet"]
        again = _mint(fresh, "ann", "soviet").json()["invite"]
        by_referee = _mint(fresh, "rita", "soviet").json()["invite"]
        # Each new invite replaces the one before.
        assert _join(fresh, "bob", lost).status_code == 404
        assert _join(fresh, "bob", again).status_code == 404
        assert _join(fresh, "bob", by_referee).status_code == 201
        r = _mint(fresh, "rita", "soviet")
        assert r.status_code == 409 and "taken" in r.json()["message"]


def _rename(person: Person, ref: str, name: str) -> Any:
    return person.client.patch(f"/api/campaigns/{ref}", json={
        "name": name, "expected_version": 1}, headers={"x-csrf-token": person.token})


def _delete(person: Person, ref: str) -> Any:
    return person.client.delete(f"/api/campaigns/{ref}", params={"expected_version": 1},
                                headers={"x-csrf-token": person.token})


def test_rename_and_delete_follow_the_table(db: Path | str, tmp_path: Path) -> None:
    for fresh in _fresh(db, tmp_path, referee=False):
        ref, ann, bob = fresh.ref, fresh.people["ann"], fresh.people["bob"]
        assert _join(fresh, "bob", fresh.invites["soviet"]).status_code == 201
        r = _rename(bob, ref, "bob's now")
        assert r.status_code == 403 and r.json()["code"] == "not-your-seat"
        assert _rename(ann, ref, "ann's").status_code == 200
        # The creator may not delete a game another player holds a seat in...
        r = _delete(ann, ref)
        assert r.status_code == 403 and "revealed" in r.json()["message"]
        assert _delete(bob, ref).status_code == 403
        # ...until the game has ended (every side asked for the reveal).
        for person in (ann, bob):
            person.post(f"/api/campaigns/{ref}/reveal")
        assert _delete(bob, ref).status_code == 403
        assert _delete(ann, ref).status_code == 200
        assert bob.get(f"/api/campaigns/{ref}").status_code == 404


def test_the_creator_without_a_seat_acts_for_no_side(db: Path | str, tmp_path: Path) -> None:
    for table in open_table(db, tmp_path, creator="host"):
        host = table.people["host"]
        r = host.post(f"/api/campaigns/{table.ref}/undo", {"expected_version": table.version()})
        assert r.status_code == 403 and r.json()["code"] == "not-your-seat"
        r = host.post(f"/api/campaigns/{table.ref}/answers",
                      {"expected_version": table.version()})
        assert r.status_code == 403
        # The page the issue 22 note found missing, and the rename that is the creator's.
        page = host.get(f"/c/{table.ref}")
        assert page.status_code == 200 and "tolvajarvi" in page.text
        r = host.client.patch(f"/api/campaigns/{table.ref}", json={
            "name": "tolvajarvi, second day", "expected_version": table.version()},
            headers={"x-csrf-token": host.token})
        assert r.status_code == 200 and r.json()["name"] == "tolvajarvi, second day"
        # The referee's powers: delete at any time.
        referee = table.people["referee"]
        r = referee.client.delete(f"/api/campaigns/{table.ref}", params={
            "expected_version": table.version()}, headers={"x-csrf-token": referee.token})
        assert r.status_code == 200


def test_a_login_alone_opens_nothing(db: Path | str, tmp_path: Path) -> None:
    for fresh in _fresh(db, tmp_path, referee=True):
        mallory = fresh.people["mallory"]
        assert mallory.get("/api/campaigns").json() == []
        for route in (f"/api/campaigns/{fresh.ref}", f"/api/campaigns/{fresh.ref}/seats"):
            assert mallory.get(route).status_code == 404
        assert PASSWORD not in mallory.get("/api/session").text
