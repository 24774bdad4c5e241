"""A stand-in for argon2's cost in tests: the same argon2id, at its smallest parameters.

A real signup or login costs about half a second of CPU on purpose (RFC 9106's low-memory
profile, what a hosted server must pay to slow a guesser). The suite signs up and logs in
hundreds of players; at the real cost that is minutes of CI on two cores and tests nothing more.
So every in-process test hashes with the same algorithm and format at the cheapest cost
(``conftest.py`` swaps it in); servers the tests start as subprocesses keep the real cost, and
``test_seats.py`` pins the real hasher's parameters to RFC 9106.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from argon2 import PasswordHasher

from rallypoint.session import seats

REAL_HASHER = seats._HASHER
"""The hasher a server uses (checked against RFC 9106's low-memory profile by test_seats)."""
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
"""argon2id still, at its smallest parameters: a stand-in for the real cost."""


@pytest.fixture(autouse=True, scope="session")
def cheap_password_hashing() -> Iterator[None]:
    """Swap the cheap hasher in for the whole run (and the dummy hash a failed login checks)."""
    real = seats._HASHER, seats._DUMMY_HASH
    seats._HASHER = CHEAP_HASHER
    seats._DUMMY_HASH = CHEAP_HASHER.hash("not a password of anyone's")
    try:
        yield
    finally:
        seats._HASHER, seats._DUMMY_HASH = real
