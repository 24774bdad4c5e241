"""A throwaway PostgreSQL database per test, on the server ``RALLYPOINT_TEST_PG`` names.

``.ci/run`` starts Debian's PostgreSQL and sets the variable (see ``.ci/postgres``). Locally the
tests skip when no server answers; under CI (``CI`` set) an unreachable server fails them
instead, so a broken setup cannot pass as "skipped".
"""

from __future__ import annotations

import atexit
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


_SPARE: list[str] = []
"""Databases of this test process emptied after use, waiting for the next test."""


def fresh_database() -> Iterator[str]:
    """An empty database: yield its URL, empty it afterwards for the next test.

    Why not CREATE and DROP per test: DROP DATABASE forces a checkpoint (about a second, three
    under CI's load), and the suite makes hundreds. A database emptied of its schema is as fresh
    for the store (migrations create everything in ``public``); the spares are dropped when the
    test process ends.
    """
    import psycopg

    admin = server_url()
    try:
        conn = psycopg.connect(admin, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide PostgreSQL at {admin}: {exc}")
        pytest.skip(f"no PostgreSQL server reachable at {admin}")
    with conn:
        if _SPARE:
            name = _SPARE.pop()
        else:
            name = f"rp_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_db(admin, name)
    finally:
        _empty_or_drop(admin, name)


def _empty_or_drop(admin: str, name: str) -> None:
    """End every connection to ``name``, drop its schema and keep it spare (else drop it)."""
    import psycopg

    try:
        with psycopg.connect(_with_db(admin, name), autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = current_database() AND pid <> pg_backend_pid()")
            conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
            conn.execute("CREATE SCHEMA public")
            left = conn.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n "
                                "ON n.oid = c.relnamespace WHERE n.nspname NOT IN "
                                "('pg_catalog', 'information_schema', 'pg_toast')").fetchone()
        if left is not None and left[0] == 0:
            _SPARE.append(name)
            return
    except psycopg.Error:
        pass
    _drop(admin, name)


def _drop(admin: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@atexit.register
def _drop_spares() -> None:
    """The spares go with the test process (a checkpoint each, once, at the end)."""
    while _SPARE:
        try:
            _drop(server_url(), _SPARE.pop())
        except Exception:  # the server may be gone at exit: nothing left to keep
            return
