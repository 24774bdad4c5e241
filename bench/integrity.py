"""What the store's integrity checks cost: ``uv run python bench/integrity.py``.

For logs of 1 000, 10 000 and 100 000 events: the full check (chain and head, from the stored
text) that ``verify``, every write and every read-only ``check`` run; one append (which runs
that check under the write lock, then fsyncs); and refusing a re-hashed import that cannot be
played. Prints one line per size; the figures are quoted in docs/reliability.md.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from rallypoint.core.events import CREATED, NewEvent
from rallypoint.store import EventStore


def fill(store: EventStore, campaign_id: str, count: int) -> None:
    store.create_campaign(campaign_id, "bench", "test",
                          NewEvent(type=CREATED, payload={"name": "bench", "seed": 1}))
    batch = 1000
    for start in range(2, count + 1, batch):
        events = [NewEvent(type="test", payload={
            "n": seq, "rolls": [{"faces": [3, 5], "purpose": "recovery roll"}],
            "note": "x" * 60}) for seq in range(start, min(start + batch, count + 1))]
        store.append_many(campaign_id, start, events)


def best(fn: object, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    for count in (1_000, 10_000, 100_000):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bench.sqlite3"
            with EventStore(path) as store:
                fill(store, "c", count)
                check = best(lambda: store.check("c"))
                version = count
                started = time.perf_counter()
                for _ in range(5):
                    version += 1
                    store.append("c", version, NewEvent(type="test", payload={"n": version}))
                append = (time.perf_counter() - started) / 5
            with EventStore(path, readonly=True) as reader:
                verify = best(lambda: reader.verify("c"), 3)
        print(f"{count:>7} events: check {check * 1000:7.1f} ms, verify {verify * 1000:7.1f} ms, "
              f"append (check + fsync) {append * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
