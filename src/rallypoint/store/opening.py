"""Opening the SQLite file: read-only for reads, created and migrated only for writes.

A read never creates a file or a folder, never migrates a current schema and never switches a
journal mode; a SQLite file that is not a rallypoint store is refused unchanged. Driver errors
become one :class:`~rallypoint.core.errors.StoreError` line that says what happened and what to do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final
from urllib.parse import quote

from rallypoint.core.errors import StoreError
from rallypoint.errors import Hint
from rallypoint.store import migrations

DB_ENV_VAR: Final = "RALLYPOINT_DB"
BUSY_TIMEOUT_MS: Final = 5000


def translate(exc: sqlite3.Error, where: str, doing: str) -> StoreError:
    """One line for a driver error, by kind: busy, damaged, read-only, or other."""
    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return StoreError(
            f"the database is busy: another process is writing to it ({doing} waited "
            f"{BUSY_TIMEOUT_MS // 1000} s)", where=where,
            fix="wait for the other rallypoint command (or the program holding the file) to "
                "finish, then run this again; nothing was written", instead=Hint.SERVER)
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        return StoreError(
            f"the database file is damaged ({text})", where=where,
            fix="restore it from a backup, or re-import your campaigns' exports into a new "
                "--db; `sqlite3 FILE .recover` may save the rest", instead=Hint.SERVER)
    if "readonly" in low or "read-only" in low:
        return StoreError(f"cannot write the database: {text}", where=where,
                          fix="check the file's and its folder's permissions, or choose "
                              f"another --db (or ${DB_ENV_VAR})", instead=Hint.SERVER)
    return StoreError(f"database error while {doing}: {text}", where=where,
                      fix="nothing was written; retry, and run `rallypoint verify` if it persists",
                      instead=Hint.SERVER)


@contextmanager
def sql_errors(where: str, doing: str) -> Iterator[None]:
    """Re-raise any ``sqlite3.Error`` inside the block as one :class:`StoreError` line."""
    try:
        yield
    except sqlite3.Error as exc:
        raise translate(exc, where, doing) from exc


def connect(path: str, *, readonly: bool) -> sqlite3.Connection:
    """Open ``path`` with the store's settings, migrating it if (and only if) it is behind.

    Args:
        path: The database file, ``":memory:"`` or a ``file:`` URI.
        readonly: Open with ``mode=ro``: refuse a missing file instead of creating it.

    Raises:
        StoreError: Missing file (read-only), a folder, a path under a file, a file that is not a
            rallypoint database, a newer schema, a busy or damaged database.
    """
    special = path == ":memory:" or path.startswith("file:")
    if not special:
        _check_path(Path(path).expanduser(), path, readonly)
    try:
        if readonly and not special:
            uri = "file:" + quote(str(Path(path).expanduser().resolve())) + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        else:
            # isolation_level=None: the sqlite3 module must not open transactions behind our back.
            conn = sqlite3.connect(path, isolation_level=None, uri=path.startswith("file:"))
    except sqlite3.Error as exc:
        raise translate(exc, path, "opening") from exc
    try:
        with sql_errors(path, "opening"):
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            pending = migrations.pending_migrations(conn, path)
            if readonly and len(pending) == len(migrations.MIGRATIONS):
                raise StoreError(f"{path!r} is an empty database, not yet a rallypoint store",
                                 where=path, fix="check --db; `rallypoint new` makes a store",
                                 instead=Hint.SERVER)
            if readonly and pending and not special:
                # An older store is upgraded once, by a short read-write open; a read of a
                # current store never takes the write lock.
                conn.close()
                connect(path, readonly=False).close()
                return connect(path, readonly=True)
            if not readonly:
                for pragma in ("journal_mode = WAL", "synchronous = FULL"):
                    conn.execute(f"PRAGMA {pragma}")
            conn.execute("PRAGMA foreign_keys = ON")
            if pending:
                migrations.apply_migrations(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def _check_path(file: Path, shown: str, readonly: bool) -> None:
    """Refuse paths that cannot be a database file, before SQLite creates anything."""
    if file.is_dir():
        raise StoreError(f"{shown!r} is a folder, not a database file", where=shown,
                         fix="pass a file path with --db, e.g. campaigns.sqlite3 inside it",
                         instead=Hint.SERVER)
    blocker = next((p for p in file.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise StoreError(f"cannot use {shown!r}: {str(blocker)!r} is a file, not a folder",
                         where=shown, fix="choose a --db path whose folders are folders",
                         instead=Hint.SERVER)
    if readonly:
        if not file.exists():
            raise StoreError(f"no database at {shown!r}",
                             fix=f"check --db (or ${DB_ENV_VAR}); a database is made by the "
                                 "first `rallypoint new`", instead=Hint.SERVER)
        return
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the folder for the database: {exc.strerror}",
                         where=shown, fix=f"choose a writable --db path (or set ${DB_ENV_VAR})"
                         , instead=Hint.SERVER) from exc
