"""``rallypoint backup FILE``: the whole database, secrets included, for a restore that rolls on."""

from __future__ import annotations

from pathlib import Path

from rallypoint.core.errors import IllegalNowError, UnknownIdError
from rallypoint.errors import Hint
from rallypoint.session.handle import Handle
from rallypoint.store.backup import Backup, backup_sqlite
from rallypoint.store.postgres import is_postgres_url


def backup(session: Handle, target: Path) -> Backup:
    """Copy the session's whole database to the new file ``target`` while it may be in use.

    Every campaign, its events and snapshots, the server-mode dice secrets and the seats' keys
    and chain seeds are kept, so a campaign restored from it (``--db FILE``, or the file copied
    back into place) rolls on. Keep backups as safe as the database: they hold every secret.

    Raises:
        IllegalNowError: The database is PostgreSQL (back it up with ``pg_dump``, docs/hosting.md).
        UnknownIdError: There is no database yet.
        DataFileError: ``target`` exists, or its folder does not.
    """
    if is_postgres_url(session.location):
        raise IllegalNowError(
            "`rallypoint backup` copies a SQLite database; this one is PostgreSQL",
            fix="Use `pg_dump --format=custom` (docs/hosting.md, 'Backups'); it keeps the "
                "dice secrets and seat keys too.", instead=Hint.SERVER)
    if not session.path.exists():
        raise UnknownIdError(f"no database at {str(session.path)!r} to back up",
                             fix="Check --db (or $RALLYPOINT_DB).", instead=Hint.SERVER)
    return backup_sqlite(session.path, target)
