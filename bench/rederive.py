"""Time ``import`` with every foreign event re-derived against today's path (no re-derivation).

    uv run python bench/rederive.py 2000 5     # events in the turn file, runs per figure

Two seats by mail, two SQLite files. The sender plays N events in its own database (squares:
turns, with a fire on one of its units and a move every few turns; TCS: turns, with a loss,
a morale change and a move of its own counters every few turns) and exports one turn file
for the other seat. Timed: importing that file (N new events) into a copy of the reader's
database that holds only ``created``; then, once that import is stored (TCS: and the reader's
owed accrual has gone back to the sender), a file with one new event after it (the reader
resumes from its state snapshot). Each figure is the median CPU
time (``time.process_time``) of the runs, each into a fresh copy (the copy is not timed).
"Without" replaces :func:`rallypoint.session.rederive.check_file` with a no-op: the import as
it was before commands were re-derived. Figures: docs/performance.md.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rallypoint.session import Session, rederive
from rallypoint.session.pbem import create_seated, export_turn, import_turn, new_seat

ROOT = Path(__file__).parent.parent
SQUARES = ROOT / "src/rallypoint/rulesets/squares/scenarios/farm_below_the_ridge.toml"
TCS = ROOT / "tests/data/tcs_two_sides.toml"


def squares_step(n: int, version: int) -> dict[str, Any]:
    """The French command number ``n``: mostly turns, a fire and a move now and then."""
    if n % 10 == 3:
        return {"kind": "fire", "unit": "54e", "fire": "bombardment"}
    if n % 10 == 7:
        return {"kind": "move", "who": "55e", "square": "F4" if n % 20 == 7 else "F3"}
    return {"kind": "turn"}


def tcs_step(n: int, version: int) -> dict[str, Any]:
    """The Finnish command number ``n``: mostly turns, a morale change and a move."""
    if n % 10 == 3:
        return {"kind": "morale", "formation": "ErP112", "value": n % 3}
    if n % 10 == 7:
        return {"kind": "move", "counter": "1/ErP112-1", "hex": "22.14" if n % 20 == 7
                else "23.15"}
    return {"kind": "turn", "skip_fo": True}


GAMES: dict[str, tuple[Path, tuple[str, str], Callable[[int, int], dict[str, Any]]]] = {
    "squares": (SQUARES, ("french", "allied"), squares_step),
    "tcs": (TCS, ("finland", "soviet"), tcs_step),
}


def build(tmp: Path, game: str, events: int) -> tuple[Path, Path, Path, Path]:
    """The reader's database at ``created``, the N-event file, the reader's database after it,
    and a file with one more event."""
    scenario, (sender, reader), step = GAMES[game]
    mine, theirs = Session(tmp / "sender.sqlite3"), Session(tmp / "reader.sqlite3")
    cards = [new_seat(mine, sender), new_seat(theirs, reader)]
    info = create_seated(mine, scenario, cards, name=game)
    export_turn(mine, info.id, tmp / "start.json", for_seat=reader)
    import_turn(theirs, tmp / "start.json")
    shutil.copy(tmp / "reader.sqlite3", tmp / "reader-start.sqlite3")
    count = iter(range(10 ** 9))
    mine.play(info.id, lambda c: None if c.version > events else c.ruleset.parse_command(
        {**step(next(count), c.version), "expected_version": c.version}))
    export_turn(mine, info.id, tmp / "long.json", for_seat=reader)
    import_turn(theirs, tmp / "long.json")
    if theirs.load(info.id).version > mine.load(info.id).version:
        # TCS: the reader owes an accrual for the sender's turns, appended on import; it goes
        # back to the sender (as by mail) so that the next file continues the same log.
        export_turn(theirs, info.id, tmp / "back.json", for_seat=sender)
        import_turn(mine, tmp / "back.json")
    shutil.copy(tmp / "reader.sqlite3", tmp / "reader-long.sqlite3")
    version = mine.load(info.id).version
    mine.execute(info.id, {**step(1, version), "expected_version": version})
    export_turn(mine, info.id, tmp / "one.json", for_seat=reader)
    return tmp / "reader-start.sqlite3", tmp / "long.json", tmp / "reader-long.sqlite3", \
        tmp / "one.json"


def median_import(database: Path, path: Path, runs: int) -> float:
    """Median CPU seconds of importing ``path`` into fresh copies of ``database``."""
    times = []
    for run in range(runs):
        copy = database.with_name(f"run{run}-{database.name}")
        shutil.copy(database, copy)
        start = time.process_time()
        import_turn(Session(copy), path)
        times.append(time.process_time() - start)
        copy.unlink()
    return statistics.median(times)


def measure(game: str, events: int, runs: int) -> None:
    """Print one table row per import: with, without, and their ratio."""
    tmp = Path(tempfile.mkdtemp())
    start_db, long_file, long_db, one_file = build(tmp, game, events)
    rows = [(f"{events:,} new events", start_db, long_file),
            ("1 new event after them", long_db, one_file)]
    real = rederive.check_file
    for label, database, path in rows:
        with_ = median_import(database, path, runs)
        rederive.check_file = lambda *args, **kwargs: 0  # type: ignore[assignment]
        try:
            without = median_import(database, path, runs)
        finally:
            rederive.check_file = real  # type: ignore[assignment]
        print(f"| {game} | {label} | {1000 * with_:.0f} ms | {1000 * without:.0f} ms | "
              f"{with_ / without:.2f}× |")


def main(events: int, runs: int) -> None:
    print("| ruleset | import of | with re-derivation | without (before) | ratio |")
    print("|---|---|---|---|---|")
    for game in GAMES:
        measure(game, events, runs)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000,
         int(sys.argv[2]) if len(sys.argv) > 2 else 5)
