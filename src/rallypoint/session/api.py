"""The session API: every front end's one path from a request to a stored event and back.

A :class:`Session` is a handle on one campaign database (:class:`~rallypoint.session.handle.
Handle`). It holds only the path: every call opens its own connection and closes it before
returning, so a session is cheap to make, and one session may serve many threads or requests at
once (SQLite's write lock orders concurrent writers). Every refusal is a
:class:`~rallypoint.core.errors.RallypointError` with a stable ``code``; nothing is written when
one is raised.

Campaigns are always named explicitly (``ref`` = an exact id, an exact name, or a unique id prefix
of at least four characters); the library has no notion of "the current campaign".

This class is a facade: each method is one call into the module that does the work —
:mod:`~rallypoint.session.campaigns` (opening, creating and keeping campaigns),
:mod:`~rallypoint.session.reading` (views and logs), :mod:`~rallypoint.session.commands`
(deciding and storing commands) and :mod:`~rallypoint.session.undoing`. Those modules take a
handle and never import this one back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Never

from rallypoint.core.campaign import Campaign
from rallypoint.core.events import ChainProblem
from rallypoint.core.json_types import JsonObject
from rallypoint.core.ruleset import Command, Decision, PolicyInfo
from rallypoint.session import campaigns, commands, reading, undoing
from rallypoint.session.commands import Builder as Builder
from rallypoint.session.commands import CommandLike as CommandLike
from rallypoint.session.commands import Dice as Dice
from rallypoint.session.commands import RollerFor as RollerFor
from rallypoint.session.commands import seeded_roller as seeded_roller
from rallypoint.session.handle import Handle
from rallypoint.session.policies import policy_named as policy_named
from rallypoint.session.results import CampaignView, Executed, LogEntry
from rallypoint.store import CampaignInfo, VerifyReport


class Session(Handle):
    """A handle on one campaign database; see the module docstring for the guarantees.

    Args:
        path: The SQLite file (created, with its folder, on first use), or a
            ``postgresql://`` URL.

    Example:
        >>> from rallypoint.session import Session
        >>> session = Session(tmp / "campaigns.sqlite3")  # doctest: +SKIP
        >>> info = session.create(scenario, name="tolvajarvi", seed="readme")  # doctest: +SKIP
    """

    # --- campaigns -----------------------------------------------------------------------------

    def campaigns(self, *, missing_ok: bool = True) -> list[CampaignInfo]:
        """Every campaign in the database, oldest first.

        A database file that does not exist yet has none (``missing_ok=False``: refuse it, to
        catch a mistyped path); either way a read creates nothing.
        """
        return campaigns.campaigns(self, missing_ok=missing_ok)

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
        return campaigns.resolve(self, ref, ruleset=ruleset)

    def last_used(self, ruleset: str | None = None) -> CampaignInfo | None:
        """The campaign this machine last wrote to (``None`` if none), for front ends that offer
        a default (of ``ruleset`` only, if given). Decided by the store's local record of
        writes, never by events' own clocks.

        Raises:
            StoreError: The database file does not exist (nothing is created).
        """
        return campaigns.last_used(self, ruleset)

    def check(self, ref: str) -> ChainProblem | None:
        """The first integrity problem of the campaign's stored log, or ``None`` if it is intact.

        Reads still work on a broken campaign (so a front end can show it, marked); every write
        to it is refused until it is deleted and imported again from a good export.
        """
        return campaigns.check(self, ref)

    def rename(self, ref: str, name: str) -> CampaignInfo:
        """Give a campaign a new local name (control characters dropped; must be unique)."""
        return campaigns.rename(self, ref, name)

    def delete(self, ref: str, *, backup: Path | None) -> int:
        """Delete a campaign and its log, after exporting it to ``backup`` unless that is None.

        The backup holds whatever can be read, even of a broken log (import checks it again).
        Returns the number of events deleted.
        """
        return campaigns.delete(self, ref, backup=backup)

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
        return campaigns.create(self, scenario, name=name, seed=seed, campaign_id=campaign_id)

    def create_from(self, ruleset: str, scenario: JsonObject, *, name: str,
                    seed: str | None = None, campaign_id: str | None = None) -> CampaignInfo:
        """Create a campaign from an already validated, JSON-ready scenario of ``ruleset``."""
        return campaigns.create_from(self, ruleset, scenario, name=name, seed=seed,
                                     campaign_id=campaign_id)

    def export(self, ref: str, path: Path) -> int:
        """Write the campaign and its whole log to one JSON file; return the events written."""
        return campaigns.export(self, ref, path)

    def import_file(self, path: Path, *, name: str | None = None) -> CampaignInfo:
        """Import an export file: a new campaign, or the newer events of one already here."""
        return campaigns.import_file(self, path, name=name)

    # --- reading -------------------------------------------------------------------------------

    def load(self, ref: str, *, whole: bool = False) -> Campaign:
        """The campaign ``ref`` names, folded to its current version.

        Resumed from the campaign's state snapshot when one matches the log, so the cost does not
        grow with the log: then :attr:`Campaign.events` holds the ``created`` event and the
        events from the snapshot on. ``whole=True`` reads and folds the whole log instead.
        """
        return reading.load(self, ref, whole=whole)

    def view(self, ref: str) -> CampaignView:
        """The JSON view ``show --json`` prints: id, name, version, state view, pending."""
        return reading.view(self, ref)

    def pending(self, ref: str) -> list[Decision]:
        """Decisions waiting on the player, in answering order, each with its legal choices."""
        return reading.pending(self, ref)

    def policies(self, ref: str) -> list[PolicyInfo[Never]]:
        """The named policies that can answer the campaign's decisions; the first is the default
        (their names and summaries: the state their ``decide`` reads is the ruleset's own)."""
        return reading.policies(self, ref)

    def log(self, ref: str) -> list[LogEntry]:
        """Every event, oldest first, with its summary, whether it was undone, and its rolls."""
        return reading.log(self, ref)

    def verify(self, ref: str) -> VerifyReport:
        """Check the stored hash chain (an edited, dropped or reordered event is reported)."""
        return reading.verify(self, ref)

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
        return commands.execute(self, ref, command, dice=dice, roller=roller)

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
        return commands.answer(self, ref, policy, decision=decision,
                               expected_version=expected_version, dice=dice)

    def undo(self, ref: str, *, expected_version: int | None = None) -> Executed:
        """Cancel the latest effective event by appending an ``undone`` event.

        Never retried: at a newer version the latest event is a different one.

        Raises:
            IllegalNowError: Nothing to undo.
            StaleVersionError: ``expected_version`` is not the current version.
        """
        return undoing.undo(self, ref, expected_version=expected_version)

    def play(self, ref: str, step: Callable[[Campaign], Command | None], *,
             roller: RollerFor | None = None) -> Campaign:
        """Run commands one after another until ``step`` returns ``None``; return the campaign.

        The campaign stays in memory between commands (each event is folded once), so a long
        unattended run costs time linear in its length. Each event is stored as it is decided.
        """
        return commands.play(self, ref, step, roller=roller)
