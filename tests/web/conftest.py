"""Web fixtures: an app on a temporary database, an in-process client, a live server."""

from __future__ import annotations

import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from rallypoint.web.app import create_app
from rallypoint.web.settings import WebSettings

SECRET = b"test-secret-key-0123456789abcdef"


BACKENDS = ["sqlite", "postgres"]
"""Every in-process web test runs on SQLite and on PostgreSQL (``RALLYPOINT_TEST_PG``; skipped
locally when no server answers, a failure under CI)."""


def database(kind: str, tmp_path: Path) -> Iterator[Path | str]:
    """A fresh database of ``kind``: a SQLite file, or a throwaway PostgreSQL database."""
    if kind == "sqlite":
        yield tmp_path / "web.db"
        return
    from pg_kit import fresh_database

    yield from fresh_database()


@pytest.fixture(autouse=True, scope="module")
def one_chromium_per_module() -> Iterator[None]:
    """The browser walks of a module share one chromium (web/browser.py), stopped after it."""
    yield
    if "web.browser" in sys.modules:  # a module without walks never loads Playwright
        sys.modules["web.browser"].close_chromium()


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """A fresh database on each backend."""
    yield from database(request.param, tmp_path)


@pytest.fixture
def settings(db: Path | str, tmp_path: Path) -> WebSettings:
    """Settings for an app on a fresh database, answering to the test client's host."""
    return WebSettings(db=db, allowed_hosts=("testserver",), secret=SECRET,
                       backups=tmp_path / "backups")


@pytest.fixture
def app(settings: WebSettings) -> FastAPI:
    """The app on a fresh database."""
    return create_app(settings)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """An in-process client (host ``testserver``) that keeps cookies like a browser."""
    with TestClient(app, base_url="http://testserver") as c:
        yield c


def token_of(html: str) -> str:
    """The CSRF token a page embeds in its forms."""
    match = re.search(r'name="csrf_token" value="([0-9a-f]+)"', html)
    assert match, "the page has no CSRF field"
    return match.group(1)


def free_port() -> int:
    """A TCP port on loopback nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """uvicorn serving the app in a thread on loopback (for the browser tests)."""

    def __init__(self, db: Path | str, shared: bool = False) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.settings = WebSettings(db=db, port=self.port, shared=shared)
        config = uvicorn.Config(create_app(self.settings), host="127.0.0.1", port=self.port,
                                log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A real server on a free loopback port with a fresh database."""
    with LiveServer(tmp_path / "live.db") as server:
        yield server
