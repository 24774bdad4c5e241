"""The guards: Host (DNS rebinding), Origin/Sec-Fetch-Site, CSRF, body cap, headers, errors."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi.testclient import TestClient

from web.conftest import token_of


def test_index_renders_with_security_headers(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert "<h1>Campaigns</h1>" in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "rallypoint_csrf=" in r.headers["set-cookie"]
    assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]


def test_foreign_host_is_refused(client: TestClient) -> None:
    r = client.get("/", headers={"host": "evil.example:8000"})
    assert r.status_code == 421
    assert r.json()["code"] == "bad-host"


def test_loopback_hosts_are_accepted(client: TestClient) -> None:
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST"):
        assert client.get("/api/campaigns", headers={"host": host}).status_code == 200, host


def test_unknown_route_is_json_404(client: TestClient) -> None:
    r = client.get("/api/nothing-here")
    assert r.status_code == 404
    assert r.json()["code"] == "not-found"


def _new_campaign(client: TestClient) -> str:
    r = client.post("/api/campaigns", json={"scenario": "farm_below_the_ridge", "name": "r"})
    return str(r.json()["id"])


def _turn_form(client: TestClient, cid: str, **extra: str) -> dict[str, str]:
    page = client.get(f"/c/{cid}")
    return {"csrf_token": token_of(page.text), "expected_version": "1", "kind": "turn",
            **extra}


def test_a_form_with_its_token_records_and_redirects(client: TestClient) -> None:
    cid = _new_campaign(client)
    r = client.post(f"/c/{cid}/do", data=_turn_form(client, cid), follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith(f"/c/{cid}?done=2")
    assert client.get(f"/api/campaigns/{cid}").json()["version"] == 2


def test_forms_without_the_right_token_are_refused(client: TestClient) -> None:
    cid = _new_campaign(client)
    form = _turn_form(client, cid)
    for token in (None, "", "0" * 64, token_of(client.get("/").text)[:-1] + "x"):
        data = {**form, "csrf_token": token} if token is not None else {
            k: v for k, v in form.items() if k != "csrf_token"}
        r = client.post(f"/c/{cid}/do", data=data)
        assert (r.status_code, r.json()["code"]) == (403, "csrf"), token
    # Another browser (no cookie) cannot reuse this browser's token.
    with TestClient(client.app, base_url="http://testserver") as other:
        r = other.post(f"/c/{cid}/do", data=form)
        assert r.status_code == 403
    assert client.get(f"/api/campaigns/{cid}").json()["version"] == 1


def test_cross_origin_writes_are_refused(client: TestClient) -> None:
    cid = _new_campaign(client)
    form = _turn_form(client, cid)
    for headers in ({"origin": "http://evil.example"},
                    {"origin": "http://testserver:9999"},  # another local server: same site
                    {"origin": "null"},
                    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"}):
        r = client.post(f"/c/{cid}/do", data=form, headers=headers)
        assert (r.status_code, r.json()["code"]) == (403, "cross-site"), headers
        r = client.post(f"/api/campaigns/{cid}/commands", headers=headers,
                        json={"command": {"kind": "turn", "expected_version": 1}})
        assert r.status_code == 403, headers
    assert client.get(f"/api/campaigns/{cid}").json()["version"] == 1
    ok = client.post(f"/c/{cid}/do", data=form, headers={"origin": "http://testserver",
                                                         "sec-fetch-site": "same-origin"})
    assert ok.status_code == 200  # followed the redirect to the page


def test_a_stale_form_is_refused_on_its_page(client: TestClient) -> None:
    cid = _new_campaign(client)
    form = _turn_form(client, cid)
    assert client.post(f"/c/{cid}/do", data=form).status_code == 200
    r = client.post(f"/c/{cid}/do", data=form)  # the same page's form, now one version old
    assert r.status_code == 409 and "stale-version" in r.text and "version 2" in r.text
    assert client.get(f"/api/campaigns/{cid}").json()["version"] == 2


def test_oversized_bodies_are_refused_before_any_work(client: TestClient) -> None:
    cid = _new_campaign(client)
    big = b"x" * (5 * 1024 * 1024)
    r = client.post("/import", files={"file": ("big.json", big)},
                    data={"csrf_token": token_of(client.get("/").text)})
    assert (r.status_code, r.json()["code"]) == (413, "too-large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        for _ in range(5):
            yield b"x" * (1024 * 1024)

    r = client.post(f"/api/campaigns/{cid}/commands", content=chunks(),
                    headers={"content-type": "application/json"})
    assert (r.status_code, r.json()["code"]) == (413, "too-large")
    assert client.get(f"/api/campaigns/{cid}").json()["version"] == 1


def test_user_text_is_escaped(client: TestClient) -> None:
    r = client.post("/api/campaigns", json={"scenario": "farm_below_the_ridge",
                                            "name": "<script>alert(1)</script>"})
    cid = r.json()["id"]
    for url in ("/", f"/c/{cid}", f"/c/{cid}/log"):
        text = client.get(url).text
        assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)" in text, url


def test_unknown_campaign_page_is_an_html_404(client: TestClient) -> None:
    r = client.get("/c/nope", headers={"accept": "text/html"})
    assert r.status_code == 404 and "unknown-id" in r.text and "<h1>Refused</h1>" in r.text
