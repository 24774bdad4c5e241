"""Every foreign event re-derived: a receiver decides again what it did not compute itself.

A database folds its own log from stored outcomes (fast, stable across versions). An event that
came from another seat is not taken on its signature: each records the command that made it
(:class:`rallypoint.core.events.MadeBy`), and the receiver decides that command again against
the state the deciding seat played on, with the event's own proven dice (:class:`Replay`; the
rules never call an RNG, so the dice are all the chance there is). The result must be the
identical event, field for field, except the envelope the rules do not decide (the blind, the
command itself, the dice proof, whose faces are checked by being replayed and whose chain the
dice audit checks). Any difference refuses the whole file in one line naming the event and the
first field that differs. A withheld event is re-derived at the reveal, where the whole log is
known. See docs/two-player.md ("Every foreign event re-derived").

The state an event is decided against is the one its seat's database held: the log redacted
for that seat (:func:`rallypoint.core.visibility.redact_events`), its own events whole and the
other seat's redacted. In a log that hides nothing that is the log itself, so an import resumes
from the receiver's state snapshot and decides only the new events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rallypoint.core.campaign import Campaign, read_event
from rallypoint.core.differences import Difference, first_difference
from rallypoint.core.erased import rules_of
from rallypoint.core.errors import IntegrityError, RallypointError
from rallypoint.core.events import (
    COMMANDS_V,
    CREATED,
    MADE_BY,
    UNDONE,
    EventModel,
    EventRecord,
    canonical_json,
)
from rallypoint.core.folding import LogFold
from rallypoint.core.inputs import shorten
from rallypoint.core.visibility import (
    BLIND,
    Viewer,
    is_redacted,
    redact_events,
)
from rallypoint.dice.audit import PROOF_KEY
from rallypoint.dice.play import scheme_of
from rallypoint.dice.v1 import SCHEME, command_json
from rallypoint.session import snapshots
from rallypoint.session.made_by import (
    DISTRUST,
    check_carried,
    check_owner,
    commands_required,
    made_by,
)
from rallypoint.session.rederive_undo import target_difference, undo_difference

if TYPE_CHECKING:
    from rallypoint.store import EventStore

_NOT_DECIDED = frozenset({BLIND, MADE_BY, PROOF_KEY})
"""Payload keys the rules do not decide: compared by other means, or not at all."""

_DISTRUST = DISTRUST


class _Differs(Exception):
    """Raised inside a replay when the rules ask for dice the proof does not hold."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(difference.path)
        self.difference = difference


class Replay:
    """A roller that hands out an event's proven faces, in order, and nothing else.

    Args:
        tape: ``(sides, face)`` per die (``sides`` ``None`` when only faces were stored: an
            event of a campaign from before dice-v1, whose rolls are its only record).
    """

    def __init__(self, tape: Sequence[tuple[int | None, int]]) -> None:
        self._tape = list(tape)
        self._at = 0

    @property
    def left(self) -> int:
        """Proven dice the rules did not ask for."""
        return len(self._tape) - self._at

    def faces(self, node: Any) -> tuple[int, ...]:
        """The next proven faces for ``node``; a die of other sides, or none left, differs."""
        count, sides = node.dice.count, node.dice.sides
        picked = self._tape[self._at:self._at + count]
        if len(picked) < count:
            raise _Differs(Difference("dice", f"{len(self._tape)} die/dice proven",
                                      f"more asked for ({node.purpose!r})"))
        for known, face in picked:
            if (known is not None and known != sides) or not 1 <= face <= sides:
                raise _Differs(Difference("dice", f"a d{known or '?'} showing {face}",
                                          f"a d{sides} for {node.purpose!r}"))
        self._at += count
        return tuple(face for _, face in picked)


