"""The web app's one seam to the library: every call goes to the session API.

Routes (pages and JSON) call these methods and nothing else that writes, so the web layer holds
no rule logic. Every method that returns state, log, decisions or files takes the
:class:`~rallypoint.core.visibility.Viewer` asking, and filters what it returns for that viewer
with the ruleset's declaration (:mod:`rallypoint.core.visibility`); every method that writes
refuses a command that acts for another seat. Without accounts the viewer is :data:`LOCAL`,
who sees and does everything.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from rallypoint.core.errors import (
    DataFileError,
    Hint,
    MalformedInputError,
    RallypointError,
    StaleVersionError,
)
from rallypoint.core.events import CREATED, UNDONE, EventRecord
from rallypoint.core.ruleset import Decision
from rallypoint.core.visibility import (
    EVERYTHING,
    Declaration,
    NotYourSeatError,
    Role,
    Viewer,
    authorize_command,
    declaration_of,
    is_redacted,
    redact_events,
    redact_view,
    visible_decisions,
)
from rallypoint.session import Campaign, CampaignInfo, Command, Executed, LogEntry, Session
from rallypoint.session.exports import export_for
from rallypoint.session.hosting import change_mark
from rallypoint.session.powers import Power
from rallypoint.session.preview import preview
from rallypoint.session.seats import REFEREE_SEAT, SeatBook, ensure_store
from rallypoint.web.seat_preview import SeatPreview, shown_preview

LOCAL = EVERYTHING
"""The viewer of a server without accounts: the one local player (or the table) sees all."""

T = TypeVar("T")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def _upload_name(filename: str | None, default: str) -> str:
    """A safe file name for an upload (keeps its stem for messages, never a path)."""
    stem = Path(filename or default).name
    return _SAFE_NAME.sub("_", stem)[:80] or default


class Service:
    """The campaigns of one database, as the web app uses them.

    Args:
        db: The SQLite file (created on first use) or a ``postgresql://`` URL.
        shared: Campaigns have seats (``serve --shared``): reads are filtered per viewer,
            writes checked per seat, and who made each event is noted.
        backups: Where a delete writes its backup (default: beside the SQLite file; for
            PostgreSQL, the user data folder).
    """

    def __init__(self, db: Path | str, shared: bool = False, backups: Path | None = None
                 ) -> None:
        self.db = db
        self.backups = backups
        self.session = Session(db)
        ensure_store(db)  # create the file (or schema) and apply migrations once, at start-up
        self.postgres = isinstance(self.session.location, str)
        self.book: SeatBook | None = SeatBook(db) if shared else None
        self._cache: dict[Hashable, Any] = {}
        self._cache_token: tuple[Any, ...] | None = None
        self.after_write: Callable[[str, Viewer], None] | None = None
        """Called after a seat recorded an event (the "your move" mails, ``web.mail``)."""

    # --- caching reads -------------------------------------------------------------------------

    def token(self) -> tuple[Any, ...]:
        """Changes whenever any process commits to the database.

        In WAL mode every commit writes the ``-wal`` file (a checkpoint writes the main file), so
        their sizes and modification times, in nanoseconds, name the database's state; reading
        them costs two ``stat`` calls instead of opening and folding a campaign. On PostgreSQL
        the database's own change mark (one small query on a kept connection) names it: triggers
        move it with every commit that writes what a page shows. Read it once per request and
        pass it to :meth:`has_cached` and :meth:`cached`: on PostgreSQL each read is a round
        trip.
        """
        if self.postgres:
            return (change_mark(str(self.db)),)
        db = Path(self.db)
        token: list[int] = []
        for path in (db, db.with_name(db.name + "-wal")):
            try:
                st = path.stat()
            except OSError:
                token += [-1, -1]
            else:
                token += [st.st_size, st.st_mtime_ns]
        return tuple(token)

    def cached(self, key: Hashable, build: Callable[[], T],
               token: tuple[Any, ...] | None = None) -> T:
        """``build()``, remembered until the database changes (by this server or any other
        process). Values must be immutable: campaigns and rendered text.

        Args:
            key: What is built.
            build: Builds it from the database.
            token: :meth:`token`, read before this call in the same request (default: read now).
                Read before ``build`` runs, so a commit during the build only costs a re-build.
        """
        token = self.token() if token is None else token
        if token != self._cache_token:
            self._cache = {}
            self._cache_token = token
        cache = self._cache
        if key not in cache:
            cache[key] = build()
        return cast("T", cache[key])

    def has_cached(self, key: Hashable, token: tuple[Any, ...] | None = None) -> bool:
        """Whether ``cached(key, ...)`` would answer from memory now (no database read);
        ``token`` as for :meth:`cached`."""
        token = self.token() if token is None else token
        return token == self._cache_token and key in self._cache

    def forget(self) -> None:
        """Drop every cached read (after this server wrote)."""
        self._cache_token = None

    # --- reading -------------------------------------------------------------------------------

    def campaigns(self, account_id: str | None = None) -> list[CampaignInfo]:
        """Every campaign, oldest first; on a shared server only those ``account_id`` holds a
        seat in."""
        found = self.session.campaigns()
        if self.book is None:
            return found
        mine = self.book.campaigns_of(account_id) if account_id else frozenset()
        return [c for c in found if c.id in mine]

    def scenarios(self) -> list[tuple[str, str, Path]]:
        """(ruleset, ruleset title, path) of every shipped scenario, in a stable order."""
        from rallypoint.core.registry import registered

        return [(name, ruleset.title, path) for name, ruleset in sorted(registered().items())
                for path in ruleset.example_scenarios()]

    def load(self, ref: str) -> Campaign:
        """The campaign ``ref`` names (exact id or name), folded to its current version (all of
        it: filter what reaches a viewer with the methods below)."""
        return self.cached(("campaign", ref), lambda: self.session.load(ref))

    def records(self, ref: str) -> tuple[EventRecord, ...]:
        """Every stored event of the campaign (its whole log)."""
        return self.cached(("records", ref), lambda: tuple(self.session.load(ref, whole=True)
                                                           .events))

    def info(self, ref: str) -> CampaignInfo:
        """The campaign's store entry (its local name, which a rename changes, and version)."""
        return self.cached(("info", ref), lambda: self.session.resolve(ref))

    def declaration(self, campaign: Campaign) -> Declaration:
        """What the campaign's ruleset declares secret, and whose each command is."""
        return declaration_of(campaign.ruleset.name)

    def view(self, ref: str, viewer: Viewer = LOCAL) -> dict[str, Any]:
        """The JSON view of a campaign (what ``show --json`` prints), as ``viewer`` may see it."""
        view = self.session.view(ref)
        if viewer.sees_all():
            return dict(view)
        campaign = self.load(ref)
        return redact_view(view, campaign.created.scenario, viewer, self.declaration(campaign))

    def state_view(self, campaign: Campaign, viewer: Viewer = LOCAL) -> dict[str, Any]:
        """The ruleset's state view of ``campaign`` as ``viewer`` may see it."""
        from rallypoint.core.visibility import redact_state

        state = campaign.ruleset.state_json(campaign.state)
        return redact_state(state, campaign.created.scenario, viewer, self.declaration(campaign))

    def pending(self, campaign: Campaign, viewer: Viewer = LOCAL) -> list[Decision]:
        """The pending decisions ``viewer`` may see and answer (their own, and no side's)."""
        pending = campaign.ruleset.pending(campaign.state)
        if viewer.sees_all():
            return pending
        keep = visible_decisions([d.model_dump() for d in pending],
                                 campaign.ruleset.state_json(campaign.state),
                                 campaign.created.scenario, viewer, self.declaration(campaign))
        return [pending[n] for n in keep]

    def log(self, ref: str, viewer: Viewer = LOCAL) -> list[LogEntry]:
        """Every event with its rolls, oldest first; a withheld event says only what its
        ruleset's public summary says, without rolls."""
        entries = list(self.cached(("log", ref), lambda: tuple(self.session.log(ref))))
        if viewer.sees_all():
            return entries
        campaign = self.load(ref)
        declared = self.declaration(campaign)
        seen = redact_events(self.records(ref), viewer, declared)
        return [entry if not is_redacted(shown) or shown.type == CREATED
                else replace(entry, summary=_public_summary(shown, declared), rolls=())
                for entry, shown in zip(entries, seen, strict=True)]

    def recorded(self, done: Executed, viewer: Viewer = LOCAL) -> tuple[dict[str, Any], str]:
        """(payload, summary) of a just-recorded event as ``viewer`` may see them (a turn one
        side advances also accrues the other side's sheets)."""
        if viewer.sees_all():
            return done.record.payload, done.summary
        declared = declaration_of(done.campaign.ruleset.name)
        shown = redact_events(self.records(done.campaign.campaign_id), viewer, declared)
        mine = next(r for r in reversed(shown) if r.seq == done.record.seq)
        if not is_redacted(mine):
            return mine.payload, done.summary
        return mine.payload, _public_summary(mine, declared)

    def export_text(self, ref: str, viewer: Viewer = LOCAL) -> tuple[str, str]:
        """(file name, JSON text) of the campaign's export file as ``viewer`` may see it: for a
        side, a turn file for that side, its withheld payloads' digest in the hashed header
        (:func:`rallypoint.session.exports.export_for`)."""
        info = self.session.resolve(ref)
        return (f"{_upload_name(info.name, 'campaign')}.json",
                export_for(self.session, info.id, viewer))

    # --- writing -------------------------------------------------------------------------------

    def create_shipped(self, path: str, name: str | None, seed: str | None) -> CampaignInfo:
        """Create a campaign from one of the shipped scenarios (by its path or its name)."""
        self._check_seed(seed)
        shipped = {key: p for _, _, p in self.scenarios() for key in (str(p), p.stem)}
        if path not in shipped:
            raise MalformedInputError(f"no shipped scenario {path!r}", where="scenario",
                                      fix="Pick one from the list of shipped scenarios.")
        return self.session.create(shipped[path], name=name or None, seed=seed or None)

    def create_uploaded(self, filename: str | None, content: bytes, name: str | None,
                        seed: str | None) -> CampaignInfo:
        """Create a campaign from an uploaded scenario TOML file."""
        self._check_seed(seed)
        stem = _upload_name(filename, "scenario.toml")
        with self._upload(stem, content) as path:
            return self.session.create(path, name=name or Path(stem).stem, seed=seed or None)

    def _check_seed(self, seed: str | None) -> None:
        if seed and self.book is not None:
            raise MalformedInputError(
                "a shared campaign rolls dice-v1 dice: a public seed would let whoever knows it "
                "compute every roll", where="seed", fix="Leave the dice seed empty.")

    def open_seats(self, info: CampaignInfo, creator: str, referee: bool = False
                   ) -> dict[str, str]:
        """A new shared campaign's seats, opened by the account ``creator``: one per side, and
        the referee's if ``referee`` (only now can it be opened): seat → invite token."""
        assert self.book is not None
        campaign = self.load(info.id)
        sides = self.declaration(campaign).sides(campaign.created.scenario)
        return self.book.open_seats(info.id, [*sides, *([REFEREE_SEAT] if referee else [])],
                                    creator=creator)

    def require(self, ref: str, account: str | None, power: Power) -> None:
        """On a shared server, refuse unless ``account`` has ``power`` over the campaign
        (:data:`rallypoint.session.seats.POWERS`); a server without accounts allows all.

        Raises:
            NotYourSeatError: It has not.
        """
        if self.book is not None:
            self.book.require(self.info(ref).id, account, power)

    def new_invite(self, ref: str, seat: str, account: str | None) -> str:
        """A new invite for a free seat, made by the creator or the referee."""
        assert self.book is not None
        token = self.book.new_invite(self.info(ref).id, seat, account)
        self.forget()
        return token

    def import_uploaded(self, filename: str | None, content: bytes, name: str | None
                        ) -> CampaignInfo:
        """Import an export file: a new campaign, or the newer events of one already here."""
        if self.book is not None:
            # An import appends events no seat was asked about; shared campaigns grow only by
            # their seats' commands.
            raise NotYourSeatError("a shared server does not import files",
                                   fix="Import with `rallypoint import` on your own machine.",
                                   instead=Hint.BY_MAIL)
        with self._upload(_upload_name(filename, "export.json"), content) as path:
            return self.session.import_file(path, name=name or None)

    def authorize(self, ref: str, command: Mapping[str, Any], viewer: Viewer,
                  dice: str | None = None) -> None:
        """Refuse a command that acts for another seat, or typed-in dice from a side's seat.

        Raises:
            NotYourSeatError: Not the viewer's to make.
        """
        if viewer.role is Role.ALL:
            return
        if dice and viewer.role is not Role.REFEREE:
            raise NotYourSeatError(
                "typed-in dice choose the outcome, so in a shared campaign only the referee may "
                "type them in", where="dice", fix="Leave the dice empty to roll dice-v1 dice.")
        campaign = self.load(ref)
        authorize_command(command, campaign.ruleset.state_json(campaign.state),
                          campaign.created.scenario, viewer, self.declaration(campaign))

    def execute(self, ref: str, command: Mapping[str, Any], dice: str | None = None,
                strict: bool = True, viewer: Viewer = LOCAL) -> Executed:
        """Decide a command (its JSON form) and store its event, if ``viewer`` may make it.

        ``strict``: refuse a command made against an older version (a page's form: the player
        chose from what the page showed). Otherwise the session API decides it again at the
        current version if it is still legal (``Executed.retried``).
        """
        self.authorize(ref, command, viewer, dice)
        if not strict:
            return self._noted(self.session.execute(ref, dict(command), dice=dice or None),
                               viewer)
        expected = _version_of(command.get("expected_version"))

        def build(campaign: Campaign) -> Command:
            # Checked inside the write, so a form can never land on a state it was not made for.
            _check_version(campaign.name, campaign.version, expected)
            return campaign.ruleset.parse_command(command)

        return self._noted(self.session.execute(ref, build, dice=dice or None), viewer)

    def preview(self, ref: str, command: Mapping[str, Any], viewer: Viewer = LOCAL
                ) -> SeatPreview:
        """What a command would do now (nothing stored, no die rolled), if ``viewer`` may make
        it (a preview of the other side's distribution would show its steps), filtered for
        ``viewer`` like a view: the state after a TCS turn holds every side's sheets."""
        self.authorize(ref, command, viewer)
        campaign = self.load(ref)
        log = self.records(ref) if not viewer.sees_all() else ()
        return shown_preview(campaign, log, preview(campaign, command), viewer,
                             self.declaration(campaign), _public_summary)

    def answer(self, ref: str, decision: str | None, policy: str | None,
               expected_version: int, viewer: Viewer = LOCAL) -> Executed:
        """Answer a pending decision by a named policy, made against ``expected_version``; a
        seat answers only its own decisions (``None``: its next one)."""
        self._check_current(ref, expected_version)
        _require_seat(viewer)
        if viewer.role is not Role.ALL:
            mine = self.pending(self.load(ref), viewer)
            found = [d for d in mine if decision is None or decision in (d.key, d.subject)]
            if not found:
                raise NotYourSeatError(
                    f"no pending decision {decision or ''!r} of yours".replace(" ''", ""),
                    where="decision", fix="Answer one of your own pending decisions.")
            decision = found[0].key
        return self._noted(self.session.answer(ref, policy or None, decision=decision or None,
                                                expected_version=expected_version), viewer)

    def undo(self, ref: str, expected_version: int, viewer: Viewer = LOCAL) -> Executed:
        """Undo the latest effective event (an appended ``undone`` event). On a shared server
        a seat undoes only what it made, and an event that rolled dice only with every other
        side's consent (the referee may undo anything)."""
        _require_seat(viewer)
        if self.book is not None and viewer.role is Role.SIDE:
            self._check_undo(ref, viewer)
        return self._noted(self.session.undo(ref, expected_version=expected_version), viewer)

    def _check_undo(self, ref: str, viewer: Viewer) -> None:
        assert self.book is not None
        campaign = self.session.load(ref, whole=True)
        effective = campaign.effective()
        if not effective:
            return  # the session refuses: nothing to undo
        target = effective[-1].seq
        if self.book.author_of(campaign.campaign_id, target) != viewer.side:
            raise NotYourSeatError(f"event #{target} was not made by your seat",
                                   fix="Ask the seat that made it (or the referee) to undo it.")
        if campaign.rolls(target):
            sides = {s.seat for s in self.book.seats(campaign.campaign_id)
                     if s.seat != REFEREE_SEAT and s.seat != viewer.side}
            missing = sides - self.book.undo_consents(campaign.campaign_id, target)
            if missing:
                raise NotYourSeatError(
                    f"event #{target} rolled dice: undoing it needs the consent of "
                    f"{', '.join(sorted(missing))}", where="undo",
                    fix="Ask them to agree to the undo on the campaign's seats page.")

    def consent_to_undo(self, ref: str, target: int, viewer: Viewer) -> None:
        """A seat agrees that the latest effective event, ``target``, may be undone."""
        if self.book is None or viewer.side is None:
            raise NotYourSeatError("only a side's seat gives consent", fix="Join a side's seat.")
        campaign = self.session.load(ref, whole=True)
        effective = campaign.effective()
        if not effective or effective[-1].seq != target:
            raise StaleVersionError(f"event #{target} is not the latest one any more",
                                    fix="Reload the page and consent to the event shown.")
        self.book.consent_to_undo(campaign.campaign_id, target, viewer.side)

    def _noted(self, done: Executed, viewer: Viewer) -> Executed:
        """Note which seat made the event (shared campaigns)."""
        if self.book is not None and viewer.role in (Role.SIDE, Role.REFEREE):
            seat = REFEREE_SEAT if viewer.role is Role.REFEREE else str(viewer.side)
            self.book.record_action(done.campaign.campaign_id, done.record.seq, seat)
            if self.after_write is not None:
                self.after_write(done.campaign.campaign_id, viewer)
        return done

    def rename(self, ref: str, name: str, expected_version: int, account: str | None = None
               ) -> CampaignInfo:
        """Give the campaign a new name (its events, and so its exports, keep theirs); on a
        shared server only its creator or its referee (``account``) may."""
        self.require(ref, account, Power.RENAME)
        self._check_current(ref, expected_version)
        return self.session.rename(ref, name)

    def delete(self, ref: str, expected_version: int, account: str | None = None
               ) -> tuple[int, Path]:
        """Delete the campaign after exporting a backup beside the database; return the number
        of events deleted and the backup's path. On a shared server only the referee may, or
        its creator (``account``) before anyone else joined or once all is revealed."""
        self.require(ref, account, Power.DELETE)
        self._check_current(ref, expected_version)
        info = self.session.resolve(ref)
        slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in info.name)[:40]
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = (self._backups()
                  / f"{slug.strip('-') or 'campaign'}-{info.id[:8]}-{stamp}.json")
        backup.parent.mkdir(parents=True, exist_ok=True)
        return self.session.delete(info.id, backup=backup), backup

    def _backups(self) -> Path:
        if self.backups is not None:
            return self.backups
        if self.postgres:
            from rallypoint.session import default_db_path

            return default_db_path().expanduser().resolve().parent / "backups"
        return Path(self.db).expanduser().resolve().parent / "backups"

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


def _public_summary(record: EventRecord, declared: Declaration) -> str:
    """What a withheld event says in the log."""
    if record.type == UNDONE:
        return f"undo #{record.payload.get('target')}: (withheld)"
    return declared.public_summary(record.type, record.payload)


def _require_seat(viewer: Viewer) -> None:
    """Refuse a write by a viewer holding no seat (a creator who has not joined one)."""
    if viewer.role is Role.PUBLIC:
        raise NotYourSeatError("only a seated player can change this campaign",
                               fix="Join a seat with its invite first.")


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
                      fix=exc.fix.replace(old, new) if exc.fix else None, at=exc.at)
    return clean if isinstance(clean, RallypointError) else DataFileError(str(exc))
