"""Who may see what: per-viewer filtering of a campaign's views, log, decisions and exports.

Rules never branch on who is looking. Each ruleset *declares* (in its plugin's ``secrets`` part,
a :class:`Declaration`) which parts of its state view and of each event payload belong to which
side, which side a command or a decision belongs to, and what a withheld event says in public.
Everything here filters at the edge, after the rules have run, from those declarations
(boardgame.io's ``playerView``, but the ``created`` event is filtered like any other, so the
initial state cannot leak a secret: its issue #1159).

A redacted event keeps its ``seq``, ``type``, ``recorded_at``, ``prev_hash`` and ``hash``. Its
payload is the event's public projection: every withheld value left out (a key dropped, a list
item dropped), its ``blind`` and recorded ``command`` left out, and one ``"$withheld"`` mapping
with one opaque part per owner the event's *type* can hide something for, ``{"soviet": null}``,
whether that owner hid anything this time or not (issue 18). So the redacted shape names no
path and counts nothing: a turn with none, one or two of the other side's sheets accruing looks
the same. The chain still links (each event names the previous hash), every event shown whole is
checked against its hash, and a redacted event's hash stays a commitment the owner cannot
change: at the reveal the whole event must hash to it and redact again to exactly what was shown
(:func:`check_reveal`). Every event that hides anything carries a random ``blind``
(:func:`with_blind`, ``undone`` and ``created`` included) so that its hash cannot be
brute-forced from the few values a secret can take.

Partial logs stored before issue 18 hold the old format (each withheld value replaced by a
``{"$withheld": owner}`` marker, and ``"$redacted"`` listing the withheld paths): they are still
read, folded and checked at the reveal (:func:`redact_events` ``like=``), never written anew.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Protocol

from rallypoint.core.errors import RallypointError
from rallypoint.core.events import (
    CREATED,
    GENESIS_HASH,
    MADE_BY,
    REDACTED_KEY,
    UNDONE,
    WITHHELD_KEY,
    ChainProblem,
    EventRecord,
    is_redacted_payload,
)
from rallypoint.core.jsonpaths import Path, redact_value

WITHHELD = WITHHELD_KEY
"""The key of a redacted event's withheld parts, ``{"$withheld": {owner: null}}`` (and, in the
old format, of the marker that replaced each withheld value: ``{"$withheld": owner}``)."""
REDACTED = REDACTED_KEY
"""The old format's payload key listing the withheld paths (read, never written)."""
BLIND = "blind"
"""The payload key of an event's random blinding value (withheld from anyone it hides from)."""
COMMAND = MADE_BY
"""The payload key of an event's recorded command (issue 18, a
:class:`rallypoint.core.events.MadeBy`): withheld whenever anything of the event is, since a
command names what its event hides (a check names its sheet)."""
_ENVELOPE_SECRETS = (BLIND, COMMAND)
"""Envelope keys a redacted event never shows: they belong to the whole event, not to an owner."""
REFEREE_ONLY = "@referee"
"""An owner no side sees: only the referee and a reveal (e.g. a legacy plain dice seed)."""

class Role(StrEnum):
    """What kind of viewer."""

    SIDE = "side"
    """A player's seat: sees everything public and their own side's secrets."""
    REFEREE = "referee"
    """Sees everything."""
    PUBLIC = "public"
    """Anyone without a seat (a spectator): sees only what is public."""
    ALL = "all"
    """The one local player of an unshared campaign, or anyone after the reveal."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking.

    Attributes:
        role: What kind of viewer.
        side: The side's id for a :attr:`Role.SIDE` viewer, else ``None``.
    """

    role: Role = Role.ALL
    side: str | None = None
    revealed: bool = False

    @classmethod
    def of_side(cls, side: str, *, revealed: bool = False) -> Viewer:
        """A player seated as ``side`` (``revealed``: the campaign shows them everything now;
        they still act only for their side)."""
        return cls(Role.SIDE, side, revealed)

    @property
    def name(self) -> str:
        """How the viewer is named in messages (``side finland``, ``referee``)."""
        return f"side {self.side}" if self.role is Role.SIDE else self.role.value

    def sees(self, owner: str) -> bool:
        """Whether a secret of ``owner`` is shown to this viewer."""
        if self.sees_all():
            return True
        return self.role is Role.SIDE and owner == self.side

    def sees_all(self) -> bool:
        """Whether this viewer sees every secret."""
        return self.revealed or self.role in (Role.REFEREE, Role.ALL)

    def may_act_for(self, owner: str | None) -> bool:
        """Whether this viewer may make a command that belongs to ``owner`` (``None``: to no one
        side, e.g. the next turn: any seated side)."""
        if self.role in (Role.REFEREE, Role.ALL):
            return True
        return self.role is Role.SIDE and owner in (None, self.side)


