"""Table-command latency before and after a change, in one run (not a timed test).

``uv run python bench/before_after.py --before ../old-checkout`` runs ``show``, ``tcs turn``,
``squares odds`` and ``platoon roster`` on small campaigns with this checkout's installed
entry point and with the other checkout's (its own ``.venv``, made with ``uv sync``), each on
campaigns its own version created, alternating run by run so both see the same load. It reports
the median CPU time (user + system of the command and its children) of each and the ratio.
Used for issue 21 (one folder per ruleset): the move must cost a player nothing at the table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from commands import SQUARES, TCS, run  # bench/, beside this script

COMMANDS = (["show", "--campaign", "tcs"], ["tcs", "turn", "--campaign", "tcs"],
            ["squares", "odds", "--campaign", "squares"],
            ["platoon", "roster", "--campaign", "platoon"])
HERE = Path(__file__).resolve().parents[1]


def _campaigns(db: Path, exe: list[str]) -> None:
    run(db, "new", str(TCS), "--name", "tcs", "--seed", "bench", exe=exe)
    run(db, "new", str(SQUARES), "--name", "squares", "--seed", "bench", exe=exe)
    run(db, "platoon", "create", "--name", "platoon", exe=exe)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    exes = {"before": [str(args.before.resolve() / ".venv" / "bin" / "rallypoint")],
            "after": [str(HERE / ".venv" / "bin" / "rallypoint")]}
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="rallypoint-ab-") as tmp:
        dbs = {side: Path(tmp) / f"{side}.sqlite3" for side in exes}
        for side, exe in exes.items():
            _campaigns(dbs[side], exe)
        print("| command | before | after | after ÷ before |\n|---|---|---|---|")
        for argv in COMMANDS:
            times: dict[str, list[float]] = {side: [] for side in exes}
            for side in exes:  # warm-up: bytecode and page cache
                run(dbs[side], *argv, exe=exes[side])
            for _ in range(args.runs):
                for side in exes:
                    times[side].append(run(dbs[side], *argv, exe=exes[side]))
            before, after = (statistics.median(times[s]) * 1000 for s in ("before", "after"))
            print(f"| `rallypoint {' '.join(argv[:-2])}` | {before:.0f} ms | {after:.0f} ms "
                  f"| {after / before:.2f}× |")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
