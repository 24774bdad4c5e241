"""Time play by e-mail with both sides' Op Sheets hidden, on a long two-side TCS campaign.

    uv run python bench/pbem_hidden.py 2000          # events in the log (default 2000)
    uv run python bench/pbem_hidden.py 2000 --no-doc # print only

Two seats, two SQLite files, everything through the library (``rallypoint.session.pbem`` and
``rallypoint.session.reveal``), as docs/two-player.md plays it: each side writes an Op Sheet,
plays a stretch of turns in its own database, checks its sheet in a sealed dice round (request,
link-only answer, the requester deciding its kept command), answers its distributions (another
sealed round: the battalion's morale roll) and sends a turn file filtered for the other seat,
who imports it and settles what it owes (the accrual of its own pending sheets for the turns the
other database advanced). A sheet that implements is followed by a new one (after a loss, when
the Dead Pile is empty), so both sides keep a sheet accruing to the end.

At N events, CPU time (``time.process_time``, this process), the median of several runs each:
``export --for``, ``import`` of a file with one new turn (the owed settle inside it timed on its
own), the ``reveal`` of the whole log and ``verify`` of the merged file. The same game is then
played *open* (exports without ``--for``: both databases hold every event whole, nothing owed)
for the open exchange's cost on the same ruleset and length. Writes its section of
docs/performance.md (between the ``pbem-hidden`` markers).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import doc_section  # bench/, beside this script

from rallypoint.core.errors import RallypointError
from rallypoint.rulesets.tcs.scenario import Pile
from rallypoint.rulesets.tcs.state import SheetStatus, TcsState
from rallypoint.session import Session
from rallypoint.session import pbem as pbem_module
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.pbem import (
    Imported,
    answer,
    create_seated,
    export_turn,
    import_turn,
    new_seat,
    verify_file,
)
from rallypoint.session.reveal import reveal

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- pbem-hidden:begin -->", "<!-- pbem-hidden:end -->"
SCENARIO = ROOT / "tests" / "data" / "tcs_two_sides.toml"
SIDES = ("finland", "soviet")
SHEET = {  # one company each; the sheet's row is the formation's Command Prep + size
    "finland": {"members": ["ErP112"], "centers": {"1/ErP112": "22.15"}, "size": 0},
    "soviet": {"members": ["1/609"], "centers": {"1/609": "31.10"}, "size": 1},
}
COMPANY = {"finland": "1/ErP112", "soviet": "1/609"}
TURN = {"kind": "turn", "skip_fo": True}  # the Soviet FO starts dead: its roll is let pass


def cpu(step: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of ``step`` in this process, and what it returned."""
    start = time.process_time()
    result = step()
    return time.process_time() - start, result


def copy_db(source: Path, target: Path) -> Path:
    """A copy of a database through SQLite's backup (the WAL's pages included)."""
    target.unlink(missing_ok=True)
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    with dst:
        src.backup(dst)
    src.close()
    dst.close()
    return target


@dataclass
class Game:
    """Two seats' databases and the mail between them."""

    hidden: bool
    folder: Path
    db: dict[str, Path]
    campaign: str
    files: int = 0
    sheets: dict[str, str] = field(default_factory=dict)
    written: Counter[str] = field(default_factory=Counter)
    stats: Counter[str] = field(default_factory=Counter)

    def session(self, side: str) -> Session:
        return Session(self.db[side])

    def version(self, side: str) -> int:
        return self.session(side).load(self.campaign, whole=True).version

    def export(self, sender: str, reader: str, whole: bool = False) -> Path:
        """A turn file from ``sender``: filtered for ``reader`` when hidden (or ``whole``: the
        reveal's plain export), signed for anyone when open."""
        self.files += 1
        path = self.folder / f"{'hidden' if self.hidden else 'open'}-{self.files}.json"
        for_seat = reader if self.hidden and not whole else None
        export_turn(self.session(sender), self.campaign, path, for_seat=for_seat)
        return path

    def send(self, sender: str, reader: str) -> Imported:
        done = import_turn(self.session(reader), self.export(sender, reader))
        self.stats["owed"] += done.owed
        self.stats["files"] += 1
        return done

    def act(self, side: str, command: dict[str, Any] | None) -> None:
        """Run ``command`` (``None``: answer the first pending decision by the first policy) in
        ``side``'s database; a roll goes through a sealed dice round by mail."""
        other = SIDES[1 - SIDES.index(side)]
        session = self.session(side)
        try:
            if command is None:
                session.answer(self.campaign)
            else:
                version = session.load(self.campaign).version
                session.execute(self.campaign, {**command, "expected_version": version})
        except AwaitingDice:
            self.send(side, other)  # the request
            answer(self.session(other), self.campaign)
            resolved = self.send(other, side).resolved  # the link: the kept command decided
            assert resolved is not None, "the sealed round did not resolve"
            self.stats["sealed rounds"] += 1


