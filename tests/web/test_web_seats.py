"""Accounts, logins and invites on a shared server: cookies, CSRF, rate limits, the HTML flow."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rallypoint.web.app import create_app
from rallypoint.web.auth import SESSION_COOKIE
from rallypoint.web.settings import WebSettings
from web.conftest import token_of
from web.seats_table import PASSWORD, SCENARIO, Person


@pytest.fixture
def shared(db: Path | str, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(WebSettings(db=db, allowed_hosts=("testserver",), shared=True,
                                 backups=tmp_path / "backups"))
    with TestClient(app, base_url="http://testserver") as client:
        yield client


def _form(client: TestClient, url: str, page: str, **fields: str) -> object:
    token = token_of(client.get(page).text)
    return client.post(url, data={**fields, "csrf_token": token}, follow_redirects=False)


def test_a_shared_server_asks_for_a_login_first(shared: TestClient) -> None:
    r = shared.get("/", headers={"accept": "text/html"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login?next=%2F"
    r = shared.get("/api/campaigns")
    assert r.status_code == 401 and r.json()["code"] == "not-logged-in"


def test_the_session_cookie_is_signed_httponly_and_samesite(shared: TestClient) -> None:
    r = _form(shared, "/signup", "/login", login="ann", password=PASSWORD, next="/")
    assert r.status_code == 303  # type: ignore[attr-defined]
    cookie = next(c for c in r.headers.get_list("set-cookie")  # type: ignore[attr-defined]
                  if c.startswith(SESSION_COOKIE))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert shared.get("/api/session").json()["login"] == "ann"
    # An altered cookie (a forged signature) is nobody's.
    value = shared.cookies.get(SESSION_COOKIE)
    assert value
    _only_cookie(shared, value[:-2] + ("AA" if value[-2:] != "AA" else "BB"))
    assert shared.get("/api/session").json()["login"] is None
    _only_cookie(shared, value)
    assert shared.get("/api/session").json()["login"] == "ann"
    # Logging out ends the session on the server: the old cookie no longer works.
    assert _form(shared, "/logout", "/").status_code == 303  # type: ignore[attr-defined]
    _only_cookie(shared, value)
    assert shared.get("/api/session").json()["login"] is None


def _only_cookie(client: TestClient, session: str) -> None:
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, session)


def test_json_writes_need_the_csrf_header(shared: TestClient) -> None:
    person = Person(shared)
    person.log_in("ann")
    body = {"scenario_toml": SCENARIO.read_text(encoding="utf-8"), "name": "x"}
    r = shared.post("/api/campaigns", json=body)
    assert r.status_code == 403 and r.json()["code"] == "csrf"
    r = shared.post("/api/campaigns", json=body, headers={"x-csrf-token": "0" * 64})
    assert r.status_code == 403
    assert person.post("/api/campaigns", body).status_code == 201


def test_logins_are_rate_limited(shared: TestClient) -> None:
    person = Person(shared)
    person.log_in("ann")
    codes = [person.post("/api/session", {"login": "ann", "password": "wrong password!"})
             .status_code for _ in range(6)]
    assert codes[:5] == [401] * 5 and codes[5] == 429
    # Even the right password waits now: the login name is locked for a while.
    r = person.post("/api/session", {"login": "ann", "password": PASSWORD})
    assert r.status_code == 429 and r.json()["code"] == "rate-limited"


def test_wrong_login_and_wrong_password_read_alike(shared: TestClient) -> None:
    person = Person(shared)
    person.log_in("ann")
    a = person.post("/api/session", {"login": "ann", "password": "wrong password!"}).json()
    b = person.post("/api/session", {"login": "nobody", "password": "wrong password!"}).json()
    assert a == b


def test_from_invite_to_seat_through_the_pages(shared: TestClient, db: Path | str,
                                               tmp_path: Path) -> None:
    assert _form(shared, "/signup", "/login", login="ann", password=PASSWORD,
                 next="/").status_code == 303  # type: ignore[attr-defined]
    page = shared.get("/")
    assert 'id="import"' not in page.text and 'name="seed"' not in page.text
    r = shared.post("/campaigns", data={"csrf_token": token_of(page.text), "name": "both"},
                    files={"file": ("two.toml", SCENARIO.read_bytes(), "text/plain")})
    # 303 to the seats page, which shows the links once (web.once; test_web_redirects.py).
    assert r.history[0].status_code == 303 and r.status_code == 200 and "/join/" in r.text
    links = dict(__import__("re").findall(r'data-seat="([^"]+)">(http[^<]+)<', r.text))
    assert set(links) == {"finland", "soviet"}  # no referee seat unless the creator opens one
    finland = links["finland"].removeprefix("http://testserver")
    page = shared.get(finland)
    assert page.status_code == 200
    r = shared.post("/join", data={"csrf_token": token_of(page.text),
                                   "token": finland.rsplit("/", 1)[1]}, follow_redirects=False)
    assert r.status_code == 303
    campaign = shared.get(r.headers["location"])
    assert campaign.status_code == 200 and "both" in campaign.text
    seats = shared.get(r.headers["location"] + "/seats").text
    assert "ann" in seats and "(you)" in seats
    # The same invite cannot be used twice.
    again = shared.post("/join", data={"csrf_token": token_of(page.text),
                                       "token": finland.rsplit("/", 1)[1]})
    assert again.status_code == 404
