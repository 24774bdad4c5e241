"""The session API: every front end's one path from a request to a stored event and back.

A :class:`Session` is a handle on one campaign database. It holds only the path: every call opens
its own connection and closes it before returning, so a session is cheap to make, and one session
may serve many threads or requests at once (SQLite's write lock orders concurrent writers). Every
refusal is a :class:`~rallypoint.core.errors.RallypointError` with a stable ``code``; nothing is
written when one is raised.

Campaigns are always named explicitly (``ref`` = an exact id, an exact name, or a unique id prefix
of at least four characters); the library has no notion of "the current campaign".
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from secrets import token_hex
from typing import Any

from rallypoint.core.blinds import with_blind
from rallypoint.core.campaign import Campaign, created_event, created_from_scenario
from rallypoint.core.errors import (
    DataFileError,
    IntegrityError,
    MalformedInputError,
    RallypointError,
    StaleVersionError,
    UnknownIdError,
)
from rallypoint.core.events import ChainProblem, NewEvent, Undone
from rallypoint.core.playcheck import fold_stored
from rallypoint.core.ruleset import (
    Command,
    Decision,
    PolicyInfo,
    Ruleset,
    get_ruleset,
    ruleset_line_fix,
)
from rallypoint.dice import Roller, SeededRoller
from rallypoint.dice.play import commit_server_dice
from rallypoint.errors import Hint
from rallypoint.session import dice, ownership, races, snapshots
from rallypoint.session.importing import import_campaign
from rallypoint.session.owed import owed_events, store_owed
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.policies import decision_of
from rallypoint.session.policies import policy_named as policy_named
from rallypoint.session.results import Executed, LogEntry, campaign_view, log_entries, summary
from rallypoint.store import CampaignInfo, EventStore, VerifyReport, clean_name
from rallypoint.store.location import exists, normalised, open_store

_HELD: ContextVar[tuple[Path | str, EventStore] | None] = ContextVar("rallypoint_held_store",
                                                               default=None)
"""The store of the :meth:`Session.transaction` open in this context, by its location."""

CommandLike = Command | Mapping[str, Any]
"""A command model, or its JSON form (``{"kind": ..., "expected_version": ..., ...}``)."""
Builder = Callable[[Campaign], Command]
"""Builds a command against the campaign as it is now (the CLI's way of making commands)."""
RollerFor = Callable[[Campaign], Roller]
"""Gives the roller for a command made at a campaign's current version."""
Dice = str | Sequence[int] | None
"""Scripted dice: ``"6,6,5"`` or ``[6, 6, 5]``, one value per die in roll order; every value must
be used. ``None``: the campaign's seeded roller."""


def seeded_roller(campaign: Campaign) -> Roller:
    """The campaign's own dice at its current version.

    Keyed by the campaign's seed and version only (not its random store id), so a campaign made
    with the same seed rolls the same dice wherever it is created.
    """
    return SeededRoller(campaign.seed, f"v{campaign.version}")


class Session:
    """A handle on one campaign database; see the module docstring for the guarantees.

    Args:
        path: The SQLite file (created, with its folder, on first use).

    Example:
        >>> from rallypoint.session import Session
        >>> session = Session(tmp / "campaigns.sqlite3")  # doctest: +SKIP
        >>> info = session.create(scenario, name="tolvajarvi", seed="readme")  # doctest: +SKIP
    """

    def __init__(self, path: Path | str) -> None:
        self.location = normalised(path)
        """The SQLite file, or the ``postgresql://`` URL, every call opens."""
        self.path = Path(path).expanduser()
        """The SQLite file (meaningless for a PostgreSQL URL: use :attr:`location`)."""

    @contextmanager
    def transaction(self) -> Iterator[EventStore]:
        """One write transaction for every call inside it on this database (in this thread):
        they all land together, or, on any exception, none does (e.g. a whole import)."""
        with self._store(write=True) as store, store.transaction():
            token = _HELD.set((self.location, store))
            try:
                yield store
            finally:
                _HELD.reset(token)

    @contextmanager
    def _store(self, *, write: bool = False) -> Iterator[EventStore]:
        held = _HELD.get()
        if held is not None and held[0] == self.location:
            yield held[1]  # inside :meth:`transaction`: part of it
            return
        # Reads open read-only: they never create the file, migrate a current one or lock it.
        if not write and not exists(self.location):
            # Nothing has been stored here yet, so no campaign a read asks for exists.
            raise UnknownIdError(f"no database at {str(self.path)!r}, so no campaigns yet",
                                 fix="check --db (or $RALLYPOINT_DB); "
                                 "a database is made by the first `rallypoint new`",
                                 instead=Hint.SERVER)
        with open_store(self.location, readonly=not write) as store:
            yield store

    # --- campaigns -----------------------------------------------------------------------------

    def campaigns(self, *, missing_ok: bool = True) -> list[CampaignInfo]:
        """Every campaign in the database, oldest first.

        A database file that does not exist yet has none (``missing_ok=False``: refuse it, to
        catch a mistyped path); either way a read creates nothing.
        """
        if missing_ok and not exists(self.location):
            return []
        with self._store() as store:
            return store.campaigns()

    def resolve(self, ref: str, *, ruleset: str | None = None) -> CampaignInfo:
        """The campaign ``ref`` names: exact id, else exact name, else a unique id prefix (≥ 4).

        Args:
            ref: What the user typed.
            ruleset: If given, the campaign must play this ruleset (a front end about to run
                one ruleset's verbs passes it, so another ruleset's campaign is refused cleanly).

        Raises:
            UnknownIdError: Nothing matches, or a prefix matches several (the fix lists names).
            MalformedInputError: The campaign plays another ruleset.
        """
        with self._store() as store:
            info = store.find(ref)
        if ruleset is not None and info.ruleset != ruleset:
            raise MalformedInputError(
                f"campaign {info.name!r} plays {info.ruleset}, not {ruleset}",
                where=info.id[:8], fix=f"Use `rallypoint {info.ruleset} ...` for it, or pass "
                f"--campaign with a {ruleset} campaign.", instead=Hint.FIX_FIELD)
        return info

    def last_used(self, ruleset: str | None = None) -> CampaignInfo | None:
        """The campaign this machine last wrote to (``None`` if none), for front ends that offer
        a default (of ``ruleset`` only, if given). Decided by the store's local record of
        writes, never by events' own clocks.

        Raises:
            StoreError: The database file does not exist (nothing is created).
        """
        with self._store() as store:
            return store.latest(ruleset)

    def check(self, ref: str) -> ChainProblem | None:
        """The first integrity problem of the campaign's stored log, or ``None`` if it is intact.

        Reads still work on a broken campaign (so a front end can show it, marked); every write
        to it is refused until it is deleted and imported again from a good export.
        """
        with self._store() as store:
            info = store.find(ref)
            usable, problem = snapshots.check_tail(store, info)
            return problem if usable else store.check(info.id)

    def rename(self, ref: str, name: str) -> CampaignInfo:
        """Give a campaign a new local name (control characters dropped; must be unique)."""
        with self._store(write=True) as store:
            return store.rename_campaign(store.find(ref).id, name)

    def delete(self, ref: str, *, backup: Path | None) -> int:
        """Delete a campaign and its log, after exporting it to ``backup`` unless that is None.

        The backup holds whatever can be read, even of a broken log (import checks it again).
        Returns the number of events deleted.
        """
        from rallypoint.store import export_campaign

        with self._store(write=True) as store:
            info = store.find(ref)
            if backup is not None:
                export_campaign(store, info.id, backup, allow_broken=True)
            return store.delete_campaign(info.id, expected_version=info.version)

    def create(self, scenario: Path, *, name: str | None = None, seed: str | None = None,
               campaign_id: str | None = None) -> CampaignInfo:
        """Create a campaign from a scenario file; its ``ruleset = "..."`` line picks the rules.

        Args:
            scenario: The scenario TOML file.
            name: Unique campaign name (default: the file's stem).
            seed: Dice seed (default: random); the same seed rolls the same dice anywhere.
            campaign_id: Store id (default: a fresh random id).

        Raises:
            DataFileError: The file is missing, invalid, or names no ruleset.
            StoreError: The name or id is taken.
        """
        from rallypoint.core.tomlfile import read_toml

        data, _ = read_toml(scenario)
        if "ruleset" not in data:
            raise DataFileError("the scenario does not say which ruleset it is for",
                                where=f"{scenario}:1",
                                fix=ruleset_line_fix())
        ruleset = get_ruleset(str(data["ruleset"]))
        label = clean_name(name if name is not None else scenario.stem)
        return self._create(label, ruleset, created_event(ruleset, scenario, label, seed=seed),
                            campaign_id, commit=seed is None)

    def create_from(self, ruleset: str, scenario: dict[str, Any], *, name: str,
                    seed: str | None = None, campaign_id: str | None = None) -> CampaignInfo:
        """Create a campaign from an already validated, JSON-ready scenario of ``ruleset``."""
        rules = get_ruleset(ruleset)
        name = clean_name(name)
        return self._create(name, rules, created_from_scenario(rules, scenario, name, seed=seed),
                            campaign_id, commit=seed is None)

    def _create(self, name: str, ruleset: Ruleset[Any], created: NewEvent,
                campaign_id: str | None, *, commit: bool = False) -> CampaignInfo:
        secret = None
        if commit:
            # dice-v1: the log gets the commitment, the store keeps the secret (docs/dice.md).
            payload, secret = commit_server_dice(created.payload)
            created = NewEvent(type=created.type, payload=payload)
        with self._store(write=True) as store:
            new_id = campaign_id or uuid.uuid4().hex
            if secret is not None:
                store.put_dice_secret(new_id, secret.hex())
            store.create_campaign(new_id, name, ruleset.name, created)
            return store.campaign(new_id)

    # --- reading -------------------------------------------------------------------------------

    def load(self, ref: str, *, whole: bool = False) -> Campaign:
        """The campaign ``ref`` names, folded to its current version.

        Resumed from the campaign's state snapshot when one matches the log, so the cost does not
        grow with the log: then :attr:`Campaign.events` holds the ``created`` event and the
        events from the snapshot on. ``whole=True`` reads and folds the whole log instead.
        """
        with self._store() as store:
            return _loaded(store, ref, whole=whole)[0]

    def view(self, ref: str) -> dict[str, Any]:
        """The JSON view ``show --json`` prints: id, name, version, state view, pending."""
        return campaign_view(self.load(ref))

    def pending(self, ref: str) -> list[Decision]:
        """Decisions waiting on the player, in answering order, each with its legal choices."""
        campaign = self.load(ref)
        return campaign.ruleset.pending(campaign.state)

    def policies(self, ref: str) -> list[PolicyInfo]:
        """The named policies that can answer the campaign's decisions; the first is the default."""
        return list(self.load(ref).ruleset.policies())

    def log(self, ref: str) -> list[LogEntry]:
        """Every event, oldest first, with its summary, whether it was undone, and its rolls."""
        return log_entries(self.load(ref, whole=True))

    def verify(self, ref: str) -> VerifyReport:
        """Check the stored hash chain (an edited, dropped or reordered event is reported)."""
        with self._store() as store:
            return store.verify(store.find(ref).id)

    # --- writing -------------------------------------------------------------------------------

    def execute(self, ref: str, command: CommandLike | Builder, *, dice: Dice = None,
                roller: RollerFor | None = None) -> Executed:
        """Decide a command against the campaign and store its event.

        A command model or JSON carries the version it was made against. If the campaign has
        moved on since (a benign race: another request landed first) and the command is still
        legal at the new version, it is decided again there once, automatically
        (``Executed.retried``); otherwise :class:`StaleVersionError` says why not. A builder
        callable is made against the current campaign (and rebuilt once if another writer lands
        between reading and writing).

        Args:
            ref: Campaign name or id.
            command: A command model, its JSON form, or a builder ``campaign -> command``.
            dice: Scripted dice (every value must be used), else the campaign's seeded dice.
            roller: Overrides both: the roller for the campaign at the version decided at.

        Raises:
            MalformedInputError: The JSON is not a command of this ruleset, or the dice do not fit.
            IllegalNowError: The rules refuse the command now.
            StaleVersionError: Made against another version and not legal at the current one.
        """
        if callable(command):
            return self._write(ref, command, None, dice, roller)
        given = command

        def build(campaign: Campaign) -> Command:
            parsed = (given if isinstance(given, Command)
                      else campaign.ruleset.parse_command(given))
            return parsed.model_copy(update={"expected_version": campaign.version})

        expected = (command.expected_version if isinstance(command, Command)
                    else races.expected_version(command))
        return self._write(ref, build, expected, dice, roller)

    def answer(self, ref: str, policy: str | None = None, *, decision: str | None = None,
               expected_version: int | None = None, dice: Dice = None) -> Executed:
        """Answer a pending decision with a named policy.

        Args:
            ref: Campaign name or id.
            policy: Policy name (``None``: the ruleset's default, its first).
            decision: Decision key or subject (``None``: the next pending one).
            expected_version: The version the player saw (``None``: whatever is current).
            dice: Scripted dice, if the answer rolls.

        Raises:
            UnknownIdError: No such policy.
            IllegalNowError: Nothing (or nothing matching ``decision``) is pending.
        """
        def build(campaign: Campaign) -> Command:
            chosen = policy_named(campaign.ruleset, policy)
            return chosen.decide(campaign.state, decision_of(campaign, decision), campaign.version)

        return self._write(ref, build, expected_version, dice, None)

    def undo(self, ref: str, *, expected_version: int | None = None) -> Executed:
        """Cancel the latest effective event by appending an ``undone`` event.

        Never retried: at a newer version the latest event is a different one.

        Raises:
            IllegalNowError: Nothing to undo.
            StaleVersionError: ``expected_version`` is not the current version.
        """
        with self._store(write=True) as store:
            campaign = _loaded(store, ref, whole=True)[0]
            event = campaign.undo_event(campaign.version if expected_version is None
                                        else expected_version)
            undone = event.event
            assert isinstance(undone, Undone)
            dice.check_undo(store, campaign, undone.target)  # two seats: consent
            record = store.append(campaign.campaign_id, campaign.version + 1, event)
            after = campaign.with_event(record, event.event)
            snapshots.save(store, after)
            return _executed(after, record, False)

    def play(self, ref: str, step: Callable[[Campaign], Command | None], *,
             roller: RollerFor | None = None) -> Campaign:
        """Run commands one after another until ``step`` returns ``None``; return the campaign.

        The campaign stays in memory between commands (each event is folded once), so a long
        unattended run costs time linear in its length. Each event is stored as it is decided.
        """
        with self._store(write=True) as store:
            campaign, base = _loaded(store, ref, whole=False)
            seat = ownership.deciding_seat(store, campaign)
            try:
                while (command := step(campaign)) is not None:
                    event = _decide(campaign, command, None, roller, _secret(store, campaign),
                                    seat)
                    record = store.append(campaign.campaign_id, campaign.version + 1, event)
                    campaign = campaign.with_event(record, event.event)
                    if campaign.version - base >= 4 * snapshots.SNAPSHOT_EVERY:
                        snapshots.save(store, campaign)
                        base = campaign.version
            finally:
                if campaign.version > base:
                    snapshots.save(store, campaign)
            return campaign

    def export(self, ref: str, path: Path) -> int:
        """Write the campaign and its whole log to one JSON file; return the events written."""
        from rallypoint.store import export_campaign

        with self._store() as store:
            return export_campaign(store, store.find(ref).id, path)

    def import_file(self, path: Path, *, name: str | None = None) -> CampaignInfo:
        """Import an export file: a new campaign, or the newer events of one already here."""
        from rallypoint.store import read_export

        exported = read_export(path)
        with self._store(write=True) as store:
            return import_campaign(store, exported, name)

    def _write(self, ref: str, build: Builder, expected: int | None, dice: Dice,
               roller: RollerFor | None) -> Executed:
        with self._store(write=True) as store:
            campaign, base = _loaded(store, ref, whole=False)
            raced = expected is not None and expected != campaign.version
            if raced:
                races.check_raceable(campaign, expected)
            for attempt in range(2):
                # What this seat owes first (a partial log's hidden bookkeeping, see
                # session/owed.py), in memory: stored only with the command, or before a round.
                seat = ownership.deciding_seat(store, campaign)
                owed = owed_events(campaign, seat)
                working = owed[-1] if owed else campaign
                try:
                    command = build(working)
                    ownership.check_owner(store, working, command.model_dump(mode="json"), seat)
                    event = _decide(working, command, dice, roller, _secret(store, working), seat)
                except AwaitingDice:
                    store_owed(store, campaign, owed)  # the request's position counts them
                    raise
                except RallypointError as exc:
                    if raced and not isinstance(exc, MalformedInputError):
                        raise races.no_longer_legal(campaign, expected, exc) from None
                    raise
                try:
                    settled = store_owed(store, campaign, owed)
                    record = store.append(campaign.campaign_id, settled.version + 1, event)
                except StaleVersionError:
                    if attempt or raced:
                        raise
                    # Another writer landed between our read and our write: decide once more.
                    expected, raced = campaign.version, True
                    campaign, base = _loaded(store, campaign.campaign_id, whole=False)
                    continue
                after = settled.with_event(record, event.event)
                snapshots.save_if_due(store, after, base)
                return _executed(after, record, raced)
        raise AssertionError("unreachable")  # pragma: no cover


def _loaded(store: EventStore, ref: str, *, whole: bool) -> tuple[Campaign, int]:
    """The campaign, and the version of the snapshot it was resumed from (0: folded whole).

    A write refuses a broken log first; it checks the log from a trusted snapshot on (the
    events before it were checked when it was written), else the whole log.
    """
    info = store.find(ref)
    resumed = None if whole else snapshots.resume(store, info)
    problem = None
    if not store.readonly:
        usable, problem = (snapshots.check_tail(store, info) if resumed is not None
                           else (False, None))
        if not usable:
            problem = store.check(info.id)
    if problem is not None:
        # Refuse before deciding, so the player hears "broken", not a rules refusal.
        raise IntegrityError(
            f"campaign {info.name!r} is broken at seq {problem.seq}: {problem.reason}",
            where=str(store.path), fix="nothing was written; see `rallypoint verify`, then "
            "`rallypoint delete` it and import a good export of it again", instead=Hint.SERVER)
    if resumed is not None:
        return resumed
    # A stored log that cannot be played (kept from before imports were checked) is one
    # IntegrityError line naming the event, not a traceback from deep inside a ruleset.
    campaign: Campaign = fold_stored(store.events(info.id))
    return campaign, 0


def _secret(store: EventStore, campaign: Campaign) -> dice.Keys:
    return dice.secret_of(store, campaign)


def _decide(campaign: Campaign, command: Command, dice_: Dice,
            roller: RollerFor | None, secret: dice.Keys = None,
            seat: str | None = None) -> NewEvent:
    """The event for ``command`` (see :func:`rallypoint.session.dice.decide`), with the command
    that made it (decided by ``seat``'s database), blinded if it hides a secret from a seat
    (:func:`rallypoint.core.visibility.with_blind`)."""
    decided = dice.decide(campaign, command, dice_, roller, secret, seeded_roller)
    made = decided.made_by(command.model_dump(mode="json"), seat)
    return with_blind(campaign.events, made, token_hex(16))


def _executed(after: Campaign, record: Any, retried: bool) -> Executed:
    return Executed(record=record, campaign=after, summary=summary(after, record),
                    pending=tuple(after.ruleset.pending(after.state)), retried=retried)