EVERYTHING = Viewer(Role.ALL)
"""The viewer who sees all: a loopback player without accounts, or anyone after the reveal."""
REFEREE = Viewer(Role.REFEREE)
"""The referee's seat."""
PUBLIC = Viewer(Role.PUBLIC)
"""Everyone without a seat."""


@dataclass(frozen=True)
class Secret:
    """One secret part of a payload or view: where it is and whose it is."""

    path: Path
    owner: str


@dataclass(frozen=True)
class EventSecrets:
    """What one event hides.

    Attributes:
        parts: The withheld parts, each with its owner.
        sealed: Redact the event for every viewer who does not see all, even when nothing of it
            is withheld from them, so that *whether* it holds a secret does not show (a TCS turn
            tells nobody whether the other side has a sheet accruing).
        parties: Owners whose opaque withheld part the redacted event lists whether or not they
            hide anything in it this time (a TCS turn: every side), so that the redacted shape
            does not tell who had something to hide; the owners of ``parts`` are listed too.
    """

    parts: tuple[Secret, ...] = ()
    sealed: bool = False
    parties: tuple[str, ...] = ()

    @property
    def secret(self) -> bool:
        """Whether the event needs a blind (it hides something, or may)."""
        return bool(self.parts) or self.sealed

    def owners(self) -> frozenset[str]:
        """Every side something of the event belongs to."""
        return frozenset(s.owner for s in self.parts)

    def withheld_from(self, viewer: Viewer) -> tuple[str, ...]:
        """The owners whose part a redaction for ``viewer`` lists (sorted): every party and
        owner the viewer does not see."""
        return tuple(sorted(o for o in self.owners() | frozenset(self.parties)
                            if not viewer.sees(o)))


NOTHING = EventSecrets()
"""An event that hides nothing."""

Owners = Mapping[str, str]
"""What a declaration remembers between events (e.g. TCS: sheet id → side)."""


class Declaration(Protocol):
    """What a ruleset declares about secrets and seats (its plugin's ``secrets`` part).

    Every method reads JSON (a stored scenario, a payload, a state view from ``state_json``, a
    command's JSON form), never a ruleset's state objects, so filtering needs no rule to run.
    """

    def sides(self, scenario: Mapping[str, Any]) -> tuple[str, ...]:
        """The seats a campaign of this scenario has, one per side (ids)."""
        ...

    def event_secrets(self, scenario: Mapping[str, Any], owners: Owners, event_type: str,
                      payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
        """What a ruleset event hides, and what to remember for later events."""
        ...

    def public_summary(self, event_type: str, payload: Mapping[str, Any]) -> str:
        """What a redacted event says in the log (``payload`` is already redacted)."""
        ...

    def may_hide(self, event_type: str) -> bool:
        """Whether an event of this type can ever hide something (else it never arrives
        redacted: a sender marking one so would dodge its hash check)."""
        ...

    def view_secrets(self, scenario: Mapping[str, Any],
                     state: Mapping[str, Any]) -> tuple[Secret, ...]:
        """The secret parts of a state view (paths inside ``state_json``)."""
        ...

    def decision_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                       decision: Mapping[str, Any]) -> str | None:
        """The side a pending decision belongs to (``None``: anyone's)."""
        ...

    def command_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                      command: Mapping[str, Any]) -> str | None:
        """The side a command acts for (``None``: any seated side may make it)."""
        ...


