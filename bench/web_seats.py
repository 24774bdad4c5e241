"""Web seats benchmark (not a timed test): requests per second of the TCS campaign page for a
side's seat and the referee on a ``--shared`` server, a side's redacted export, and the same page
without accounts, through FastAPI's in-process client (one client, sequential requests).

Run with ``uv run python bench/web_seats.py [--requests N]``; it plays the two-sided campaign of
the authorization-matrix tests on a throwaway SQLite database and prints one line per case.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from rallypoint.web.app import create_app  # noqa: E402
from rallypoint.web.settings import WebSettings  # noqa: E402
from web.seats_table import open_table  # noqa: E402


def rate(client: TestClient, url: str, n: int) -> float:
    """Requests per second of ``n`` sequential GETs of ``url`` (after one warm-up)."""
    assert client.get(url).status_code == 200
    start = time.perf_counter()
    for _ in range(n):
        assert client.get(url).status_code == 200
    return n / (time.perf_counter() - start)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    n = parser.parse_args().requests
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "seats.db"
        for table in open_table(db, Path(folder)):
            page = f"/c/{table.ref}"
            side = rate(table.people["finland"].client, page, n)
            print(f"shared, a side's page:      {side:6.0f} req/s")
            referee = rate(table.people["referee"].client, page, n)
            print(f"shared, the referee's page: {referee:6.0f} req/s")
            export = rate(table.people["soviet"].client, page + "/export", max(n // 5, 1))
            print(f"shared, a side's export:    {export:6.0f} req/s")
            app = create_app(WebSettings(db=db, allowed_hosts=("testserver",)))
            with TestClient(app, base_url="http://testserver") as client:
                print(f"no accounts, the page:      {rate(client, page, n):6.0f} req/s")


if __name__ == "__main__":
    main()
