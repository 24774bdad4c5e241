"""Attempt limits a shared server counts in its database, so every worker process counts the same
attempts (docs/hosting.md): login, signup and invite redemptions."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rallypoint.core.errors import RallypointError
from rallypoint.store.location import open_store


class RateLimitedError(RallypointError):
    """Too many attempts; wait before trying again."""

    code = "rate-limited"


class SharedLimits:
    """Attempt limits counted in the database (``rate_hits``), so every worker process of a
    server counts the same attempts (:mod:`rallypoint.store.limits`).

    Args:
        location: The server's database.
        clock: Unix time now (tests move it).
    """

    def __init__(self, location: Path | str,
                 clock: Callable[[], float] = time.time) -> None:
        self.location = location
        self.clock = clock

    def take(self, bucket: str, key: str, limit: tuple[int, float], what: str) -> float:
        """Count one attempt; return its time (to give it back).

        Raises:
            RateLimitedError: ``key`` has used up its attempts in ``bucket``, with the wait.
        """
        count, window = limit
        now = self.clock()
        with open_store(self.location) as store:
            wait = store.take(bucket, key, limit=count, window=window, now=now)
        if wait:
            raise RateLimitedError(f"too many {what}; try again in {int(wait) + 1} s",
                                   fix="Wait, then try again.")
        return now

    def give_back(self, bucket: str, key: str, at: float) -> None:
        """Forget an attempt that turned out not to count (a login that succeeded)."""
        with open_store(self.location) as store:
            store.give_back(bucket, key, at)
