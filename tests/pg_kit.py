"""A throwaway PostgreSQL database per test, on the server ``RALLYPOINT_TEST_PG`` names.

``.ci/run`` starts Debian's PostgreSQL and sets the variable (see ``.ci/postgres``). Locally the
tests skip when no server answers; under CI (``CI`` set) an unreachable server fails them
instead, so a broken setup cannot pass as "skipped".
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

DEFAULT_URL = "postgresql://rallypoint:rallypoint@127.0.0.1:5432/rallypoint_test"


def server_url() -> str:
    """The admin URL tests create their databases through."""
    return os.environ.get("RALLYPOINT_TEST_PG", DEFAULT_URL)


def _with_db(url: str, name: str) -> str:
    return url.rsplit("/", 1)[0] + "/" + name


def fresh_database() -> Iterator[str]:
    """Create an empty database, yield its URL, drop it afterwards."""
    import psycopg

    admin = server_url()
    try:
        conn = psycopg.connect(admin, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide PostgreSQL at {admin}: {exc}")
        pytest.skip(f"no PostgreSQL server reachable at {admin}")
    name = f"rp_test_{uuid.uuid4().hex[:12]}"
    with conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_db(admin, name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