def start(folder: Path, hidden: bool) -> Game:
    db = {side: folder / f"{'hidden' if hidden else 'open'}-{side}.sqlite3" for side in SIDES}
    cards = [new_seat(Session(db[side]), side) for side in SIDES]
    info = create_seated(Session(db["finland"]), SCENARIO, cards, name="mail")
    game = Game(hidden, folder, db, info.id)
    game.send("finland", "soviet")
    return game


def _state(game: Game, side: str) -> TcsState:
    state: TcsState = game.session(side).load(game.campaign).state
    return state


def keep_a_sheet(game: Game, side: str) -> None:
    """A pending sheet for ``side``: a new one after the last implemented (a loss first when
    its company's Dead Pile is empty, as a battle would leave one)."""
    state = _state(game, side)
    name = game.sheets.get(side)
    if name is not None and state.sheets[name].status is SheetStatus.PENDING:
        return
    company = COMPANY[side]
    if not state.in_pile(company, Pile.DEAD):
        living = sorted(i for i in state.in_pile(company, Pile.MAP) if state.counters[i].steps)
        game.act(side, {"kind": "loss", "counter": living[0], "steps": None,
                        "cause": "combat"})
    game.written[side] += 1
    name = f"{side[0].upper()}-{game.written[side]}"
    game.act(side, {"kind": "write_sheet", "sheet": name, "attest": True, **SHEET[side]})
    game.sheets[side] = name


def stretch(game: Game, side: str, turns: int) -> None:
    """One side's stretch: its decisions, a sheet, turns, a sealed check, the file sent."""
    other = SIDES[1 - SIDES.index(side)]
    while game.session(side).pending(game.campaign):
        game.act(side, None)  # the distribution of an implemented sheet (morale rolls)
    keep_a_sheet(game, side)
    for _ in range(turns):
        game.act(side, TURN)
    try:
        game.act(side, {"kind": "check", "sheet": game.sheets[side]})
        game.stats["checks"] += 1
    except RallypointError as refused:  # below the table's first column: keep accruing
        game.stats[f"check refused: {refused.message[:40]}"] += 1
    game.send(side, other)


def grow(game: Game, events: int, turns: int) -> None:
    """Alternate the sides' stretches until the log holds ``events``, then bring both
    databases to one head (the owed accruals of the last file sent back)."""
    side = 0
    while game.version("finland") < events:
        stretch(game, SIDES[side], turns)
        side = 1 - side
    while game.version("finland") != game.version("soviet"):
        ahead = max(SIDES, key=game.version)
        game.send(ahead, SIDES[1 - SIDES.index(ahead)])


def ready(game: Game) -> None:
    """Both sides with a pending sheet and no decision waiting, at one head: the import measured
    next then owes the reader's accrual of the turn the sender advanced."""
    for side in SIDES:
        while game.session(side).pending(game.campaign):
            game.act(side, None)
        keep_a_sheet(game, side)
        grow(game, 0, 0)  # the other side must hold these before it acts


def median_cpu(step: Callable[[], Any], runs: int, setup: Callable[[], Any] | None = None
               ) -> tuple[float, Any]:
    """The median CPU seconds of ``runs`` runs of ``step`` (``setup`` before each, not timed),
    and the last run's result."""
    times, result = [], None
    for _ in range(runs):
        if setup is not None:
            setup()
        took, result = cpu(step)
        times.append(took)
    return statistics.median(times), result


