"""The web app's one seam to the library: every call goes to the session API.

Routes (pages and JSON) call these methods and nothing else that writes, so the web layer holds
no rule logic, and a later per-viewer filter (issue 12) has one place to stand: :class:`Viewer`
is passed to everything that returns state, log or files.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from rallypoint.core.errors import (
    DataFileError,
    MalformedInputError,
    RallypointError,
    StaleVersionError,
)
from rallypoint.session import Campaign, CampaignInfo, Command, Executed, LogEntry, Session


@dataclass(frozen=True)
class Viewer:
    """Who is looking. On a loopback server without accounts the one player sees everything;
    seats and secrets (issue 12) filter views here, at the edge, never inside rules."""

    name: str = "local"

    def sees_all(self) -> bool:
        """Whether this viewer sees every secret (today: always)."""
        return True


LOCAL = Viewer()
"""The viewer of a loopback server without accounts."""

T = TypeVar("T")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _upload_name(filename: str | None, default: str) -> str:
    """A safe file name for an upload (keeps its stem for messages, never a path)."""
    stem = Path(filename or default).name
    return _SAFE_NAME.sub("_", stem)[:80] or default


class Service:
    """The campaigns of one database, as the web app uses them.

    Args:
        db: The SQLite file (created on first use).
    """

    def __init__(self, db: Path) -> None:
        self.db = db
        self.session = Session(db)
        self.session.campaigns()  # create the file and apply migrations once, at start-up
        self._cache: dict[Hashable, Any] = {}
        self._cache_token: tuple[int, ...] | None = None

    # --- caching reads -------------------------------------------------------------------------

    def _token(self) -> tuple[int, ...]:
        """Changes whenever any process commits to the database.

        In WAL mode every commit writes the ``-wal`` file (a checkpoint writes the main file), so
        their sizes and modification times, in nanoseconds, name the database's state; reading
        them costs two ``stat`` calls instead of opening and folding a campaign.
        """
        token: list[int] = []
        for path in (self.db, self.db.with_name(self.db.name + "-wal")):
            try:
                st = path.stat()
            except OSError:
                token += [-1, -1]
            else:
                token += [st.st_size, st.st_mtime_ns]
        return tuple(token)

    def cached(self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()``, remembered until the database changes (by this server or any other
        process). Values must be immutable: campaigns and rendered text."""
        token = self._token()
        if token != self._cache_token:
            self._cache = {}
            self._cache_token = token
        cache = self._cache
        if key not in cache:
            cache[key] = build()
        return cast("T", cache[key])

    def has_cached(self, key: Hashable) -> bool:
        """Whether ``cached(key, ...)`` would answer from memory now (no database read)."""
        return self._token() == self._cache_token and key in self._cache

    def forget(self) -> None:
        """Drop every cached read (after this server wrote)."""
        self._cache_token = None

    # --- reading -------------------------------------------------------------------------------

    def campaigns(self) -> list[CampaignInfo]:
        """Every campaign, oldest first."""
        return self.session.campaigns()

    def scenarios(self) -> list[tuple[str, str, Path]]:
        """(ruleset, ruleset title, path) of every shipped scenario, in a stable order."""
        from rallypoint.core.ruleset import registered

        return [(name, ruleset.title, path) for name, ruleset in sorted(registered().items())
                for path in ruleset.example_scenarios()]

    def load(self, ref: str, viewer: Viewer = LOCAL) -> Campaign:
        """The campaign ``ref`` names (exact id or name), folded to its current version."""
        return self.cached(("campaign", ref), lambda: self.session.load(ref))

    def info(self, ref: str) -> CampaignInfo:
        """The campaign's store entry (its local name, which a rename changes, and version)."""
        return self.cached(("info", ref), lambda: self.session.resolve(ref))

    def view(self, ref: str, viewer: Viewer = LOCAL) -> dict[str, Any]:
        """The JSON view of a campaign (what ``show --json`` prints)."""
        return self.session.view(ref)

    def log(self, ref: str, viewer: Viewer = LOCAL) -> list[LogEntry]:
        """Every event with its rolls, oldest first."""
        return list(self.cached(("log", ref), lambda: tuple(self.session.log(ref))))

    def export_text(self, ref: str, viewer: Viewer = LOCAL) -> tuple[str, str]:
        """(file name, JSON text) of the campaign's export file."""
        info = self.session.resolve(ref)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "export.json"
            self.session.export(info.id, path)
            text = path.read_text(encoding="utf-8")
        return f"{_upload_name(info.name, 'campaign')}.json", text

    # --- writing -------------------------------------------------------------------------------

    def create_shipped(self, path: str, name: str | None, seed: str | None) -> CampaignInfo:
        """Create a campaign from one of the shipped scenarios (by its path or its name)."""
        shipped = {key: p for _, _, p in self.scenarios() for key in (str(p), p.stem)}
        if path not in shipped:
            raise MalformedInputError(f"no shipped scenario {path!r}", where="scenario",
                                      fix="Pick one from the list of shipped scenarios.")
        return self.session.create(shipped[path], name=name or None, seed=seed or None)

    def create_uploaded(self, filename: str | None, content: bytes, name: str | None,
                        seed: str | None) -> CampaignInfo:
        """Create a campaign from an uploaded scenario TOML file."""
        stem = _upload_name(filename, "scenario.toml")
        with self._upload(stem, content) as path:
            return self.session.create(path, name=name or Path(stem).stem, seed=seed or None)

    def import_uploaded(self, filename: str | None, content: bytes, name: str | None
                        ) -> CampaignInfo:
        """Import an export file: a new campaign, or the newer events of one already here."""
        with self._upload(_upload_name(filename, "export.json"), content) as path:
            return self.session.import_file(path, name=name or None)

    def execute(self, ref: str, command: Mapping[str, Any], dice: str | None = None,
                strict: bool = True) -> Executed:
        """Decide a command (its JSON form) and store its event.

        ``strict``: refuse a command made against an older version (a page's form: the player
        chose from what the page showed). Otherwise the session API decides it again at the
        current version if it is still legal (``Executed.retried``).
        """
        if not strict:
            return self.session.execute(ref, dict(command), dice=dice or None)
        expected = _version_of(command.get("expected_version"))

        def build(campaign: Campaign) -> Command:
            # Checked inside the write, so a form can never land on a state it was not made for.
            _check_version(campaign.name, campaign.version, expected)
            return campaign.ruleset.parse_command(command)

        return self.session.execute(ref, build, dice=dice or None)

    def answer(self, ref: str, decision: str | None, policy: str | None,
               expected_version: int) -> Executed:
        """Answer a pending decision by a named policy, made against ``expected_version``."""
        self._check_current(ref, expected_version)
        return self.session.answer(ref, policy or None, decision=decision or None,
                                   expected_version=expected_version)

    def undo(self, ref: str, expected_version: int) -> Executed:
        """Undo the latest effective event (an appended ``undone`` event)."""
        return self.session.undo(ref, expected_version=expected_version)

    def rename(self, ref: str, name: str, expected_version: int) -> CampaignInfo:
        """Give the campaign a new name (its events, and so its exports, keep theirs)."""
        self._check_current(ref, expected_version)
        return self.session.rename(ref, name)

    def delete(self, ref: str, expected_version: int) -> tuple[int, Path]:
        """Delete the campaign after exporting a backup beside the database; return the number
        of events deleted and the backup's path."""
        self._check_current(ref, expected_version)
        info = self.session.resolve(ref)
        slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in info.name)[:40]
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = (self.db.expanduser().resolve().parent / "backups"
                  / f"{slug.strip('-') or 'campaign'}-{info.id[:8]}-{stamp}.json")
        backup.parent.mkdir(parents=True, exist_ok=True)
        return self.session.delete(info.id, backup=backup), backup

    def _check_current(self, ref: str, expected: object) -> None:
        info = self.session.resolve(ref)
        _check_version(info.name, info.version, _version_of(expected))

    @contextmanager
    def _upload(self, stem: str, content: bytes) -> Iterator[Path]:
        """The upload as a file with its own name; errors name the upload, not a temp path."""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / stem
            path.write_bytes(content)
            try:
                yield path
            except RallypointError as exc:
                raise _renamed(exc, folder + "/", "") from None


def _version_of(value: object) -> int:
    if type(value) is not int:
        raise MalformedInputError(
            f"a command needs a whole-number expected_version, not {value!r}",
            where="expected_version", fix="Send the version of the state the player saw.")
    return value


def _check_version(name: str, current: int, expected: int) -> None:
    if expected != current:
        raise StaleVersionError(
            f"the form was made against version {expected}, but {name!r} is at version "
            f"{current}", fix="Reload the page and make the choice again.")


def _renamed(exc: RallypointError, old: str, new: str) -> RallypointError:
    """The same error with a temporary folder left out of what it says."""
    clean = type(exc)(exc.what.replace(old, new),
                      where=exc.where.replace(old, new) if exc.where else None,
                      fix=exc.fix.replace(old, new) if exc.fix else None)
    return clean if isinstance(clean, RallypointError) else DataFileError(str(exc))
