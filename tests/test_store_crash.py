"""Crash safety: a writer killed with SIGKILL at random moments never loses an acknowledged event.

The writer prints each seq only after ``append_many`` returned, so every printed line is a promise
that the event is durable. After each kill the log must hold every promised event with the promised
payload, have contiguous seqs, pass ``verify`` and contain every batch whole or not at all.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from rallypoint.core.events import CREATED, NewEvent
from rallypoint.store import EventStore


class Written(BaseModel):
    """What the writers store in each test event: its number, its batch and the batch's size."""

    n: int
    batch: str
    size: int

CID = "crash-test-campaign"
ROUNDS = 15
SRC = Path(__file__).resolve().parents[1] / "src"

WRITER = """
import json, sys
from rallypoint.core.events import NewEvent
from rallypoint.store import EventStore

path, campaign_id, round_ = sys.argv[1], sys.argv[2], sys.argv[3]
store = EventStore(path)
version = store.campaign(campaign_id).version
print("ready", flush=True)
batch = 0
while True:
    batch += 1
    size = 3 if batch % 3 == 0 else 1  # every third write is an atomic batch of three
    events = [
        NewEvent(type="test", payload={"n": version + 1 + k, "size": size,
                                       "text": f"round {round_} batch {batch}",
                                       "batch": f"{round_}-{batch}"})
        for k in range(size)
    ]
    for record in store.append_many(campaign_id, version + 1, events):
        print(json.dumps({"seq": record.seq, "payload": record.payload}), flush=True)
    version += size
"""


def writer_env() -> dict[str, str]:
    """The environment with ``src`` importable even without the editable install."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    return env


def run_writer_until_killed(db: Path, round_: int, delay: float) -> list[dict[str, Any]]:
    """Start a writer, SIGKILL it ``delay`` seconds after it is ready; return its acks."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), CID, str(round_)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=writer_env(),
    )
    try:
        assert proc.stdout is not None
        ready = proc.stdout.readline()
        if ready.strip() != "ready":
            proc.kill()
            _, err = proc.communicate(timeout=10)
            pytest.fail(f"writer did not start: {ready!r} {err}")
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"writer died on its own: {err}"
    # A line cut off by the kill was never a complete acknowledgement.
    complete = out.split("\n")[:-1]
    return [json.loads(line) for line in complete]


@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_acknowledged_appends_survive_sigkill(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    with EventStore(db) as store:
        store.create_campaign(CID, "Crash", "test", NewEvent(type=CREATED, payload={"seed": 1}))
    rng = random.Random(1943)
    acked: dict[int, dict[str, Any]] = {}

    for round_ in range(ROUNDS):
        for ack in run_writer_until_killed(db, round_, rng.uniform(0.05, 0.3)):
            assert ack["seq"] not in acked, "a seq was acknowledged twice"
            acked[ack["seq"]] = ack["payload"]

        with EventStore(db) as store:
            events = store.events(CID)
            report = store.verify(CID)
        assert report.ok, report.problem
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        for seq, payload in acked.items():
            assert seq <= len(events), f"acknowledged seq {seq} lost after round {round_}"
            assert events[seq - 1].payload == payload
        written = [(e.seq, Written.model_validate(e.payload)) for e in events[1:]]
        assert all(w.n == seq for seq, w in written)
        sizes = Counter(w.batch for _, w in written)
        for _, w in written:
            assert sizes[w.batch] == w.size, "a batch was half written"

    assert len(acked) >= ROUNDS, "the writers hardly wrote anything; the test proves little"


# -- many kills: a forked writer, so each kill costs milliseconds, not an interpreter start ------

KILLS = 300
"""SIGKILLs in the long test; each round forks a writer from this already-imported process."""


def _fork_writer(db: Path, round_: int) -> tuple[int, int]:
    """Fork a child that appends until killed, acknowledging each stored seq on a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            os.close(read_end)
            store = EventStore(db)
            version = store.campaign(CID).version
            os.write(write_end, b"ready\n")
            batch = 0
            while True:
                batch += 1
                size = 3 if batch % 3 == 0 else 1
                events = [NewEvent(type="test", payload={
                    "n": version + 1 + k, "size": size, "batch": f"{round_}-{batch}"})
                    for k in range(size)]
                for record in store.append_many(CID, version + 1, events):
                    line = json.dumps({"seq": record.seq, "payload": record.payload})
                    os.write(write_end, line.encode() + b"\n")
                version += size
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _read_until(fd: int, buffer: bytearray, token: bytes, timeout: float) -> None:
    import select

    deadline = time.monotonic() + timeout
    while token not in buffer:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            pytest.fail("the forked writer did not start")
        chunk = os.read(fd, 65536)
        if not chunk:
            pytest.fail("the forked writer died before it was ready")
        buffer.extend(chunk)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_300_kills_lose_no_acknowledged_event(tmp_path: Path) -> None:
    db = tmp_path / "kills.sqlite3"
    with EventStore(db) as store:
        store.create_campaign(CID, "Kills", "test", NewEvent(type=CREATED, payload={"seed": 1}))
    rng = random.Random(1944)
    acked: dict[int, dict[str, Any]] = {}
    for round_ in range(KILLS):
        pid, fd = _fork_writer(db, round_)
        buffer = bytearray()
        try:
            _read_until(fd, buffer, b"ready\n", 10)
            time.sleep(rng.uniform(0.0, 0.04))  # kill at a random moment of the append loop
        finally:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        while chunk := os.read(fd, 65536):
            buffer.extend(chunk)
        os.close(fd)
        assert os.WIFSIGNALED(status), "the writer died on its own"
        # A line cut off by the kill was never a complete acknowledgement.
        for line in bytes(buffer).split(b"\n")[1:-1]:
            ack = json.loads(line)
            assert ack["seq"] not in acked, "a seq was acknowledged twice"
            acked[ack["seq"]] = ack["payload"]
        if round_ % 25 == 0 or round_ == KILLS - 1:
            _check_log(db, acked, round_)
    # Most kills land mid-append (that is the point); about one ack per kill on average.
    assert len(acked) >= KILLS // 2, "the writers hardly wrote anything; the test proves little"
    print(f"{KILLS} kills, {len(acked)} acknowledged events, 0 lost")


def _check_log(db: Path, acked: dict[int, dict[str, Any]], round_: int) -> None:
    with EventStore(db, readonly=True) as store:
        events = store.events(CID)
        report = store.verify(CID)
    assert report.ok, report.problem
    for seq, payload in acked.items():
        assert seq <= len(events), f"acknowledged seq {seq} lost after kill {round_}"
        assert events[seq - 1].payload == payload
    written = [Written.model_validate(e.payload) for e in events[1:]]
    sizes = Counter(w.batch for w in written)
    for w in written:
        assert sizes[w.batch] == w.size, "a batch was half written"