def tape_of(campaign: Campaign, record: EventRecord) -> list[tuple[int | None, int]]:
    """The dice an event proves: its dice proof's tape; in a dice-v1 campaign an event without
    one rolled nothing; before dice-v1, the faces of its stored rolls."""
    proof = record.payload.get(PROOF_KEY)
    if isinstance(proof, Mapping) and isinstance(proof.get("tape"), list | tuple):
        return [(int(sides), int(face)) for sides, face in proof["tape"]]
    if scheme_of(campaign.events[0].payload) is not None:
        return []
    typed = read_event(campaign.ruleset, record)
    return [(None, face) for roll in campaign.ruleset.rolls(typed) for face in roll.faces]


def rederive(campaign: Campaign, record: EventRecord) -> Difference | None:
    """Decide the command ``record`` carries against ``campaign`` (the state just before it)
    with its proven dice; ``None`` when the result is the identical event."""
    found = decide_again(campaign, record)
    return found if isinstance(found, Difference) else None


def decide_again(campaign: Campaign, record: EventRecord) -> Difference | EventModel:
    """:func:`rederive`, giving the typed event decided when it is identical (so a fold can
    take it as it is, without reading the stored payload again)."""
    made = record.payload.get(MADE_BY)
    body = made.get("command") if isinstance(made, Mapping) else None
    if not isinstance(made, Mapping) or not isinstance(body, Mapping):
        return Difference(MADE_BY, shorten(repr(made), 60), "a command")
    replay = Replay(tape_of(campaign, record))
    try:
        command = campaign.ruleset.parse_command({**body, "expected_version": campaign.version})
        envelope = _envelope(command.model_dump(mode="json"), made)
        if envelope is not None:
            return envelope
        decided = campaign.decide(command, replay)
    except _Differs as exc:
        return exc.difference
    except RallypointError as exc:
        return Difference("made_by.command", "a legal command", f"refused: {exc.what}")
    except Exception as exc:  # a crafted command may fail anywhere inside a ruleset
        return Difference("made_by.command", "a legal command",
                          f"not decidable ({type(exc).__name__})")
    if replay.left:
        return Difference("dice_proof.tape", f"{replay.left} more die/dice", "not rolled")
    proof = record.payload.get(PROOF_KEY)
    if isinstance(proof, Mapping):
        mismatch = _proof_mismatch(proof, made)
        if mismatch is not None:
            return mismatch
    derived, stated = _decided_part(decided.payload), _decided_part(record.payload)
    difference = first_difference(stated, derived)
    if difference is not None:
        # An event recorded before a field was added states less: it may leave out fields,
        # which read at their defaults; it may not add any.
        read = _as_read(campaign, record)
        if first_difference(read, derived) is not None or not _within(stated, read):
            return difference
    typed: EventModel = decided.event
    return typed


def _within(stated: Any, read: Any) -> bool:
    """Whether ``stated`` is ``read`` with some mapping keys left out (and nothing else)."""
    if isinstance(stated, Mapping) and isinstance(read, Mapping):
        return all(k in read and _within(v, read[k]) for k, v in stated.items())
    if isinstance(stated, list) and isinstance(read, list):
        return len(stated) == len(read) and all(map(_within, stated, read))
    return bool(stated == read)


def _as_read(campaign: Campaign, record: EventRecord) -> dict[str, Any]:
    """The stated event as the fold reads it: upcast to the current schema, every field the
    payload leaves out at its default (an event recorded before a field was added to its model
    reads, and folds, exactly as the same event with the field written out)."""
    try:
        return _decided_part(read_event(campaign.ruleset, record).payload())
    except RallypointError:
        return _decided_part(record.payload)


def _proof_mismatch(proof: Mapping[str, Any], made: Mapping[str, Any]) -> Difference | None:
    """The parts of a dice proof its chain does not check must be what the session writes for
    the recorded command: its scheme, the command itself, and the seat whose command it is
    (the seat that decided it: only the other seat may undo a resolved roll)."""
    wanted = {"scheme": SCHEME, "command": made.get("command"), "seat": made.get("seat")}
    for key, value in wanted.items():
        if proof.get(key, SCHEME if key == "scheme" else None) != value:
            return Difference(f"dice_proof.{key}", shorten(canonical_json(proof.get(key)), 60),
                              shorten(canonical_json(value), 60))
    return None


