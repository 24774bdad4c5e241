"""A deletion and a shared server's new invites answer 303 (a reload never sends them again),
and what they have to say once still reaches the page they redirect to, once, and no one else.

The oracle is the page a browser is sent to: its words and its invite links, which must open
their seats (the server keeps only their hashes, so a working link is the real one).
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rallypoint.web import once
from rallypoint.web.app import create_app
from rallypoint.web.settings import WebSettings
from web.conftest import token_of
from web.seats_table import PASSWORD, SCENARIO

LINK = re.compile(r'data-seat="([^"]+)">http://testserver(/join/[^<]+)<')


@pytest.fixture
def shared(db: Path | str, tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(WebSettings(db=db, allowed_hosts=("testserver",), shared=True,
                                 backups=tmp_path / "backups"))
    with TestClient(app, base_url="http://testserver") as client:
        yield client


def _sign_up(client: TestClient, login: str) -> None:
    page = client.get("/login")
    r = client.post("/signup", data={"csrf_token": token_of(page.text), "login": login,
                                     "password": PASSWORD, "next": "/"},
                    follow_redirects=False)
    assert r.status_code == 303, r.text


def _put_once(client: TestClient, value: str, path: str) -> None:
    """Replace the client's carried cookie by ``value``, as the browser would send it."""
    for cookie in list(client.cookies.jar):
        if cookie.name == once.COOKIE:
            client.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)
    client.cookies.set(once.COOKIE, value, domain="testserver.local", path=path)


def _create_shared(client: TestClient, name: str = "both") -> tuple[str, str]:
    """Create a campaign from the form: (the redirect's location, the once cookie)."""
    page = client.get("/")
    r = client.post("/campaigns", data={"csrf_token": token_of(page.text), "name": name},
                    files={"file": ("two.toml", SCENARIO.read_bytes(), "text/plain")},
                    follow_redirects=False)
    assert r.status_code == 303, r.text
    assert "/join/" not in r.text  # the links are not in the answer to the POST
    return r.headers["location"], r.cookies[once.COOKIE]


def test_a_new_campaigns_invites_are_shown_once_after_the_redirect(shared: TestClient) -> None:
    _sign_up(shared, "ann")
    location, _ = _create_shared(shared)
    assert re.fullmatch(r"/c/[0-9a-f]{32}/seats", location), location
    page = shared.get(location)
    links = dict(LINK.findall(page.text))
    assert page.status_code == 200 and set(links) == {"finland", "soviet"}
    assert once.COOKIE not in shared.cookies  # cleared by the page that showed them
    # A reload shows the seats, and no link any more.
    assert "/join/" not in shared.get(location).text
    # The links carried over the redirect are the real ones: each opens its seat.
    page = shared.get(links["finland"])
    joined = shared.post("/join", data={"csrf_token": token_of(page.text),
                                        "token": links["finland"].rsplit("/", 1)[1]},
                         follow_redirects=False)
    assert joined.status_code == 303
    seats = shared.get(location).text
    assert "ann" in seats and "(you)" in seats


def test_a_new_invite_for_a_free_seat_redirects_and_shows_its_link_once(
        shared: TestClient) -> None:
    _sign_up(shared, "ann")
    location, _ = _create_shared(shared)
    first = dict(LINK.findall(shared.get(location).text))
    page = shared.get(location)
    r = shared.post(location, data={"csrf_token": token_of(page.text), "action": "invite",
                                    "seat": "soviet"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == location
    shown = shared.get(location)
    links = dict(LINK.findall(shown.text))
    assert set(links) == {"soviet"} and links["soviet"] != first["soviet"]
    assert "/join/" not in shared.get(location).text


def test_a_carried_invite_reaches_no_other_account(shared: TestClient, db: Path | str,
                                                  tmp_path: Path) -> None:
    """Attacker: Mallory, signed in, replays Ann's carried cookie (a shared computer, a
    copied cookie jar): the seats page shows her no link, and a campaign she holds no seat
    in stays unknown to her."""
    _sign_up(shared, "ann")
    location, carried = _create_shared(shared)
    app = shared.app
    with TestClient(app, base_url="http://testserver") as mallory:
        _sign_up(mallory, "mallory")
        _put_once(mallory, carried, location)
        r = mallory.get(location)
        assert f"{once.COOKIE}=" in r.request.headers["cookie"]  # it was sent
        assert "/join/" not in r.text and r.status_code == 404


def test_a_forged_or_stale_carried_notice_is_not_shown(shared: TestClient,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Attacker: a cookie made without the server's key (links of the forger's choosing), and
    a genuine one past its lifetime, are both ignored."""
    _sign_up(shared, "ann")
    location, carried = _create_shared(shared)
    body, _, mac = carried.rpartition(".")
    forged = f"{body}.{'0' * len(mac)}"
    _put_once(shared, forged, location)
    r = shared.get(location)
    assert f"{once.COOKIE}={forged}" in r.request.headers["cookie"]
    assert "/join/" not in r.text
    shared.cookies.clear()
    _sign_up(shared, "ann2")
    location, carried = _create_shared(shared, "later")
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + once.LIFETIME + 1)
    _put_once(shared, carried, location)  # a browser that kept it past its Max-Age
    r = shared.get(location)
    assert f"{once.COOKIE}={carried}" in r.request.headers["cookie"]
    assert r.status_code == 200 and 'id="seats"' in r.text and "/join/" not in r.text


def test_deleting_redirects_to_the_list_and_says_once_where_the_backup_is(
        client: TestClient, tmp_path: Path) -> None:
    page = client.get("/")
    made = client.post("/campaigns", data={"csrf_token": token_of(page.text), "name": "gone",
                                           "scenario": "example1_tolvajarvi"},
                       follow_redirects=False)
    assert made.status_code == 303
    campaign = client.get(made.headers["location"])
    r = client.post(made.headers["location"] + "/delete",
                    data={"csrf_token": token_of(campaign.text), "confirm": "yes",
                          "expected_version": "1"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    listed = client.get("/")
    notice = re.search(r"deleted 'gone' \(1 events\); its backup is (\S+): import it",
                       html.unescape(listed.text))
    assert notice, listed.text
    assert Path(notice.group(1)).parent == tmp_path / "backups"
    assert Path(notice.group(1)).is_file()
    assert "deleted &#39;gone&#39;" not in client.get("/").text  # once
