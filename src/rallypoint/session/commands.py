"""Deciding commands and storing their events: one command, a policy's answer, a run of them.

Each call decides against the campaign as stored, with what this database owes first (a partial
log's hidden bookkeeping, :mod:`rallypoint.session.owed`), the deciding seat's ownership checked,
its dice given (:mod:`rallypoint.session.dice`), and a benign race with another writer decided
again once (:mod:`rallypoint.session.races`). :class:`rallypoint.session.Session` is the front
ends' way in; its methods say what each call guarantees.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from secrets import token_hex
from typing import Any

from rallypoint.core.blinds import with_blind
from rallypoint.core.campaign import Campaign
from rallypoint.core.errors import MalformedInputError, RallypointError, StaleVersionError
from rallypoint.core.events import EventRecord, NewEvent
from rallypoint.core.ruleset import Command
from rallypoint.dice import Roller, SeededRoller
from rallypoint.session import dice, ownership, races, snapshots
from rallypoint.session.handle import Handle
from rallypoint.session.loading import loaded
from rallypoint.session.owed import owed_events, store_owed
from rallypoint.session.pair import AwaitingDice
from rallypoint.session.policies import decision_of, policy_named
from rallypoint.session.results import Executed, summary
from rallypoint.store import EventStore

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


def execute(handle: Handle, ref: str, command: CommandLike | Builder, *, dice: Dice = None,
            roller: RollerFor | None = None) -> Executed:
    """Decide a command against the campaign and store its event
    (:meth:`rallypoint.session.Session.execute`)."""
    if callable(command):
        return _write(handle, ref, command, None, dice, roller)
    given = command

    def build(campaign: Campaign) -> Command:
        parsed = (given if isinstance(given, Command)
                  else campaign.ruleset.parse_command(given))
        return parsed.model_copy(update={"expected_version": campaign.version})

    expected = (command.expected_version if isinstance(command, Command)
                else races.expected_version(command))
    return _write(handle, ref, build, expected, dice, roller)


def answer(handle: Handle, ref: str, policy: str | None = None, *, decision: str | None = None,
           expected_version: int | None = None, dice: Dice = None) -> Executed:
    """Answer a pending decision with a named policy (:meth:`rallypoint.session.Session.answer`)."""
    def build(campaign: Campaign) -> Command:
        chosen = policy_named(campaign.ruleset, policy)
        return chosen.decide(campaign.state, decision_of(campaign, decision), campaign.version)

    return _write(handle, ref, build, expected_version, dice, None)


def play(handle: Handle, ref: str, step: Callable[[Campaign], Command | None], *,
         roller: RollerFor | None = None) -> Campaign:
    """Run commands until ``step`` returns ``None``, the campaign kept in memory between them
    (:meth:`rallypoint.session.Session.play`)."""
    with handle._store(write=True) as store:
        campaign, base = loaded(store, ref, whole=False)
        seat = ownership.deciding_seat(store, campaign)
        try:
            while (command := step(campaign)) is not None:
                event = _decide(campaign, command, None, roller,
                                dice.secret_of(store, campaign), seat)
                record = store.append(campaign.campaign_id, campaign.version + 1, event)
                campaign = campaign.with_event(record, event.event)
                # A long unattended run keeps a snapshot every few rounds, not one per event.
                if campaign.version - base >= 4 * snapshots.SNAPSHOT_EVERY:
                    snapshots.save(store, campaign)
                    base = campaign.version
        finally:
            if campaign.version > base:
                snapshots.save(store, campaign)
        return campaign


def executed(after: Campaign, record: EventRecord, retried: bool) -> Executed:
    """What a stored command returns: the record, the campaign after it, its summary and what
    is pending now."""
    return Executed(record=record, campaign=after, summary=summary(after, record),
                    pending=tuple(after.ruleset.pending(after.state)), retried=retried)


def _write(handle: Handle, ref: str, build: Builder, expected: int | None, dice_: Dice,
           roller: RollerFor | None) -> Executed:
    """Build, decide and store one command, deciding it once more if another writer landed
    between our read and our write (:meth:`rallypoint.session.Session.execute`)."""
    with handle._store(write=True) as store:
        campaign, base = loaded(store, ref, whole=False)
        raced = expected is not None and expected != campaign.version
        if raced:
            races.check_raceable(campaign, expected)
        for attempt in range(2):
            owed, event = _decided(store, campaign, build, dice_, roller,
                                   expected if raced else None)
            try:
                settled = store_owed(store, campaign, owed)
                record = store.append(campaign.campaign_id, settled.version + 1, event)
            except StaleVersionError:
                if attempt or raced:
                    raise
                # Another writer landed between our read and our write: decide once more.
                expected, raced = campaign.version, True
                campaign, base = loaded(store, campaign.campaign_id, whole=False)
                continue
            after = settled.with_event(record, event.event)
            snapshots.save_if_due(store, after, base)
            return executed(after, record, raced)
    raise AssertionError("unreachable")  # pragma: no cover


def _decided(store: EventStore, campaign: Campaign, build: Builder, dice_: Dice,
             roller: RollerFor | None, raced_from: int | None) -> tuple[list[Campaign], NewEvent]:
    """What the deciding seat owes first (in memory: stored only with the command), and the
    event of the command built after it.

    Raises:
        AwaitingDice: The command waits on the other seat's dice (what is owed is stored first:
            the request's position counts it).
        StaleVersionError: Raced from ``raced_from`` and refused at the current version.
        RallypointError: The command is refused.
    """
    seat = ownership.deciding_seat(store, campaign)
    owed = owed_events(campaign, seat)
    working = owed[-1] if owed else campaign
    try:
        command = build(working)
        ownership.check_owner(store, working, command.model_dump(mode="json"), seat)
        return owed, _decide(working, command, dice_, roller, dice.secret_of(store, working),
                             seat)
    except AwaitingDice:
        store_owed(store, campaign, owed)  # the request's position counts them
        raise
    except RallypointError as exc:
        if raced_from is not None and not isinstance(exc, MalformedInputError):
            raise races.no_longer_legal(campaign, raced_from, exc) from None
        raise


def _decide(campaign: Campaign, command: Command, dice_: Dice,
            roller: RollerFor | None, secret: dice.Keys = None,
            seat: str | None = None) -> NewEvent:
    """The event for ``command`` (see :func:`rallypoint.session.dice.decide`), with the command
    that made it (decided by ``seat``'s database), blinded if it hides a secret from a seat
    (:func:`rallypoint.core.blinds.with_blind`)."""
    decided = dice.decide(campaign, command, dice_, roller, secret, seeded_roller)
    made = decided.made_by(command.model_dump(mode="json"), seat)
    return with_blind(campaign.events, made, token_hex(16))
