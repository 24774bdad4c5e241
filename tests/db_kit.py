"""A SQLite database read back row by row: what a refused import must leave exactly as it was,
and what two ways of importing one file must both store."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def sqlite_dump(db: Path) -> list[str]:
    """Every row of every table (events, chain marks, snapshots, seats, dice requests and
    answers, secrets) and the schema, as SQL statements (``iterdump``)."""
    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()