def _envelope(parsed: Mapping[str, Any], made: Mapping[str, Any]) -> Difference | None:
    """The command envelope must be as the session records it (:meth:`NewEvent.made_by
    <rallypoint.core.events.NewEvent.made_by>`): its version, the seat, and every field of the
    command as the rules parse it. A field the command leaves out takes its default (a command
    recorded before the field existed reads so)."""
    seat = made.get("seat")
    body = made.get("command") or {}
    again = {"v": COMMANDS_V, "command": {k: v for k, v in command_json(parsed).items()
                                          if k in body},
             **({"seat": seat} if isinstance(seat, str) else {})}
    return first_difference(dict(made), again, MADE_BY)


def _decided_part(payload: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k not in _NOT_DECIDED}


def refusal(record: EventRecord, difference: Difference) -> IntegrityError:
    """The one line that refuses a file over one event."""
    return IntegrityError(
        f"#{record.seq} ({shorten(record.type, 40)}) is not what its command decides: "
        f"{difference.path}: stated {difference.stated}, re-derived {difference.derived}",
        where=f"seq {record.seq}", fix=_DISTRUST)


# --- a run of new events, and a whole log -------------------------------------------------------


class _SeatView:
    """The log as one seat's database may have held it when it decided: this database's whole
    events redacted for that seat. Built at its first use, then folded in step with the log
    (:class:`~rallypoint.core.folding.LogFold`: memory does not grow with the log's length)."""

    def __init__(self, log: Sequence[EventRecord], seat: str) -> None:
        self._log, self._seat = log, seat
        self._view: list[EventRecord] | None = None
        self._fold: LogFold | None = None
        self._count = 0

    def at(self, index: int) -> Campaign:
        """The campaign folded from this view's first ``index`` events (``index`` only grows)."""
        if self._view is None:
            self._view = redact_events(self._log, Viewer.of_side(self._seat))
        if self._fold is None:
            self._fold, self._count = LogFold(self._view[0]), 1
        while self._count < index:
            self._fold.add(self._view[self._count])
            self._count += 1
        return self._fold.campaign()


def _decided_in(views: list[Campaign | _SeatView], index: int,
                record: EventRecord) -> Difference | EventModel | None:
    """The event decided again against the first view (this database's own), if identical;
    ``None`` if it is identical only against another view its seat's database may have held
    (each a state the rules produced honestly); else the difference against the first."""
    first: Difference | None = None
    for view in views:
        campaign = view if isinstance(view, Campaign) else view.at(index)
        found = decide_again(campaign, record)
        if not isinstance(found, Difference):
            return found if view is views[0] else None
        first = first or found
    return first


def check_event(views: list[Campaign | _SeatView], index: int, record: EventRecord,
                 made: Mapping[str, Any], mine: Sequence[str]) -> EventModel | None:
    """Ownership, then re-derivation, of one event shown whole (``index``: its place in the
    log, the number of events before it). Returns the typed event decided against the first
    view when it is identical, so the fold of that view need not read the payload again.

    Raises:
        IntegrityError: The command acts for another side, or no view decides the event as
            it is recorded.
    """
    first = views[0]
    check_owner(first if isinstance(first, Campaign) else first.at(index), record, made, mine)
    found = _decided_in(views, index, record)
    if isinstance(found, Difference):
        raise refusal(record, found)
    return found


