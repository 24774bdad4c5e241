"""A long campaign on PostgreSQL beside SQLite (issue 20): ``uv run python bench/postgres_growth.py
--pg postgresql://user:password@host/admin_db``.

For TCS campaigns of 1 000, 10 000 and 100 000 events (created, a sheet, then turns, built as
``bench/commands.py`` builds them), each in a fresh child process:

- **import** of the campaign's export file into an empty database (``Session.import_file``);
- **verify** of the stored campaign (``Session.verify``: the hash chain, the head, every payload
  readable).

Wall time, not CPU: on PostgreSQL the server's work (its triggers, the index) is not the
child's. Also the child's peak resident memory (``VmHWM``). Each database is made afresh on the
server ``--pg`` names (``rp_bench_growth_<size>``) and dropped afterwards.

Prints a Markdown table; docs/performance.md quotes it by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from commands import big_tcs  # bench/, beside this script

CHILD = """
import json, sys, time
from pathlib import Path
from rallypoint.session import Session
kind, location, file = sys.argv[1:4]
session = Session(location if "://" in location else Path(location))
began = time.perf_counter()
if kind == "import":
    session.import_file(Path(file))
else:
    assert session.verify("big").ok
wall = time.perf_counter() - began
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]
print(json.dumps({"wall": wall, "mib": int(hwm) / 1024}))
"""


def child(kind: str, location: str, file: Path) -> dict[str, float]:
    """One step in a fresh child process."""
    done = subprocess.run([sys.executable, "-c", CHILD, kind, location, str(file)], check=True,
                          capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def fresh_pg(admin: str, size: int) -> str:
    """An empty database with the store's schema (the migrations are not what is measured)."""
    import psycopg

    from rallypoint.store.postgres import PostgresStore

    name = f"rp_bench_growth_{size}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = admin.rsplit("/", 1)[0] + "/" + name
    PostgresStore(url).close()
    return url


def drop_pg(admin: str, size: int) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "rp_bench_growth_{size}"')


def row(size: int, backend: str, location: str, export: Path) -> str:
    imported = child("import", location, export)
    verified = child("verify", location, export)
    return (f"| {size:,} | {backend} | {imported['wall']:.2f} s, {imported['mib']:.0f} MiB | "
            f"{verified['wall']:.2f} s, {verified['mib']:.0f} MiB |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--pg", default=os.environ.get("RALLYPOINT_TEST_PG"),
                        help="PostgreSQL admin URL (default: RALLYPOINT_TEST_PG)")
    options = parser.parse_args()
    if not options.pg:
        raise SystemExit("give --pg URL (or set RALLYPOINT_TEST_PG)")
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    print("| events | backend | import (wall, peak memory) | verify (wall, peak memory) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for size in (int(s) for s in options.sizes.split(",")):
            source = Path(folder) / f"source-{size}.sqlite3"
            big_tcs(source, size)
            export = source.with_suffix(".json")
            from rallypoint.session import Session

            Session(source).export("big", export)
            print(row(size, "SQLite", str(Path(folder) / f"into-{size}.sqlite3"), export),
                  flush=True)
            print(row(size, "PostgreSQL", fresh_pg(options.pg, size), export), flush=True)
            drop_pg(options.pg, size)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