class SettleTimer:
    """Times the owed settle inside ``import_turn`` (``pbem._settle``) without changing it."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.inner = pbem_module._settle

    def __enter__(self) -> SettleTimer:
        def timed(*args: Any) -> int:
            took, owed = cpu(lambda: self.inner(*args))
            self.seconds.append(took)
            return int(owed)

        pbem_module._settle = timed  # type: ignore[assignment]
        return self

    def __exit__(self, *_: object) -> None:
        pbem_module._settle = self.inner


def measure_exchange(game: Game, runs: int) -> dict[str, Any]:
    """``export`` (for the reader when hidden), then ``import`` of one new turn into copies of
    the reader's database (the owed settle timed inside it), and ``verify`` of that file."""
    ready(game)
    got: dict[str, Any] = {"events": game.version("finland")}
    got["export"], _ = median_cpu(lambda: game.export("finland", "soviet"), runs)
    game.act("finland", TURN)  # one new event for the reader
    path = game.export("finland", "soviet")
    got["file KiB"] = path.stat().st_size // 1024
    scratch = game.folder / "reader-copy.sqlite3"
    with SettleTimer() as settle:
        got["import"], done = median_cpu(
            lambda: import_turn(Session(scratch), path), runs,
            setup=lambda: copy_db(game.db["soviet"], scratch))
    assert done.new_events == 1 and done.owed == (1 if game.hidden else 0), done
    got["owed"] = done.owed
    got["settle"] = statistics.median(settle.seconds) if settle.seconds else None
    got["verify turn file"], _ = median_cpu(lambda: verify_file(path), runs)
    game.send("finland", "soviet")
    grow(game, 0, 0)  # one head again
    return got


def measure_reveal(game: Game, runs: int) -> dict[str, Any]:
    """The reveal of the whole log in the Soviet database, and ``verify`` of the merged file."""
    theirs = game.export("finland", "soviet", whole=True)
    merged = game.folder / "merged.json"
    got: dict[str, Any] = {}
    got["reveal"], done = median_cpu(lambda: reveal(game.session("soviet"), theirs, merged),
                                     runs)
    got["revealed"], got["shown"], got["merged events"] = (done.revealed, done.shown_to_them,
                                                           done.events)
    got["merged dice"] = done.dice.summary()
    got["verify merged"], checked = median_cpu(lambda: verify_file(merged), runs)
    assert checked.dice.ok and not checked.withheld
    got["merged KiB"] = merged.stat().st_size // 1024
    return got


def composition(game: Game) -> str:
    """The log's event types, most frequent first."""
    with game.session("finland")._store() as store:
        kinds = Counter(r.type for r in store.events(game.campaign))
    return ", ".join(f"{n:,} {kind}" for kind, n in kinds.most_common())


def load() -> str:
    """``uptime``'s load averages (1, 5, 15 min)."""
    out = subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout
    return out.rsplit("load average:", 1)[1].strip()