class NotYourSeatError(RallypointError):
    """A command or decision that belongs to another seat."""

    code = "not-your-seat"


@functools.cache
def declaration_of(ruleset: str) -> Declaration:
    """The secrets declaration of a ruleset (its plugin's ``secrets`` part); a ruleset without
    one (registered at run time, say) has no secrets and one seat per side it names: none."""
    from rallypoint.core.ruleset import plugin

    try:
        found = plugin(ruleset)
    except RallypointError:
        return OPEN
    reference = getattr(found, "secrets", None)
    if not isinstance(reference, str):
        return OPEN
    declared: Declaration = found.load("secrets")
    return declared


# --- events and exports ----------------------------------------------------------------------


def event_secrets(records: Sequence[EventRecord],
                  declaration: Declaration | None = None) -> list[EventSecrets]:
    """What each event of a log hides (same order).

    Core events: ``created`` hides a legacy plain dice seed in a campaign of two or more sides
    (it would let its holder compute every roll); ``undone`` hides its summary from whoever its
    target hid anything from, sealed and with the same parties as its target (so an undone turn
    tells no more than the turn).
    """
    if not records:
        return []
    scenario = records[0].payload.get("scenario") or {}
    declared = declaration or declaration_of(str(records[0].payload.get("ruleset", "")))
    shared = len(declared.sides(scenario)) > 1
    owners: Owners = MappingProxyType({})
    by_seq: dict[int, EventSecrets] = {}
    found: list[EventSecrets] = []
    for record in records:
        if record.type == CREATED:
            hides = (EventSecrets((Secret(("seed",), REFEREE_ONLY),))
                     if shared and record.payload.get("seed") is not None else NOTHING)
        elif record.type == UNDONE:
            target = by_seq.get(int(record.payload.get("target", 0)), NOTHING)
            hides = EventSecrets(tuple(Secret(("summary",), o) for o in sorted(target.owners())),
                                 target.sealed, target.parties) if target.secret else NOTHING
        elif shared:
            hides, owners = declared.event_secrets(scenario, owners, record.type, record.payload)
        else:
            hides = NOTHING
        by_seq[record.seq] = hides
        found.append(hides)
    return found


def redact_events(records: Sequence[EventRecord], viewer: Viewer,
                  declaration: Declaration | None = None, *,
                  like: Sequence[EventRecord] = ()) -> list[EventRecord]:
    """The log as ``viewer`` may see it: filter(events, viewer) → redacted events.

    Events that hide nothing from the viewer come back unchanged (the same objects). The others
    keep seq, type, time and both hashes; their payload is the public projection (withheld
    values, list items, the ``blind`` and the recorded ``command`` left out) plus
    ``{"$withheld": {owner: null, ...}}``, one opaque part per owner the event's type can hide
    something for. Check the result with :func:`verify_visible_chain`.

    Args:
        records: The log (``created`` first).
        viewer: Who is looking.
        declaration: The ruleset's secrets declaration (default: the log's ruleset's).
        like: What the viewer was shown of these events, when that is known (at the reveal):
            an event shown in the format stored before issue 18 (``"$redacted"``) is redacted
            in that format again, so that an old partial log can still be checked.
    """
    if viewer.sees_all():
        return list(records)
    hidden = event_secrets(records, declaration)
    old = {r.seq for r in like if REDACTED in r.payload}
    return [_redact_record(r, h, viewer, legacy=r.seq in old)
            for r, h in zip(records, hidden, strict=True)]


