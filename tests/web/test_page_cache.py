"""A page served from a worker's cache is never stale after a write by another worker.

Each server process keeps its rendered pages until the database changes; on PostgreSQL the
change is seen through the database's own change mark, asked once per request on a connection kept
for it (``session.hosting.change_mark``). Two apps on one database stand for two workers (each
has its own cache); a bare session stands for the command line or any other process.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from rallypoint.session import Session
from rallypoint.web.app import create_app
from rallypoint.web.settings import WebSettings
from web.conftest import BACKENDS, database
from web.hosting_kit import served

SCENARIO = Path(__file__).resolve().parents[2] / \
    "src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml"
VERSION = re.compile(r'name="expected_version" value="(\d+)"')


@pytest.fixture(params=BACKENDS)
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    yield from database(request.param, tmp_path)


def _worker(db: Path | str) -> TestClient:
    return TestClient(create_app(WebSettings(db=db, allowed_hosts=("testserver",),
                                             pool_size=4)), base_url="http://testserver")


def _shown_version(client: TestClient | httpx.Client, cid: str) -> int:
    page = client.get(f"/c/{cid}", headers={"accept": "text/html"})
    assert page.status_code == 200
    return int(VERSION.findall(page.text)[0])


def test_a_cached_page_follows_writes_by_another_worker_and_another_process(
        fresh: Path | str) -> None:
    cid = Session(fresh).create(SCENARIO, name="ridge").id
    with _worker(fresh) as one, _worker(fresh) as two:
        assert [_shown_version(one, cid) for _ in range(3)] == [1, 1, 1]
        assert _shown_version(two, cid) == 1
        r = two.post(f"/api/campaigns/{cid}/commands",
                     json={"command": {"kind": "turn", "expected_version": 1}})
        assert r.status_code == 201 and r.json()["version"] == 2
        assert _shown_version(one, cid) == 2
        # Another process (the command line) writes: both workers' pages follow.
        Session(fresh).execute(cid, {"kind": "turn", "expected_version": 2})
        assert (_shown_version(one, cid), _shown_version(two, cid)) == (3, 3)


@pytest.fixture
def pg() -> Iterator[str]:
    from pg_kit import fresh_database

    yield from fresh_database()


def test_a_cached_page_costs_postgresql_one_statement(pg: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import psycopg

    # The mark is this database's own: other databases (other tests running meanwhile) leave it
    # alone, so every request below is answered from the cache.
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(self: psycopg.Cursor[Any], query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return execute(self, query, *args, **kwargs)

    cid = Session(pg).create(SCENARIO, name="ridge").id
    with _worker(pg) as one:
        assert _shown_version(one, cid) == 1  # rendered and cached
        monkeypatch.setattr(psycopg.Cursor, "execute", counted)
        assert [_shown_version(one, cid) for _ in range(5)] == [1] * 5
        monkeypatch.setattr(psycopg.Cursor, "execute", execute)
    assert sent == ["SELECT xmin::text || ':' || n::text FROM page_mark"] * 5


@pytest.mark.slow
def test_two_worker_processes_on_postgresql_serve_no_stale_page(pg: str) -> None:
    cid = Session(pg).create(SCENARIO, name="ridge").id
    # A new connection per request: the kernel spreads them over both workers, and each worker
    # caches the page.
    with served(pg, "--workers", "2") as server, httpx.Client(
            base_url=server.url, timeout=30,
            limits=httpx.Limits(max_keepalive_connections=0)) as http:
        assert {_shown_version(http, cid) for _ in range(12)} == {1}
        for version in (1, 2, 3):
            r = http.post(f"/api/campaigns/{cid}/commands",
                          json={"command": {"kind": "turn", "expected_version": version}})
            assert r.status_code == 201
            assert [_shown_version(http, cid) for _ in range(8)] == [version + 1] * 8
