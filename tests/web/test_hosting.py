"""A server for a club: the health check, worker processes, limits every worker shares, a pooled
PostgreSQL store, the proxy-header default, the header-read timeout and the access log.

Most tests run a real `rallypoint serve` process on loopback (uvicorn, its protocol and its
workers are what is tested); the pool and the health check's failures are also tested in process.
"""

from __future__ import annotations

import json
import socket
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient

from rallypoint.session.hosting import pool_stats
from rallypoint.web.app import create_app
from rallypoint.web.settings import WebSettings
from web.conftest import BACKENDS, database
from web.hosting_kit import PASSWORD, Browser, served


@pytest.fixture(params=BACKENDS)
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    yield from database(request.param, tmp_path)


def _app(db: Path | str, **kwargs: Any) -> TestClient:
    return TestClient(create_app(WebSettings(db=db, allowed_hosts=("testserver",), **kwargs)),
                      base_url="http://testserver")


# --- /healthz ---

def test_healthz_says_ok_without_a_login_and_tells_no_campaign(fresh: Path | str) -> None:
    with _app(fresh, shared=True) as client:
        r = client.get("/healthz")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    body = r.json()
    assert (body["status"], body["database"], body["migrations"]) == \
        ("ok", "reachable", "current")
    assert set(body) == {"status", "version", "backend", "database", "migrations"}


def test_healthz_is_503_when_the_database_is_gone(tmp_path: Path) -> None:
    db = tmp_path / "web.db"
    with _app(db) as client:
        assert client.get("/healthz").status_code == 200
        for path in tmp_path.glob("web.db*"):
            path.unlink()
        r = client.get("/healthz")
    assert r.status_code == 503 and r.json()["database"] == "unreachable"


def test_healthz_is_503_on_postgresql_that_went_away() -> None:
    from pg_kit import fresh_database, server_url

    for url in fresh_database():
        with _app(url) as client:
            assert client.get("/healthz").status_code == 200
            name = url.rsplit("/", 1)[1]
            with psycopg.connect(server_url(), autocommit=True) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            r = client.get("/healthz")
        assert r.status_code == 503 and r.json()["status"] == "unavailable"


def test_healthz_is_503_when_migrations_are_not_this_versions(tmp_path: Path) -> None:
    db = tmp_path / "web.db"
    with _app(db) as client:
        with sqlite3.connect(db) as conn:  # a newer rallypoint migrated this database
            conn.execute("INSERT INTO schema_migrations VALUES ('9999_future', 'x')")
        r = client.get("/healthz")
    assert r.status_code == 503 and "9999_future" in r.json()["problem"]


# --- the pool ---

def test_a_server_process_reuses_pooled_postgresql_connections() -> None:
    from pg_kit import fresh_database

    for url in fresh_database():
        with _app(url, pool_size=4) as client:
            for _ in range(25):
                assert client.get("/api/campaigns").status_code == 200
            stats = pool_stats(url)
        # 25 requests opened the store about 50 times: all but the first few borrowed.
        assert stats["connections_num"] <= 2 and stats["requests_num"] >= 25
        assert pool_stats(url) == {}  # the app's shutdown closed its pool


# --- workers, and what they share ---

def _fresh_pg() -> Iterator[str]:
    from pg_kit import fresh_database

    yield from fresh_database()


@pytest.mark.slow
def test_ten_cold_starts_of_two_workers_on_fresh_postgresql() -> None:
    # Both workers create the schema and the cookie key at once on an empty database; each
    # start must come up whole, with one key that both workers sign with.
    for _ in range(10):
        for url in _fresh_pg():
            with served(url, "--shared", "--workers", "2") as server:
                ann = Browser(server.url)
                assert ann.post("/api/accounts", {"login": "ann", "password": PASSWORD}) \
                    .status_code == 201
                # Whichever worker answers, the cookie verifies: one key.
                logins = {ann.http.get("/api/session").json()["login"] for _ in range(8)}
                ann.close()
                assert logins == {"ann"}
                assert server.proc.poll() is None
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT count(*) FROM web_keys").fetchone() == (1,)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_login_limits_hold_across_two_worker_processes(backend: str, tmp_path: Path) -> None:
    for db in database(backend, tmp_path):
        with served(db, "--shared", "--workers", "2") as server:
            owner = Browser(server.url)
            assert owner.post("/api/accounts", {"login": "ann", "password": PASSWORD}) \
                .status_code == 201
            # Ten guesses at once from one address, spread over both workers by the kernel.
            guessers = [Browser(server.url) for _ in range(10)]
            with ThreadPoolExecutor(10) as pool:
                codes = list(pool.map(lambda b: b.post(
                    "/api/session", {"login": "ann", "password": "wrong guess!!"}).status_code,
                    guessers))
            for b in guessers:
                b.close()
            owner.close()
        assert sorted(codes) == [401] * 5 + [429] * 5


@pytest.mark.slow
def test_signups_are_limited_per_address(tmp_path: Path) -> None:
    with served(tmp_path / "web.db", "--shared") as server:
        codes = []
        for n in range(6):
            b = Browser(server.url)
            codes.append(b.post("/api/accounts", {"login": f"player{n}",
                                                  "password": PASSWORD}).status_code)
            b.close()
    assert codes == [201] * 5 + [429]


