"""Many clients on loopback send commands to one campaign at once, through a real server.

`rallypoint serve` runs as its own process; 8 clients, each in its own thread with its own
connection, post `turn` commands made against the version they last saw. Each command is either
recorded once (decided again at the current version when it raced, `retried`) or refused as
`stale-version` (409); none is lost or recorded twice: the log has exactly one event per 201,
contiguous seqs, an intact chain, and the turn number equals the number of turns recorded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rallypoint.session import Session
from web.conftest import BACKENDS, database, free_port

CLIENTS = 8
COMMANDS = 6


@pytest.fixture(params=BACKENDS)
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(URL, database) of `rallypoint serve` on a fresh database of each backend."""
    for db in database(request.param, tmp_path):
        Session(db).create(next(iter(Path(__file__).parents[2].glob(
            "src/rallypoint/rulesets/tcs/scenarios/example1_tolvajarvi.toml"))), name="race")
        port = free_port()
        env = {**os.environ, "NO_COLOR": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-c", "from rallypoint.cli.main import run; run()", "serve",
             "--db", str(db), "--port", str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(url + "/api/campaigns", timeout=2)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.1)
            yield url, str(db)
        finally:
            proc.terminate()
            proc.wait(20)


def test_concurrent_commands_are_recorded_once_or_refused(served: tuple[str, str]) -> None:
    url, db = served
    outcomes: list[tuple[int, dict[str, Any]]] = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client() -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            start.wait()
            for _ in range(COMMANDS):
                seen = http.get("/api/campaigns/race").json()["version"]
                r = http.post("/api/campaigns/race/commands", json={
                    "command": {"kind": "turn", "expected_version": seen}})
                with lock:
                    outcomes.append((r.status_code, r.json()))

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert len(outcomes) == CLIENTS * COMMANDS
    recorded = [body for status, body in outcomes if status == 201]
    refused = [body for status, body in outcomes if status != 201]
    assert all(body["code"] == "stale-version" for body in refused), refused[:3]
    seqs = sorted(body["seq"] for body in recorded)
    assert seqs == list(range(2, 2 + len(recorded)))  # none lost, none doubled
    assert any(body["retried"] for body in recorded)  # the race did happen
    session = Session(db)
    assert session.verify("race").problem is None
    campaign = session.load("race", whole=True)
    assert campaign.version == 1 + len(recorded)
    assert campaign.ruleset.state_json(campaign.state)["turn"] == 1 + len(recorded)
