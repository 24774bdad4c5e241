"""What ``uv run`` costs a player (not a timed test): ``uv run python bench/uv_run.py``.

1. The first run: a fresh clone of this repository (``git clone`` of HEAD into a temporary
   folder), then ``uv run rallypoint demo`` there, which makes the virtual environment, installs
   every package (from uv's cache if it holds them; a first-ever run also downloads them) and
   runs the demo; then the same command again.
2. A later run: ``uv run rallypoint show`` against the installed entry point
   (``.venv/bin/rallypoint show``) on a small campaign, alternating, median CPU time (user +
   system of the process and its children; wall time is printed too, but on a shared machine
   CPU time is the steadier figure). The goal: within 1.3×, and no line on stderr.

``PYTHONDONTWRITEBYTECODE`` is unset for every run, as on a player's machine (Python caches each
module's bytecode the first time it is imported). Prints a Markdown table for
docs/performance.md.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """CPU seconds (children), wall seconds and stderr of one run; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stderr


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.TemporaryDirectory(prefix="rallypoint-uv-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV", "UV_NO_SYNC")}
        env["RALLYPOINT_DB"] = str(Path(tmp) / "bench.sqlite3")
        rows = []
        for label in ("first", "second"):
            cpu, wall, err = timed(["uv", "run", "rallypoint", "demo"], clone, env)
            rows.append((f"{label} `uv run rallypoint demo` (fresh clone)", cpu, wall,
                         len(err.splitlines())))
        timed(["uv", "run", "rallypoint", "new", "farm"], clone, env)
        uv, entry, noise = [], [], 0
        for _ in range(runs):
            cpu, wall, err = timed(["uv", "run", "rallypoint", "show"], clone, env)
            uv.append((cpu, wall))
            noise += len(err.splitlines())
            cpu, wall, _ = timed([str(clone / ".venv" / "bin" / "rallypoint"), "show"], clone,
                                 env)
            entry.append((cpu, wall))
        for label, values, lines in (("later `uv run rallypoint show`", uv, noise),
                                     ("`.venv/bin/rallypoint show`", entry, 0)):
            rows.append((f"{label}, median of {runs}",
                         statistics.median(c for c, _ in values),
                         statistics.median(w for _, w in values), lines))
    print(f"load average {os.getloadavg()[0]:.1f}, {sys.version.split()[0]}")
    print("| run | CPU | wall | stderr lines |\n|---|---|---|---|")
    for label, cpu, wall, lines in rows:
        print(f"| {label} | {cpu:.2f} s | {wall:.2f} s | {lines} |")
    ratio = rows[2][1] / rows[3][1]
    print(f"\n`uv run` / entry point (CPU): {ratio:.2f}× (goal ≤ 1.3×)")


if __name__ == "__main__":
    main()
