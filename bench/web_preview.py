"""Live preview benchmark (not a timed test): CPU per JSON preview of a TCS turn on a
``--shared`` server, for a side's seat (filtered at the edge: the whole log is redacted to find
what the seat's log would say of the event) and for the referee (whole), after N more turns.

Run with ``uv run python bench/web_preview.py [--turns N] [--requests R]``; it plays the
two-sided campaign of the seats tests on a throwaway SQLite database.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from web.seats_table import Table, open_table  # noqa: E402

TURN = {"kind": "turn", "skip_fo": True}


def cpu_ms(table: Table, who: str, requests: int) -> float:
    """CPU milliseconds per preview of the next turn by ``who`` (after one warm-up)."""
    person = table.people[who]
    body = {"command": {**TURN, "expected_version": table.version()}}
    url = f"/api/campaigns/{table.ref}/preview"
    assert person.post(url, body).status_code == 200
    start = time.process_time()
    for _ in range(requests):
        person.post(url, body)
    return (time.process_time() - start) / requests * 1000


def main() -> None:
    """Play the campaign, then time the previews."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for table in open_table(Path(folder) / "bench.db", Path(folder)):
            for _ in range(args.turns):
                assert table.command("soviet", TURN).status_code == 201
            events = table.version()
            for who in ("referee", "soviet"):
                print(f"{events} events, {who}: {cpu_ms(table, who, args.requests):.1f} ms "
                      "CPU per preview")


if __name__ == "__main__":
    main()