@pytest.mark.slow
def test_forwarded_for_is_ignored_unless_a_proxy_is_configured(tmp_path: Path) -> None:
    # A client naming a new X-Forwarded-For each time must not get a fresh allowance each time.
    def attempts(*args: str) -> list[int]:
        with served(tmp_path / f"web{len(args)}.db", "--shared", *args) as server:
            b = Browser(server.url)
            codes = [b.post("/api/session", {"login": "ann", "password": "wrong guess!!"},
                            headers=[("x-forwarded-for", f"10.9.8.{n}")]).status_code
                     for n in range(7)]
            b.close()
            return codes

    assert attempts() == [401] * 5 + [429] * 2
    trusted = attempts("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1")
    assert trusted == [401] * 7  # behind a proxy that sets it, each address counts alone


@pytest.mark.slow
def test_a_failed_guesser_cannot_lock_the_owner_out(tmp_path: Path) -> None:
    with served(tmp_path / "web.db", "--shared", "--proxy-headers") as server:
        owner = Browser(server.url, headers={"x-forwarded-for": "192.0.2.1"})
        assert owner.post("/api/accounts", {"login": "ann", "password": PASSWORD}) \
            .status_code == 201
        thief = Browser(server.url, headers={"x-forwarded-for": "198.51.100.7"})
        codes = [thief.post("/api/session", {"login": "ann", "password": "wrong guess!!"})
                 .status_code for _ in range(6)]
        assert codes == [401] * 5 + [429]
        assert owner.post("/api/session", {"login": "ann", "password": PASSWORD}) \
            .status_code == 200
        owner.close()
        thief.close()


# --- the header-read timeout, and the access log ---

def _held_open(url: str, wait: float) -> bool:
    """Whether a connection that sends half a request's headers is still open after ``wait``."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        try:
            return sock.recv(1024) != b""
        except TimeoutError:
            return True


@pytest.mark.slow
def test_a_client_too_slow_with_its_headers_is_cut_off(tmp_path: Path) -> None:
    with served(tmp_path / "web.db", "--header-timeout", "1") as server:
        assert not _held_open(server.url, wait=20)  # closed by the server after ~1 s
        assert httpx.get(server.url + "/healthz").status_code == 200
    with served(tmp_path / "web.db", "--header-timeout", "60") as server:
        assert _held_open(server.url, wait=3)  # the same client, a patient server: still open


@pytest.mark.slow
def test_the_access_log_is_json_lines_without_query_strings(tmp_path: Path) -> None:
    with served(tmp_path / "web.db", "--shared", "--access-log", "--log-json") as server:
        httpx.get(server.url + "/join?token=SECRET-INVITE-TOKEN")
        httpx.get(server.url + "/healthz")
        server.proc.terminate()
        _, err = server.proc.communicate(timeout=30)
    assert "SECRET-INVITE-TOKEN" not in err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    access = [e for e in lines if e["logger"] == "rallypoint.access"]
    assert {"client", "method", "path", "status", "ms", "time", "level"} <= set(access[0])
    assert [e["path"] for e in access if e["path"] in ("/join", "/healthz")][-2:] == \
        ["/join", "/healthz"]
    assert all(isinstance(e["status"], int) for e in access)
    # No line that is not JSON (uvicorn's own lines go through the same formatter).
    assert all(line.startswith("{") for line in err.splitlines() if line.strip())


def test_the_settings_reach_worker_processes_whole(tmp_path: Path) -> None:
    from rallypoint.web.server import settings_from_json, settings_json

    settings = WebSettings(db=tmp_path / "x.db", allowed_hosts=("club.example",), shared=True,
                           backups=tmp_path / "b", pool_size=3, access_log=True)
    assert settings_from_json(settings_json(settings)) == settings
    url = WebSettings(db="postgresql://u@h/d")
    assert settings_from_json(settings_json(url)) == url


@pytest.mark.slow
def test_the_deployment_layout_on_loopback() -> None:
    # docs/hosting.md's layout without containers: PostgreSQL, two workers behind a (trusted,
    # here absent) proxy, JSON logs, then a smoke walk: health, an account, a campaign, a
    # command, its page.
    for url in _fresh_pg():
        with served(url, "--shared", "--workers", "2", "--proxy-headers",
                    "--forwarded-allow-ips", "127.0.0.1", "--access-log", "--log-json",
                    "--secure-cookies") as server:
            health = httpx.get(server.url + "/healthz").json()
            assert (health["status"], health["backend"]) == ("ok", "postgresql")
            ann = Browser(server.url)
            # --secure-cookies: a browser keeps them over HTTPS only; this test client over
            # plain HTTP is told to keep them anyway.
            r = ann.post("/api/accounts", {"login": "ann", "password": PASSWORD})
            assert r.status_code == 201 and "Secure" in r.headers["set-cookie"]
            for cookie in ann.http.cookies.jar:
                cookie.secure = False
            made = ann.post("/api/campaigns", {"scenario": "farm_below_the_ridge",
                                               "name": "ridge"})
            assert made.status_code == 201, made.text
            seats = made.json()["invites"]
            seat = next(s for s in seats if not s.startswith("@"))
            assert ann.post("/api/join", {"invite": seats[seat]}).status_code == 201
            turn = ann.post("/api/campaigns/ridge/commands",
                            {"command": {"kind": "turn", "expected_version": 1}})
            assert turn.status_code == 201, turn.text
            page = ann.http.get(f"/c/{made.json()['id']}", headers={"accept": "text/html"})
            assert page.status_code == 200 and "ridge" in page.text
            ann.close()
