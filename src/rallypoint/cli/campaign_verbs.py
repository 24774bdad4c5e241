"""Campaign housekeeping verbs: rename and delete (the only way events leave); export and import
are in :mod:`rallypoint.cli.pbem`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from rallypoint.cli.session import console, guarded, session


def rename(
    campaign: Annotated[str, typer.Argument(help="Campaign name or id.")],
    new_name: Annotated[str, typer.Argument(help="The new name.")],
) -> None:
    """Give a campaign a new local name (its history and exports are unchanged)."""
    with guarded():
        old = session().resolve(campaign)
        renamed = session().rename(old.id, new_name)
    console.print(f"renamed {escape(old.name)} to [bold]{escape(renamed.name)}[/]",
                  highlight=False)


def delete(
    campaign: Annotated[str, typer.Argument(help="Campaign name or id.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
    = False,
    no_backup: Annotated[bool, typer.Option(
        "--no-backup", help="Do not export a backup first.")] = False,
) -> None:
    """Delete a campaign and its whole log (a backup export is written first).

    The only way events leave the store. The backup goes to a ``backups`` folder beside the
    database; a broken campaign is backed up as far as it can be read.
    """
    from rallypoint.core.errors import IllegalNowError

    with guarded():
        info = session().resolve(campaign)
        if not yes:
            question = (f"Delete campaign {info.name!r} ({info.ruleset}, {info.version} events)"
                        + ("" if no_backup else " after exporting a backup") + "?")
            try:
                confirmed = typer.confirm(question, default=False)
            except typer.Abort:
                confirmed = False
            if not confirmed:
                # Declined is a refusal like any other (exit 2, nothing written), so a script
                # piping in "n" or no answer at all never reads it as done.
                raise IllegalNowError(f"delete of {info.name!r} not confirmed",
                                      fix="Nothing was deleted; answer y, or pass --yes.")
        backup = None if no_backup else backup_path(_backup_root(), info.name, info.id)
        if backup is not None:
            backup.parent.mkdir(parents=True, exist_ok=True)
        count = session().delete(info.id, backup=backup)
    where = f"; backup in {escape(str(backup))}" if backup else ""
    events = f"{count} event" + ("" if count == 1 else "s")
    console.print(f"deleted {escape(info.name)} ({events}){where}", highlight=False,
                  soft_wrap=True)


def backup(
    file: Annotated[Path, typer.Argument(
        help="The new backup file (never replaces one). Restore: use it as --db, or copy it "
             "back in place.")],
) -> None:
    """Copy the whole database (every campaign, dice secret and seat key) to a new file.

    Safe while a server is using the database. Unlike `export`, a backup keeps the secrets, so
    its campaigns roll on when restored: store it as carefully as the database itself. For a
    PostgreSQL database use pg_dump (docs/hosting.md).
    """
    from rallypoint.session.backup import backup as back_up

    with guarded():
        made = back_up(session(), file)
    events = f"{made.events} event" + ("" if made.events == 1 else "s")
    campaigns = f"{made.campaigns} campaign" + ("" if made.campaigns == 1 else "s")
    console.print(f"backed up {campaigns} ({events}, {made.size:,} bytes) to "
                  f"{escape(str(made.path))}", highlight=False, soft_wrap=True)


def _backup_root() -> Path:
    """Backups go beside a SQLite file; for a PostgreSQL URL, beside the default database."""
    from rallypoint.session import default_db_path

    where = session().location
    return where if isinstance(where, Path) else default_db_path()


def backup_path(db: Path, name: str, campaign_id: str) -> Path:
    """``backups/<name>-<id8>-<UTC time>.json`` beside the database file."""
    slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)[:40].strip("-")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return db.expanduser().resolve().parent / "backups" / f"{slug or 'campaign'}-" \
        f"{campaign_id[:8]}-{stamp}.json"


def register(app: typer.Typer) -> None:
    """Add these verbs to the top-level app."""
    app.command()(rename)
    app.command()(backup)
    app.command()(delete)
