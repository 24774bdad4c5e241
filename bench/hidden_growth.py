"""How a hidden game's turn-file import and reveal grow with the log: streamed, and checked whole.

A two-seat TCS campaign by mail with a hidden Op Sheet (tests/data/tcs_two_sides.toml): Finland
writes a sheet and advances turns, each accruing the sheet, so every turn is redacted for the
Soviet seat (built as ``tests/test_turn_stream.py``'s ``_turns`` builds them: decided by the
rules, blinded, one append). At each size:

- **import** of Finland's turn file into the Soviet database (holding ``created`` and the sheet):
  ``pbem.import_turn``, which then owes one accrual;
- **reveal** (``reveal.reveal``) in the Soviet database, of Finland's whole export, once the
  Soviet accrual has gone back to Finland;
- **keep**: the whole log that reveal wrote, kept in the Soviet database beside its partial one
  as a new campaign (``import_turn(..., as_name=...)``, ``rallypoint import FILE --as NAME``);
- **verify** of Finland's turn file (``rallypoint verify FILE``: every turn withheld from its
  reader) and **verify-revealed** of the whole log reveal wrote (events decided in a seat's
  view).

Each step runs in a fresh child process, the best of 3 by CPU, with its peak resident memory
(``VmHWM``); ``whole`` runs the same step with the streaming pass turned off (what every hidden
game did before: the whole-file check). Run: ``uv run python bench/hidden_growth.py [--sizes
1000 10000]``; the table is printed (docs/performance.md, "Hidden games streamed", holds a run).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "tests" / "data" / "tcs_two_sides.toml"
SHEET = {"kind": "write_sheet", "sheet": "F-hideout", "members": ["ErP112"],
         "centers": {"1/ErP112": "22.15"}, "size": 0, "attest": True}
TURN = {"kind": "turn", "skip_fo": True}


def child(kind: str, way: str, file: Path, db: Path) -> dict[str, float]:
    """One measured step in this (fresh) process: CPU seconds and peak memory in MiB."""
    from rallypoint.session import Session, pbem, pbem_import
    from rallypoint.session import reveal as reveal_module

    if way == "whole":  # the streaming pass off: the whole-file check, as before
        pbem_import._import_streamed = lambda *args: None  # type: ignore[assignment]
        reveal_module.reveal_streamed = lambda *args: None  # type: ignore[assignment]
        pbem.verify_streamed = lambda *args: (None, None)  # type: ignore[assignment]
    began = time.process_time()
    if kind.startswith("verify"):
        pbem.verify_file(file)
    elif kind == "import":
        pbem_import.import_turn(Session(db), file)
    elif kind == "keep":
        pbem_import.import_turn(Session(db), file, as_name="both revealed")
    else:
        reveal_module.reveal(Session(db), file, db.with_suffix(".revealed.json"))
    cpu = time.process_time() - began
    status = Path("/proc/self/status").read_text(encoding="ascii").splitlines()
    peak = next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))
    return {"cpu": cpu, "maxrss": peak}


def measure(kind: str, way: str, file: Path, db_from: Path, folder: Path) -> dict[str, float]:
    """One step in a fresh child process, on a copy of ``db_from``."""
    db = folder / f"{kind}-{way}-{time.monotonic_ns()}.sqlite3"
    shutil.copy(db_from, db)
    done = subprocess.run([sys.executable, __file__, "--child", kind, way, str(file), str(db)],
                          check=True, capture_output=True, text=True)
    db.unlink(missing_ok=True)
    db.with_suffix(".revealed.json").unlink(missing_ok=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def best(kind: str, way: str, file: Path, db_from: Path, folder: Path,
         runs: int) -> dict[str, float]:
    """The run with the least CPU of ``runs``."""
    return min((measure(kind, way, file, db_from, folder) for _ in range(runs)),
               key=lambda r: r["cpu"])


def append_turns(db: Path, campaign: str, count: int) -> None:
    """``count`` turns Finland advances, as its ``execute`` stores them, in one append."""
    from secrets import token_hex

    from rallypoint.core.blinds import with_blind
    from rallypoint.core.events import NewEvent
    from rallypoint.dice import ScriptedRoller
    from rallypoint.session import Session
    from rallypoint.store import EventStore

    c = Session(db).load(campaign, whole=True)
    ruleset, state, version = c.ruleset, c.state, c.version
    events = []
    for _ in range(count):
        command = ruleset.parse_command({**TURN, "expected_version": version})
        event = ruleset.decide(state, command, ScriptedRoller(()))
        made = NewEvent.of(event).made_by(command.model_dump(mode="json"), "finland")
        events.append(with_blind(c.events[:1], made, token_hex(16)))
        state = ruleset.apply(state, event)
        version += 1
    with EventStore(db) as store:
        store.append_many(campaign, c.version + 1, events)


def hidden_game(folder: Path, sizes: list[int]) -> dict[int, dict[str, Path]]:
    """At each size: Finland's turn file and the Soviet database before it; Finland's whole
    export and the Soviet database after it (and after its accrual went back)."""
    from rallypoint.session import Session
    from rallypoint.session.pbem import create_seated, export_turn, import_turn, new_seat
    from rallypoint.session.reveal import reveal

    dbs = {side: Session(folder / f"{side}.sqlite3") for side in ("finland", "soviet")}
    cards = [new_seat(dbs[side], side) for side in dbs]
    info = create_seated(dbs["finland"], SCENARIO, cards, name="both")
    count = 0

    def send(side: str, for_seat: str | None) -> Path:
        nonlocal count
        count += 1
        path = folder / f"{count:02d}-{side}.json"
        export_turn(dbs[side], info.id, path, for_seat=for_seat)
        return path

    import_turn(dbs["soviet"], send("finland", "soviet"))
    version = dbs["finland"].resolve(info.id).version
    dbs["finland"].execute(info.id, {**SHEET, "expected_version": version})
    import_turn(dbs["soviet"], send("finland", "soviet"))
    made: dict[int, dict[str, Path]] = {}
    for size in sizes:
        append_turns(dbs["finland"].path, info.id, size - dbs["finland"].resolve(info.id).version)
        before = folder / f"soviet-before-{size}.sqlite3"
        shutil.copy(dbs["soviet"].path, before)
        turn = send("finland", "soviet")
        import_turn(dbs["soviet"], turn)
        import_turn(dbs["finland"], send("soviet", "finland"))  # the accrual the Soviets owed
        after = folder / f"soviet-after-{size}.sqlite3"
        shutil.copy(dbs["soviet"].path, after)
        theirs = send("finland", None)
        revealed = folder / f"revealed-{size}.json"
        reveal(Session(shutil.copy(after, folder / "revealing.sqlite3")), theirs, revealed)
        made[size] = {"turn": turn, "before": before, "theirs": theirs, "after": after,
                      "revealed": revealed}
    return made


def render(rows: list[dict[str, Any]]) -> str:
    """The table: per size, each step streamed and whole (CPU, peak memory)."""
    lines = ["| events | turn file | `import` streamed | `import` whole | `reveal` streamed "
             "| `reveal` whole | revealed log | `import --as` streamed | `import --as` whole |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        cells = [f"{row[k]['cpu']:.2f} s, {row[k]['maxrss']:.0f} MiB"
                 for k in ("import-streamed", "import-whole", "reveal-streamed", "reveal-whole",
                           "keep-streamed", "keep-whole")]
        cells.insert(4, f"{row['revealed']:.1f} MiB")
        lines.append(f"| {row['events']:,} | {row['mib']:.1f} MiB | " + " | ".join(cells) + " |")
    lines += ["", "| events | `verify` turn file streamed | `verify` turn file whole "
              "| `verify` revealed log streamed | `verify` revealed log whole |",
              "|---|---|---|---|---|"]
    for row in rows:
        cells = [f"{row[k]['cpu']:.2f} s, {row[k]['maxrss']:.0f} MiB"
                 for k in ("verify-streamed", "verify-whole", "verify-revealed-streamed",
                           "verify-revealed-whole")]
        lines.append(f"| {row['events']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    """Build the hidden game at each size and measure both steps both ways."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=4, metavar=("KIND", "WAY", "FILE", "DB"))
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.child:
        kind, way, file, db = args.child
        print(json.dumps(child(kind, way, Path(file), Path(db))))
        return
    with tempfile.TemporaryDirectory(prefix="rallypoint-hidden-") as name:
        folder = Path(name)
        game = hidden_game(folder, sorted(args.sizes))
        rows = []
        for size, made in game.items():
            row: dict[str, Any] = {"events": size, "mib": made["turn"].stat().st_size / 2**20,
                                   "revealed": made["revealed"].stat().st_size / 2**20}
            for way in ("streamed", "whole"):
                row[f"import-{way}"] = best("import", way, made["turn"], made["before"],
                                            folder, args.runs)
                row[f"reveal-{way}"] = best("reveal", way, made["theirs"], made["after"],
                                            folder, args.runs)
                row[f"keep-{way}"] = best("keep", way, made["revealed"], made["after"],
                                          folder, args.runs)
                row[f"verify-{way}"] = best("verify", way, made["turn"], made["after"],
                                            folder, args.runs)
                row[f"verify-revealed-{way}"] = best("verify-revealed", way, made["revealed"],
                                                     made["after"], folder, args.runs)
            rows.append(row)
            print(render(rows), flush=True)


if __name__ == "__main__":
    main()
