"""``rallypoint verify`` of a stored campaign, by the log's length and the backend (issue 20):
``uv run python bench/verify_stored.py``.

A TCS campaign of each size (created, a sheet, then turns, built as ``bench/commands.py``
builds them) is stored in SQLite and, with ``--pg URL`` (an admin URL; a database
``rp_bench_verify_<size>`` is made there once and kept), imported into PostgreSQL. Each
``Session.verify`` (the hash chain, the head, every payload readable) runs in a fresh child
process: its CPU time and its peak resident memory (``VmHWM``), the best of ``--runs``.

Prints a Markdown table; docs/performance.md quotes it by hand.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from commands import big_tcs  # bench/, beside this script

CHILD = """
import json, sys, time
from pathlib import Path
from rallypoint.session import Session
location = sys.argv[1]
began = time.process_time()
report = Session(location if "://" in location else Path(location)).verify("big")
cpu = time.process_time() - began
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]
print(json.dumps({"events": report.events, "ok": report.ok, "cpu": cpu,
                  "mib": int(hwm) / 1024}))
"""


def measure(location: str, runs: int) -> dict[str, float]:
    """The best of ``runs`` fresh children verifying ``big`` at ``location``."""
    results = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", CHILD, location], check=True,
                              capture_output=True, text=True)
        results.append(json.loads(done.stdout))
    assert all(r["ok"] for r in results), results
    return min(results, key=lambda r: r["cpu"])


def postgres(admin: str, size: int, db: Path) -> str:
    """The campaign imported once into its own PostgreSQL database; its URL."""
    import psycopg

    from rallypoint.session import Session

    name = f"rp_bench_verify_{size}"
    url = admin.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            return url
        conn.execute(f'CREATE DATABASE "{name}"')
    export = db.with_suffix(".json")
    Session(db).export("big", export)
    Session(url).import_file(export)
    return url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--pg", help="PostgreSQL admin URL (default: SQLite only)")
    options = parser.parse_args()
    print("| events | backend | `verify` CPU | peak memory |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for size in (int(s) for s in options.sizes.split(",")):
            db = Path(folder) / f"big-{size}.sqlite3"
            big_tcs(db, size)
            places = [("SQLite", str(db))]
            if options.pg:
                places.append(("PostgreSQL", postgres(options.pg, size, db)))
            for backend, location in places:
                r = measure(location, options.runs)
                print(f"| {int(r['events']):,} | {backend} | {r['cpu']:.2f} s | "
                      f"{r['mib']:.0f} MiB |", flush=True)


if __name__ == "__main__":
    main()