def check_new(base: Campaign, log: Sequence[EventRecord], *, sender: str | None,
              mine: Sequence[str] = ()) -> int:
    """Re-derive every event ``log`` holds after ``base`` (this database's campaign at its
    head); return how many were decided again.

    Each is decided against this database's state, and, if the sender's database held this
    one's secrets redacted (play with hidden parts), against the log as the sender held it.

    Raises:
        IntegrityError: An event decided by another database than the sender's, a command for
            another side, a missing command, or any difference (nothing has been written).
    """
    campaign = base
    required = commands_required(base.events[0].payload) or any(
        made_by(r) is not None for r in base.events[1:])
    theirs = (_SeatView(log, sender) if sender is not None and hides_anything(log)
              else None)
    checked = 0
    for record in log[base.version:]:
        typed: EventModel | None = None
        made = check_carried(record, required)
        if made is not None:
            required = True
            _check_sender(record, made, sender)
            views: list[Campaign | _SeatView] = [campaign, *([theirs] if theirs else [])]
            typed = check_event(views, record.seq - 1, record, made, mine)
            checked += 1
        elif record.type == UNDONE:
            at = record.seq - 1
            undos: list[Callable[[], Campaign]] = [partial(_whole_at, log, at)]
            undos += [partial(theirs.at, at)] if theirs else []
            _check_undo(log, record, undos)
        elif sender is not None and is_redacted(record) and record.type != CREATED:
            check_public(campaign, record, sender)
        campaign = campaign.with_event(record, typed)
    return checked


def _whole_at(log: Sequence[EventRecord], index: int) -> Campaign:
    """The campaign of the first ``index`` events of ``log`` as this database holds it."""
    return Campaign.from_events(log[:index])


def _check_undo(log: Sequence[EventRecord], record: EventRecord,
                views: Sequence[Callable[[], Campaign]] = ()) -> None:
    """An ``undone`` event is the undo of the log before it (:mod:`rederive_undo`).

    Raises:
        IntegrityError: It cancels another event, or says another event was cancelled.
    """
    difference = undo_difference(log[:record.seq - 1], record, views)
    if difference is not None:
        raise _not_the_undo(record, difference)


def check_undo_target(effective: Sequence[int], record: EventRecord) -> None:
    """An ``undone`` event names the latest event still in effect (``effective``: the seqs in
    effect before it, from the fold), as :func:`_check_undo` checks without its summary.

    Raises:
        IntegrityError: It cancels another event, or there is nothing to undo.
    """
    difference = target_difference(effective[-1] if effective else None, record)
    if difference is not None:
        raise _not_the_undo(record, difference)


def _not_the_undo(record: EventRecord, difference: Difference) -> IntegrityError:
    """The one refusal of an ``undone`` event that is not the undo of the log before it."""
    return IntegrityError(
        f"#{record.seq} (undone) is not the undo of the log before it: {difference.path}: "
        f"stated {difference.stated}, re-derived {difference.derived}",
        where=f"seq {record.seq}", fix=_DISTRUST)


@runtime_checkable
class PublicCheck(Protocol):
    """The optional part of :class:`rallypoint.core.ruleset.PartialKnowledge` a ruleset with
    secrets gives so that the public parts of a redacted event are re-derived on import."""

    def check_public(self, state: Any, event_type: str, payload: Mapping[str, Any],
                     seat: str) -> Difference | None:
        """See :meth:`rallypoint.core.ruleset.PartialKnowledge.check_public`."""
        ...


def check_public(campaign: Campaign, record: EventRecord, sender: str) -> None:
    """The public parts of an event redacted for this seat, as the rules give them on this
    seat's table just before it (the ruleset's ``check_public``, if it hides anything): what
    this database folds of it is then never taken on trust; the withheld parts wait for the
    reveal.

    Raises:
        IntegrityError: A public part differs (nothing has been written).
    """
    rules = rules_of(campaign.ruleset)  # check_public is optional: found on the rules
    if not isinstance(rules, PublicCheck):
        return  # a ruleset that hides nothing has no public part to re-derive
    difference = rules.check_public(campaign.state, record.type, record.payload,
                                               sender)
    if difference is not None:
        raise IntegrityError(
            f"#{record.seq} ({shorten(record.type, 40)}, redacted) is not what the rules give "
            f"on this table: {difference.path}: stated {difference.stated}, re-derived "
            f"{difference.derived}", where=f"seq {record.seq}", fix=_DISTRUST)