def squares_reference(events: int) -> dict[str, str]:
    """bench/pbem.py (the open exchange on squares, one run each) at the same length, now."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "pbem.py"), str(events)],
                         capture_output=True, text=True, check=True).stdout
    return {label.split(" (")[0]: value.strip() for label, value in
            (line.split(":", 1) for line in out.splitlines() if ":" in line)}


def play(folder: Path, hidden: bool, events: int, turns: int, runs: int) -> dict[str, Any]:
    """Build one game (hidden or open) and measure it."""
    began, wall = time.process_time(), time.perf_counter()
    game = start(folder, hidden)
    grow(game, events, turns)
    got: dict[str, Any] = {"built": (time.process_time() - began, time.perf_counter() - wall)}
    got["log"] = composition(game)
    got |= measure_exchange(game, runs)
    if hidden:
        got |= measure_reveal(game, runs)
    got["stats"] = dict(game.stats)
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("events", type=int, nargs="?", default=2000)
    parser.add_argument("--turns", type=int, default=20, help="turns in a side's stretch")
    parser.add_argument("--runs", type=int, default=5, help="runs per measured step")
    parser.add_argument("--no-doc", action="store_true", help="print, do not write the doc")
    args = parser.parse_args()
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        hidden = play(Path(tmp), True, args.events, args.turns, args.runs)
        print(hidden)
        opened = play(Path(tmp), False, args.events, args.turns, args.runs)
        print(opened)
    squares = squares_reference(hidden["events"])
    command = "uv run python bench/pbem_hidden.py" + (
        f" {args.events}" if args.events != 2000 else "")
    section = render(command, hidden, opened, squares, (before, load()), args)
    print(section)
    if not args.no_doc:
        doc_section.write_section(DOC, BEGIN, END, section)
        print(f"wrote {DOC.relative_to(ROOT)}")


def ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{1000 * seconds:,.0f} ms"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×"


def render(command: str, hidden: dict[str, Any], opened: dict[str, Any],
           squares: dict[str, str], loads: tuple[str, str], args: argparse.Namespace) -> str:
    n, runs = hidden["events"], args.runs
    h, o = hidden, opened
    stats = h["stats"]
    rows = [
        ("`export --for soviet` (hidden) / `export` (open)", ms(h["export"]), ms(o["export"]),
         ratio(h["export"], o["export"]), f"the whole log as a signed turn file ({h['file KiB']:,}"
         f" KiB hidden, {o['file KiB']:,} KiB open)"),
        ("`import` of a file with one new turn", ms(h["import"]), ms(o["import"]),
         ratio(h["import"], o["import"]), "into a copy of the reader's database each run (the "
         "copy not timed); every check of the whole file, then the owed settle"),
        ("… of which the owed settle", ms(h["settle"]), "–", "–",
         f"`pbem._settle` inside the import ({h['settle'] / h['import']:.0%} of it): "
         f"{h['owed']} `accrued` event appended (the reader's sheet, for the turn the sender "
         "advanced); it folds the stored log from its state snapshot on"),
        ("`verify FILE` of that turn file", ms(h["verify turn file"]),
         ms(o["verify turn file"]), ratio(h["verify turn file"], o["verify turn file"]),
         "hidden: the reader's view (the sender's events by link and signed digest, not "
         "folded); open: every event folded, every roll"),
        ("`reveal` of the whole log", ms(h["reveal"]), "–", "–",
         f"in the Soviet database, Finland's plain export: {h['revealed']:,} events of "
         f"Finland's made whole, {h['shown']:,} of the Soviets' checked as honestly shown; "
         "chain, both redactions, a fold of every event, every roll"),
        ("`verify FILE` of the merged log", ms(h["verify merged"]), "–", "–",
         f"{h['merged events']:,} events whole ({h['merged KiB']:,} KiB): {h['merged dice']}"),
    ]
    lines = [
        BEGIN, f"## Play by e-mail with hidden Op Sheets (`{command}`)", "",
        f"A two-side TCS campaign (`tests/data/tcs_two_sides.toml`) played by mail between two "
        f"SQLite databases through the library, both sides' Op Sheets hidden, to {n:,} events: "
        f"each side in turn plays {args.turns} turns in its own database, checks its sheet in a "
        f"sealed dice round, answers its distributions (sealed too) and sends a file filtered "
        f"for the other, who settles what it owes; an implemented sheet is followed by a new "
        f"one. The log: {h['log']}. Built with {stats.get('files', 0):,} turn files and "
        f"{stats.get('sealed rounds', 0):,} sealed rounds, in {h['built'][0]:.0f} s CPU "
        f"({h['built'][1]:.0f} s wall). *Open* is the same game with plain exports (both "
        f"databases whole, nothing owed): {o['log']}.", "",
        f"CPU time of this process (`time.process_time`), median of {runs} runs each; "
        f"{platform.python_version()}, {os.cpu_count()} cores shared with other engineers' "
        f"work, {dt.date.today()}; `uptime` load average {loads[0]} before, {loads[1]} after.",
        "", "| step | hidden | open | hidden ÷ open | how measured |", "|---|---|---|---|---|",
        *("| " + " | ".join(r) + " |" for r in rows), "",
        f"The open exchange on squares at the same length, `uv run python bench/pbem.py {n}` "
        f"run right after (one run each): export --for {squares.get('export --for allied')}, "
        f"import of one new event {squares.get('import of the one new event')}, verify "
        f"{squares.get('verify FILE')}.", END]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
