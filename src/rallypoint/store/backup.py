"""A whole SQLite database copied while it is in use: every campaign, dice secret and seat key.

An export (``rallypoint export``) is a campaign's log for the other seat or another database, and
leaves out what must never travel: the server-mode dice secret and the seat's private key and
chain seed. A backup is for the same player on another day or machine, so it keeps everything:
restored, the campaigns roll on. It uses SQLite's online backup API, so a server may keep serving
while it runs, and it is written beside its target and renamed into place only when complete, so
a crash or a full disk never leaves half a backup under the name asked for.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rallypoint.core.errors import DataFileError, StoreError
from rallypoint.errors import Hint
from rallypoint.store.opening import connect

_PAGES_PER_STEP = 1024
"""Pages copied per step of the online backup: other connections may write between steps."""


@dataclass(frozen=True)
class Backup:
    """What a backup wrote.

    Attributes:
        path: The backup file (a complete rallypoint database: open it with ``--db``).
        campaigns: Campaigns it holds.
        events: Events it holds, over every campaign.
        size: Its size in bytes.
    """

    path: Path
    campaigns: int
    events: int
    size: int


def backup_sqlite(source: Path, target: Path) -> Backup:
    """Copy the SQLite database ``source`` to the new file ``target``, secrets included.

    Raises:
        DataFileError: ``target`` exists (a backup never replaces a file), or its folder does not.
        StoreError: ``source`` is not a rallypoint database, or the copy fails.
    """
    target = target.expanduser()
    _check_target(target)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.",
                                     suffix=".partial", delete=False) as handle:
        partial = Path(handle.name)
    try:
        _copy(source, partial)
        # link, then unlink: unlike a rename, a link never replaces a file that appeared meanwhile.
        os.link(partial, target)
    except FileExistsError:
        raise _exists(target) from None
    finally:
        partial.unlink(missing_ok=True)
    return _summary(target)


def _check_target(target: Path) -> None:
    if target.exists() or target.is_symlink():
        raise _exists(target)
    if not target.parent.is_dir():
        raise DataFileError(f"no folder {str(target.parent)!r} to write the backup in",
                            where=str(target), fix="Create the folder first, or name another.")


def _exists(target: Path) -> DataFileError:
    return DataFileError(f"{str(target)!r} already exists; a backup never replaces a file",
                         fix="Name a new file (e.g. with today's date).")


def _copy(source: Path, partial: Path) -> None:
    """The online backup, page by page, then the copy's own integrity check."""
    reader = connect(str(source), readonly=True)
    try:
        copy = sqlite3.connect(partial, isolation_level=None)
        try:
            reader.backup(copy, pages=_PAGES_PER_STEP)
            copy.execute("PRAGMA journal_mode = wal")  # as every store is opened
            verdict = copy.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            copy.close()
    except sqlite3.Error as exc:
        raise StoreError(f"the backup failed: {exc}", where=str(source),
                         fix="Check the disk has room; nothing was written.") from exc
    finally:
        reader.close()
    if verdict != "ok":
        raise StoreError(f"the backup's integrity check says {verdict!r}", where=str(source),
                         fix="Nothing was kept; check the source with `rallypoint verify`.",
                         instead=Hint.SERVER)


def _summary(target: Path) -> Backup:
    conn = connect(str(target), readonly=True)
    try:
        campaigns = int(conn.execute("SELECT count(*) FROM campaigns").fetchone()[0])
        events = int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()
    return Backup(target, campaigns, events, target.stat().st_size)