def _check_sender(record: EventRecord, made: Mapping[str, Any], sender: str | None) -> None:
    """An event new in a turn file was decided in the sender's database."""
    if sender is not None and made.get("seat") != sender:
        raise IntegrityError(
            f"#{record.seq} ({shorten(record.type, 40)}) says it was decided by "
            f"{shorten(str(made.get('seat')), 30)}'s database, but {sender} sent it",
            where=f"seq {record.seq}", fix=_DISTRUST)


@dataclass(frozen=True)
class Rederived:
    """What :func:`check_log` found.

    Attributes:
        rederived: Events decided again from their commands, each identical.
        withheld: Events shown redacted (re-derived at the reveal).
        not_rederivable: Ruleset events recorded before commands were stored (folded as
            stored; nothing to decide them from).
    """

    rederived: int
    withheld: int
    not_rederivable: int


def check_log(records: Sequence[EventRecord]) -> Rederived:
    """Re-derive every event of a log shown whole, each against the log as it is and, where
    its seat's database held the other seat's secrets redacted, against that seat's view
    (``verify FILE``, the reveal, a campaign imported whole).

    Raises:
        IntegrityError: As :func:`check_new`, at the first event at fault.
    """
    required = commands_required(records[0].payload)
    hidden = hides_anything(records)
    seats: dict[str, _SeatView] = {}
    folded = LogFold(records[0])  # linear, and no typed copy of the whole log is kept
    rederived = 0
    for index, record in enumerate(records[1:], start=1):
        typed: EventModel | None = None
        made = check_carried(record, required)
        if record.type == UNDONE:
            check_undo_target(folded.effective, record)
        if made is not None:
            seat = made.get("seat")
            views: list[Campaign | _SeatView] = [folded.campaign()]
            if hidden and isinstance(seat, str):
                views.append(seats.setdefault(seat, _SeatView(records, seat)))
            typed = check_event(views, index, record, made, ())
            rederived += 1
        folded.add(record, typed)
    legacy = sum(1 for r in records if r.type not in (CREATED, UNDONE) and not is_redacted(r)
                 and made_by(r) is None)
    return Rederived(rederived, sum(map(is_redacted, records)), legacy)


def hides_anything(records: Sequence[EventRecord]) -> bool:
    """Whether any event of a log hides a secret from a seat (it carries a blind, or is held
    redacted): then each seat's database may hold a different view of it."""
    return any(BLIND in r.payload or is_redacted(r) for r in records)


# --- at import ----------------------------------------------------------------------------------


def check_file(store: EventStore, stored: Sequence[EventRecord],
               records: Sequence[EventRecord], *, sender: str | None, mine: Sequence[str],
               whole: bool) -> int:
    """Re-derive what an import file brings: its new events against this database's campaign
    at its head (``whole``: a campaign new here, or kept as a copy: every event, as
    :func:`check_log`). Returns how many were decided again.

    The file's copies of this database's events are not used: only their hashes are checked,
    so the public parts of a redacted copy could say anything.

    Raises:
        IntegrityError: See :func:`check_new`.
    """
    if whole or not stored:
        return check_log(records).rederived
    log = [*stored, *records[len(stored):]]
    return check_new(base_state(store, stored), log, sender=sender, mine=mine)


def base_state(store: EventStore, stored: Sequence[EventRecord]) -> Campaign:
    """This database's campaign at its head: from its state snapshot when one matches (so an
    import folds only the new events), else folded whole."""
    resumed = snapshots.resume(store, store.campaign(stored[0].campaign_id))
    if resumed is not None and resumed[0].version == len(stored):
        return resumed[0]
    return Campaign.from_events(stored)
