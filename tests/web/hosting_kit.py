"""A real `rallypoint serve` process on loopback for the hosting tests, and a client for it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from web.conftest import free_port

PASSWORD = "correct horse battery"


@dataclass
class Served:
    """A running server: its base URL and process (stderr is read after it stops)."""

    url: str
    proc: subprocess.Popen[str]


@contextmanager
def served(db: Path | str, *args: str, start_within: float = 90.0) -> Iterator[Served]:
    """`rallypoint serve --db DB --port P ARGS…` until the block ends (then terminated).

    Ready when ``/healthz`` answers 200; a server that exits or never gets ready fails the test
    with its stderr.
    """
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from rallypoint.cli.main import run; run()", "serve", "--db",
         str(db), "--port", str(port), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "NO_COLOR": "1"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_within
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"the server did not start: {proc.communicate()[1]}")
            time.sleep(0.1)
        yield Served(url, proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


class Browser:
    """One player's client: its own cookies, and the CSRF header its JSON writes need."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        # A new connection per request: a kept-alive one that the server closes as idle just as
        # the next request goes out fails that request ("Server disconnected"), which happens
        # on a loaded machine and is not what these tests are about.
        self.http = httpx.Client(base_url=url, timeout=30, headers=headers or {},
                                 limits=httpx.Limits(max_keepalive_connections=0))
        self.token = str(self.http.get("/api/session").json()["csrf_token"])

    def post(self, path: str, body: dict[str, object],
             headers: Sequence[tuple[str, str]] = ()) -> httpx.Response:
        """A JSON write."""
        return self.http.post(path, json=body,
                              headers={"x-csrf-token": self.token, **dict(headers)})

    def close(self) -> None:
        self.http.close()
