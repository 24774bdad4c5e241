"""Time the play-by-e-mail steps on a long squares campaign (library calls, CPU time).

    uv run python bench/pbem.py 5000      # turns played before the exchange

Two seats, two SQLite files; a turn file of N+1 events is exported for the other seat, imported
(every check: signature, chain, head, fold, dice audit) and verified offline; then one pair-mode
dice round (request, answer, import of the event back). Figures: docs/two-player.md.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rallypoint.session import Session
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.pbem import (
    answer,
    create_seated,
    export_turn,
    import_turn,
    new_seat,
    verify_file,
)

SCENARIO = (Path(__file__).parent.parent / "src/rallypoint/rulesets/squares/scenarios"
            / "farm_below_the_ridge.toml")
RALLY = {"kind": "rally", "leader": "kempt", "unit": "28th", "rally": "disorder"}


def timed(label: str, step: Callable[[], Any]) -> Any:
    """Run ``step`` once and print its CPU time."""
    start = time.process_time()
    result = step()
    print(f"{label}: {1000 * (time.process_time() - start):.0f} ms CPU")
    return result


def main(turns: int) -> None:
    """Build the campaign, then time each step of an exchange."""
    tmp = Path(tempfile.mkdtemp())
    french, allied = Session(tmp / "a.sqlite3"), Session(tmp / "b.sqlite3")
    card = timed("seat new (key and 10,000-link chain)", lambda: new_seat(french, "french"))
    info = create_seated(french, SCENARIO, [card, new_seat(allied, "allied")], name="farm")
    french.play(info.id, lambda c: None if c.version > turns else
                c.ruleset.parse_command({"kind": "turn", "expected_version": c.version}))
    path = tmp / "t1.json"
    events = french.load(info.id).version
    timed(f"export --for allied ({events} events)",
          lambda: export_turn(french, info.id, path, for_seat="allied"))
    timed(f"import, a new campaign ({events} events)", lambda: import_turn(allied, path))
    timed(f"verify FILE ({events} events)", lambda: verify_file(path))
    with contextlib.suppress(AwaitingDice):  # the rally waits for french's link
        allied.execute(info.id, {**RALLY, "expected_version": events})
    export_turn(allied, info.id, tmp / "t2.json", for_seat="french")
    timed("import of a dice request", lambda: import_turn(french, tmp / "t2.json"))
    timed("dice answer", lambda: answer(french, info.id))
    export_turn(french, info.id, tmp / "t3.json", for_seat="allied")
    timed("import of the one new event", lambda: import_turn(allied, tmp / "t3.json"))
    print(f"turn file: {(tmp / 't3.json').stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