def _redact_record(record: EventRecord, hides: EventSecrets, viewer: Viewer, *,
                   legacy: bool = False) -> EventRecord:
    if is_redacted(record):
        # Already redacted, for the database holding it (a partial log in play by e-mail): it
        # withholds what that seat may not see, and it goes on as it is (same hash).
        return record
    withheld = [s for s in hides.parts if not viewer.sees(s.owner)]
    if not withheld and not hides.sealed:
        return record
    if legacy:
        return _legacy_redacted(record, hides, withheld)
    # Envelope keys go with the rest: the blind would open the hash to guessing, and the command
    # names what the event hides. Their owner is irrelevant: no marker is left.
    envelope = [Secret((key,), REFEREE_ONLY) for key in _ENVELOPE_SECRETS]
    if record.type == UNDONE:
        # An undone's summary says what its target did for every party (a turn: every sheet's
        # accrual), so it is withheld whenever any party's part is: an undone turn then looks
        # the same whether or not the other side had a sheet in it.
        envelope.append(Secret(("summary",), REFEREE_ONLY))
    payload = redact_value(record.payload, [*withheld, *envelope], marker=False)
    payload[WITHHELD] = dict.fromkeys(hides.withheld_from(viewer))
    return record.model_copy(update={"payload": payload})


def _legacy_redacted(record: EventRecord, hides: EventSecrets,
                     withheld: list[Secret]) -> EventRecord:
    """The redaction stored before issue 18: a ``{"$withheld": owner}`` marker in place of each
    withheld value and ``"$redacted"`` listing the withheld paths (only to check an old partial
    log at the reveal; it counted the other side's sheets, so it is never written anew)."""
    if BLIND in record.payload:
        withheld.append(Secret((BLIND,), next(iter(sorted(hides.owners())), REFEREE_ONLY)))
    payload = redact_value(record.payload, withheld, marker=True)
    payload[REDACTED] = [{"path": list(s.path), "owner": s.owner} for s in withheld
                         if s.path[-1:] != (BLIND,)] + ([{"path": [BLIND]}]
                                                        if BLIND in record.payload else [])
    return record.model_copy(update={"payload": payload})


def is_redacted(record: EventRecord) -> bool:
    """Whether an event was redacted for its viewer (its hash then cannot be checked yet), in
    either format."""
    return is_redacted_payload(record.payload)


def verify_visible_chain(records: Sequence[EventRecord]) -> ChainProblem | None:
    """Check a possibly redacted log: contiguous seqs, every ``prev_hash`` naming the hash before,
    and every event shown whole hashing to its hash. A redacted event's hash is a commitment
    checked at the reveal (:func:`check_reveal`). Returns the first problem or ``None``."""
    prev = GENESIS_HASH
    for index, record in enumerate(records, start=1):
        if record.seq != index:
            return ChainProblem(seq=record.seq, reason=f"sequence gap: expected {index}")
        if record.prev_hash != prev:
            return ChainProblem(seq=record.seq, reason="prev_hash does not match the event before")
        if not is_redacted(record) and record.hash != record.expected_hash():
            return ChainProblem(seq=record.seq, reason="content does not match its hash (edited?)")
        prev = record.hash
    return None


def check_reveal(seen: Sequence[EventRecord], revealed: Sequence[EventRecord], viewer: Viewer,
                 declaration: Declaration | None = None) -> ChainProblem | None:
    """At the reveal: does the whole log keep every promise the redacted one made to ``viewer``?

    The revealed log must verify whole, hold every event seen (same hashes), and redact, for that
    viewer, to exactly what the viewer was shown (in the format it was shown in): so no withheld
    value was changed afterwards and nothing shown was a lie about what was withheld.
    """
    from rallypoint.core.events import verify_chain

    problem = verify_chain(revealed)
    if problem is not None:
        return problem
    if len(revealed) < len(seen):
        return ChainProblem(seq=len(revealed) + 1, reason="the revealed log is shorter")
    again = redact_events(revealed[:len(seen)], viewer, declaration, like=seen)
    for shown, expected in zip(seen, again, strict=True):
        if shown.hash != expected.hash:
            return ChainProblem(seq=shown.seq, reason="the revealed event has another hash")
        if shown.payload != expected.payload:
            return ChainProblem(seq=shown.seq,
                                reason="what was shown does not match the revealed event")
    return None


# --- views, decisions and commands -----------------------------------------------------------


