"""Web benchmark (not a timed test): requests per second and p99 latency of the campaign page and
two odds fragments, with a load tool on loopback. Run with ``uv run python bench/web.py``.

It starts ``rallypoint serve`` on a free loopback port with a throwaway database (TCS Example #1
after its sheet and six turns, so the page shows a sheet with its odds table; the squares battle
with a unit chosen), warms each URL up, then drives it with ``wrk`` (Debian's package) for a
fixed time, or, where wrk is missing, with a bounded Python client. Traffic goes to 127.0.0.1
only, and every run is bounded in time. Writes its section of ``docs/performance.md``.

Options: ``--seconds N`` per URL (default 10), ``--connections N`` (default 8), ``--no-doc``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import doc_section  # bench/, beside this script

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- web-bench:begin -->", "<!-- web-bench:end -->"
GOAL_RPS, GOAL_P99_MS = 500.0, 50.0
CENTERS = {"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21", "MG/ErP112": "8.21"}


@dataclass
class Result:
    """One URL under load."""

    name: str
    path: str
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int
    tool: str

    @property
    def met(self) -> bool:
        return self.rps >= GOAL_RPS and self.p99_ms <= GOAL_P99_MS and self.errors == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _prepare(db: Path) -> tuple[str, str]:
    """Example #1 with its sheet written and six turns played; the squares battle."""
    from rallypoint.core.registry import registered
    from rallypoint.session import Session

    session = Session(db)
    shipped = {p.stem: p for r in registered().values() for p in r.example_scenarios()}
    tcs = session.create(shipped["example1_tolvajarvi"], name="ex1", seed="bench")
    session.execute("ex1", {"kind": "write_sheet", "expected_version": 1, "sheet": "rest",
                            "members": ["ErP112"], "centers": CENTERS, "size": 1,
                            "attest": True})
    for version in range(2, 8):
        session.execute("ex1", {"kind": "turn", "expected_version": version})
    squares = session.create(shipped["farm_below_the_ridge"], name="ridge", seed="bench")
    return tcs.id, squares.id


def _wait(url: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer at {url}")


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text.strip()).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def _wrk(name: str, base: str, path: str, seconds: int, connections: int) -> Result:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "5s",
         base + path], capture_output=True, text=True, check=True, timeout=seconds + 30).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = int(bad.group(1)) if bad else 0
    return Result(name, path, rps, p50, p99, total, errors, f"wrk -t1 -c{connections}")


def _python(name: str, base: str, path: str, seconds: int, connections: int) -> Result:
    """A bounded fallback client: ``connections`` threads, each with its own keep-alive
    connection, until the time is up (at most 200 000 requests in all)."""
    import http.client

    latencies: list[float] = []
    errors = 0
    stop = time.monotonic() + seconds
    lock = threading.Lock()
    host, port = base.removeprefix("http://").split(":")

    def worker() -> None:
        nonlocal errors
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        while time.monotonic() < stop and len(latencies) < 200_000:
            start = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            with lock:
                latencies.append((time.perf_counter() - start) * 1000)
                errors += response.status != 200
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    return Result(name, path, len(latencies) / elapsed, statistics.median(latencies), p99,
                  len(latencies), errors, f"python client, {connections} threads")


def run(seconds: int, connections: int) -> list[Result]:
    """Serve a throwaway database and measure each URL."""
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        tcs, squares = _prepare(db)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [str(Path(sys.executable).with_name("rallypoint")), "serve", "--db", str(db),
             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait(base + "/", time.monotonic() + 30)
            urls = [("TCS campaign page", f"/c/{tcs}"),
                    ("TCS odds fragment (sheets)", f"/c/{tcs}/part/sheets"),
                    ("squares rally-odds fragment", f"/c/{squares}/part/unit?unit=28th")]
            measure = _wrk if shutil.which("wrk") else _python
            results = []
            for name, path in urls:
                for _ in range(50):  # warm up: imports, templates, the first render
                    urllib.request.urlopen(base + path, timeout=5).read()
                results.append(measure(name, base, path, seconds, connections))
            return results
        finally:
            server.terminate()
            server.wait(10)


def _section(results: list[Result], seconds: int) -> str:
    lines = [
        BEGIN,
        "## Web (`uv run python bench/web.py`)",
        "",
        f"`rallypoint serve` (one uvicorn process) on loopback, {seconds} s per URL after 50 "
        f"warm-up requests; goal ≥ {GOAL_RPS:.0f} req/s with p99 ≤ {GOAL_P99_MS:.0f} ms on 2 "
        f"cores (the load tool shares them). {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, {dt.date.today().isoformat()}.",
        "",
        "| URL | req/s | p50 | p99 | requests | non-2xx | tool | goal met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(f"| {r.name} (`{re.sub(r'[0-9a-f]{32}', 'ID', r.path)}`) | {r.rps:,.0f} | "
                     f"{r.p50_ms:.1f} ms | {r.p99_ms:.1f} ms | {r.requests:,} | {r.errors} | "
                     f"{r.tool} | {'met' if r.met else '**missed**'} |")
    lines += [
        "",
        "A page is rendered once per state of the database and then served from memory until "
        "anything is written (by this server or by another process: the cache is keyed on the "
        "database and WAL files' size and modification time); each response still carries the "
        "browser's own CSRF token. The first request after a change pays the full cost: load "
        "and fold the campaign, build the view and render it (about 8 ms for the TCS page).",
        END,
    ]
    return "\n".join(lines) + "\n"


def write_doc(section: str) -> None:
    """Replace (or append) the web section of docs/performance.md."""
    doc_section.write_section(DOC, BEGIN, END, section)


def main() -> None:
    """Command line: run, print the table, write the doc."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    seconds = max(1, min(args.seconds, 60))
    results = run(seconds, max(1, min(args.connections, 64)))
    section = _section(results, seconds)
    print(section)
    if not args.no_doc:
        write_doc(section)


if __name__ == "__main__":
    main()
