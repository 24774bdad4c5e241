"""The guards: Host (DNS rebinding), Origin/Sec-Fetch-Site, CSRF, body cap, headers, errors."""

from __future__ import annotations

from fastapi.testclient import TestClient


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
