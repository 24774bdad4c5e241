"""Command latency benchmarks (not timed tests): ``uv run python bench/commands.py``.

Runs the installed ``rallypoint`` entry point end to end, as a player at the table does, with
bytecode cached (the first run of each command is a warm-up and is not counted):

- the median of ``show``, ``tcs turn``, ``squares odds`` and ``platoon roster`` on small campaigns
  (goal: each ≤ 0.2 s), and ``uv run rallypoint show`` for comparison;
- ``show`` on a 100 000-event TCS campaign against a 10-event one (goal: within 1.5×);
- ``platoon simulate --days N`` for growing N (goal: time linear in N).

Writes its section of ``docs/performance.md`` (between the ``commands`` markers; the rest of the
page is left as it is). Options: ``--quick`` (fewer runs, 20 000 events) and ``--no-doc``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import doc_section  # bench/, beside this script

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- commands:begin -->", "<!-- commands:end -->"
EXE = Path(sys.executable).with_name("rallypoint")
SCENARIOS = ROOT / "src" / "rallypoint" / "rulesets"
TCS = SCENARIOS / "tcs" / "scenarios" / "example1_tolvajarvi.toml"
SQUARES = SCENARIOS / "squares" / "scenarios" / "farm_below_the_ridge.toml"


def _env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "RALLYPOINT_DB": str(db), "COLUMNS": "100"}


CPU = True
"""Report CPU time (user + system of the command and its children) rather than wall time: on a
machine shared with other work, wall time measures the other work. ``--wall`` switches."""


def run(db: Path, *args: str, exe: list[str] | None = None) -> float:
    """Time of one end-to-end command (it must succeed): CPU seconds, or wall with ``--wall``."""
    began, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([*(exe or [str(EXE)]), *args], env=_env(db), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not CPU:
        return time.perf_counter() - began
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_of(db: Path, args: list[str], runs: int, exe: list[str] | None = None) -> float:
    run(db, *args, exe=exe)  # warm-up: bytecode cached, page cache warm
    return statistics.median(run(db, *args, exe=exe) for _ in range(runs))


def small_campaigns(db: Path) -> None:
    run(db, "new", str(TCS), "--name", "tcs", "--seed", "bench")
    run(db, "new", str(SQUARES), "--name", "squares", "--seed", "bench")
    run(db, "platoon", "create", "--name", "platoon")


def big_tcs(db: Path, events: int) -> None:
    """A TCS campaign of ``events`` events: a sheet, then turns (each accruing weighted turns),
    decided by the ruleset in memory and stored in one transaction; then one command through
    the session, which folds the whole log once and writes its state snapshot."""
    from rallypoint.core.events import NewEvent
    from rallypoint.core.ruleset import Command
    from rallypoint.dice import ScriptedRoller
    from rallypoint.rulesets.tcs.commands import AdvanceTurn, WriteSheet
    from rallypoint.session import Session
    from rallypoint.store import EventStore

    session = Session(db)
    info = session.create(TCS, name="big", seed="bench")
    c = session.load("big")
    ruleset, state = c.ruleset, c.state
    command: Command = WriteSheet(
        expected_version=1, sheet="rest", members=("ErP112",), size=1, attest=True,
        centers={"1/ErP112": "23.15", "2/ErP112": "17.21", "3/ErP112": "8.21",
                 "MG/ErP112": "8.21"})
    stored: list[NewEvent] = []
    while len(stored) < events - 2:
        event = ruleset.decide(state, command, ScriptedRoller(()))
        # With its command, as the session records it (verify FILE decides each one again).
        stored.append(NewEvent.of(event).made_by(command.model_dump(mode="json"), None))
        state = ruleset.apply(state, event)
        command = AdvanceTurn(expected_version=len(stored) + 1)
    with EventStore(db) as store:
        store.append_many(info.id, 2, stored)
    session.execute("big", lambda camp: AdvanceTurn(expected_version=camp.version))


def ten_events(db: Path) -> None:
    run(db, "new", str(TCS), "--name", "ten", "--seed", "bench")
    for _ in range(9):
        run(db, "tcs", "turn", "--campaign", "ten")


def simulate_days(folder: Path, days: int) -> float:
    db = folder / f"sim{days}.sqlite3"
    run(db, "platoon", "create", "--name", "p", "--days", str(max(days + 10, 30)))
    return run(db, "platoon", "simulate", "--days", str(days), "--seed", "bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-doc", action="store_true")
    parser.add_argument("--wall", action="store_true", help="wall time instead of CPU time")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    global CPU
    CPU = not args.wall
    runs, events = (5, 20_000) if args.quick else (15, 100_000)
    rows: list[tuple[str, str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="rallypoint-bench-") as tmp:
        folder = Path(tmp)
        db = folder / "small.sqlite3"
        small_campaigns(db)
        for argv in (["show", "--campaign", "tcs"], ["tcs", "turn", "--campaign", "tcs"],
                     ["squares", "odds", "--campaign", "squares"],
                     ["platoon", "roster", "--campaign", "platoon"]):
            t = median_of(db, argv, runs)
            rows.append((f"`rallypoint {' '.join(argv[:-2])}`, small campaign",
                         f"{t * 1000:.0f} ms", "≤ 200 ms", "met" if t <= 0.2 else "**missed**",
                         f"median of {runs} runs of the installed entry point"))
        for exe, how in ((["uv", "run", "rallypoint"], "uv syncs first (a no-op sync, no "
                          "compile: bench/uv_run.py)"),
                         (["uv", "run", "--no-sync", "rallypoint"], "uv finds the environment "
                          "and runs the entry point, no sync, no compile")):
            t = median_of(db, ["show", "--campaign", "tcs"], max(3, runs // 3), exe=exe)
            rows.append((f"`{' '.join(exe)} show`, small campaign", f"{t * 1000:.0f} ms", "–",
                         "–", how + " (CPU of uv and the command)"))
        ten_events(db)
        small = median_of(db, ["show", "--campaign", "ten"], runs)
        big_db = folder / "big.sqlite3"
        began = time.perf_counter()
        big_tcs(big_db, events)
        built = time.perf_counter() - began
        big = median_of(big_db, ["show", "--campaign", "big"], runs)
        ratio = big / small
        rows.append((f"`show`, {events:,} events ÷ 10 events", f"{ratio:.2f}× ({big * 1000:.0f} ms "
                     f"vs {small * 1000:.0f} ms)", "≤ 1.5×", "met" if ratio <= 1.5 else
                     "**missed**", f"state snapshot + tail fold; building the log took {built:.0f} "
                     "s"))
        days = [10, 20, 40, 80] if not args.quick else [5, 10, 20]
        times = [simulate_days(folder, d) for d in days]
        base = min(times)  # start-up and the final roster are paid once
        per_day = [(t - times[0]) / (d - days[0]) for t, d in zip(times[1:], days[1:], strict=True)]
        spread = max(per_day) / min(per_day)
        rows.append(("`platoon simulate --days N`", ", ".join(
            f"N={d}: {t:.2f} s" for d, t in zip(days, times, strict=True)),
            "linear in N", "met" if spread <= 1.5 else "**missed**",
            f"marginal cost per day {min(per_day) * 1000:.0f}–{max(per_day) * 1000:.0f} ms "
            f"(ratio {spread:.2f}); fastest run {base:.2f} s"))
    section = render(rows, "uv run python bench/commands.py" + (" --quick" if args.quick else "")
                     + (" --wall" if args.wall else ""), load)
    print(section)
    if not args.no_doc:
        write_section(section)


def render(rows: list[tuple[str, str, str, str, str]], command: str, load: float) -> str:
    lines = [BEGIN, "## Commands at the table", "",
             f"Figures from `{command}` on {dt.date.today()}, "
             f"{platform.python_version()}, {os.cpu_count()} cores shared with other work; "
             f"end to end, bytecode cached; {'CPU' if CPU else 'wall'} time of the command "
             f"process and its children (load average {load:.1f} at the start, "
             f"{os.getloadavg()[0]:.1f} at the end).", "",
             "| benchmark | result | goal | goal met | how measured |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "A command imports only its campaign's ruleset (entry-point registry), icepool "
              "only for odds beyond one die, numpy/matplotlib/dask only in the lab, typer's rich "
              "help renderer only for help and errors; it builds the validators of only the "
              "event types it reads (pydantic `defer_build`); a read folds "
              "only the events after the campaign's state snapshot (refreshed by writes every "
              "32 events, checked against the chain hash and discarded if it does not match).",
              END]
    return "\n".join(lines) + "\n"


def write_section(section: str) -> None:
    doc_section.write_section(DOC, BEGIN, END, section)
    print(f"wrote {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
