"""Attempt counting shared by every process on one database (login, signup, join limits).

A limit counted in a process's memory lets N workers allow N times the attempts. Here each
attempt is a row (``rate_hits``), and :meth:`LimitsMixin.take` counts and records one attempt in
one write transaction, serialised per key (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: an advisory
lock on the key), so two workers racing for the last attempt cannot both have it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, ClassVar


class LimitsMixin:
    """Sliding-window attempt counts, on any store with ``_write`` transactions."""

    _PLACEHOLDER: ClassVar[str] = "?"

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _serialise_key(self, conn: Any, text: str) -> None:
        """Hold a lock on ``text`` until the transaction ends (SQLite's writes already are)."""

    def take(self, bucket: str, key: str, *, limit: int, window: float, now: float) -> float:
        """Count one attempt for ``key`` in ``bucket`` if it has attempts left in the window.

        Returns:
            0.0 when the attempt was allowed (and recorded); else the seconds until the oldest
            attempt in the window expires (nothing recorded).
        """
        p = self._PLACEHOLDER
        with self._write() as conn:
            self._serialise_key(conn, f"{bucket}\n{key}")
            conn.execute(f"DELETE FROM rate_hits WHERE bucket = {p} AND at <= {p}",
                         (bucket, now - window))
            rows = conn.execute(f"SELECT at FROM rate_hits WHERE bucket = {p} AND key = {p} "
                                f"ORDER BY at", (bucket, key)).fetchall()
            if len(rows) >= limit:
                return max(float(rows[0][0]) + window - now, 0.001)
            conn.execute(f"INSERT INTO rate_hits (bucket, key, at) VALUES ({p}, {p}, {p})",
                         (bucket, key, now))
        return 0.0

    def give_back(self, bucket: str, key: str, at: float) -> None:
        """Forget one recorded attempt (a login that succeeded is not a failure to count)."""
        p = self._PLACEHOLDER
        with self._write() as conn:
            conn.execute(f"DELETE FROM rate_hits WHERE bucket = {p} AND key = {p} AND at = {p}",
                         (bucket, key, at))