def redact_view(view: Mapping[str, Any], scenario: Mapping[str, Any], viewer: Viewer,
                declaration: Declaration) -> dict[str, Any]:
    """A campaign view (``campaign_view``: ``state`` and ``pending``) as ``viewer`` may see it:
    secret parts of the state left out, and only the pending decisions the viewer owns or that
    belong to no side."""
    if viewer.sees_all() or len(declaration.sides(scenario)) < 2:
        return dict(view)
    out = dict(view)
    state = view.get("state") or {}
    out["state"] = redact_state(state, scenario, viewer, declaration)
    out["pending"] = [d for d in view.get("pending") or []
                      if _sees_owned(viewer, declaration.decision_owner(scenario, state, d))]
    return out


def redact_state(state: Mapping[str, Any], scenario: Mapping[str, Any], viewer: Viewer,
                 declaration: Declaration) -> dict[str, Any]:
    """A ruleset's state view (``state_json``) without what ``viewer`` may not see."""
    if viewer.sees_all() or len(declaration.sides(scenario)) < 2:
        return dict(state)
    hidden = [s for s in declaration.view_secrets(scenario, state) if not viewer.sees(s.owner)]
    return redact_value(state, hidden, marker=False)


def visible_decisions(decisions: Sequence[Mapping[str, Any]], state: Mapping[str, Any],
                      scenario: Mapping[str, Any], viewer: Viewer,
                      declaration: Declaration) -> list[int]:
    """Indexes of the decisions ``viewer`` sees (their own, and those of no side)."""
    if viewer.sees_all() or len(declaration.sides(scenario)) < 2:
        return list(range(len(decisions)))
    return [n for n, d in enumerate(decisions)
            if _sees_owned(viewer, declaration.decision_owner(scenario, state, d))]


def _sees_owned(viewer: Viewer, owner: str | None) -> bool:
    return owner is None or viewer.sees(owner)


def authorize_command(command: Mapping[str, Any], state: Mapping[str, Any],
                      scenario: Mapping[str, Any], viewer: Viewer,
                      declaration: Declaration) -> None:
    """Refuse a command ``viewer`` may not make (it acts for another side).

    Raises:
        NotYourSeatError: The command belongs to another seat, or the viewer has no seat.
    """
    if viewer.role in (Role.ALL, Role.REFEREE):
        return
    if viewer.role is Role.PUBLIC:
        raise NotYourSeatError("only a seated player can change this campaign",
                               fix="Join a seat with its invite, then log in.")
    owner = declaration.command_owner(scenario, state, command)
    if not viewer.may_act_for(owner):
        # The message never names the owner: a guess must not learn whose (or whether) a thing
        # it names is.
        raise NotYourSeatError(
            f"this {command.get('kind', 'command')!r} is not yours to make as {viewer.name}: it "
            "acts for another side, or names nothing of yours",
            fix="Make commands for your own side's units and sheets; the referee may make any.")


@dataclass(frozen=True)
class OpenDeclaration:
    """A ruleset with no secrets, whose commands any seat may make (the fallback)."""

    side_ids: tuple[str, ...] = field(default=())

    def sides(self, scenario: Mapping[str, Any]) -> tuple[str, ...]:
        """No sides of its own."""
        return self.side_ids

    def event_secrets(self, scenario: Mapping[str, Any], owners: Owners, event_type: str,
                      payload: Mapping[str, Any]) -> tuple[EventSecrets, Owners]:
        """Nothing is secret."""
        return NOTHING, owners

    def public_summary(self, event_type: str, payload: Mapping[str, Any]) -> str:
        """Never needed (nothing is withheld)."""
        return event_type

    def may_hide(self, event_type: str) -> bool:
        """Nothing is secret."""
        return False

    def view_secrets(self, scenario: Mapping[str, Any],
                     state: Mapping[str, Any]) -> tuple[Secret, ...]:
        """Nothing is secret."""
        return ()

    def decision_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                       decision: Mapping[str, Any]) -> str | None:
        """Anyone's."""
        return None

    def command_owner(self, scenario: Mapping[str, Any], state: Mapping[str, Any],
                      command: Mapping[str, Any]) -> str | None:
        """Anyone's."""
        return None


OPEN = OpenDeclaration()
"""The declaration of a ruleset that declares none."""
