"""The reveal at the end of a campaign played by e-mail with hidden parts (docs/two-player.md).

Each seat's database holds its own events whole and the other seat's redacted. At the end each
seat sends a plain ``rallypoint export`` of its database (its own events whole, signed); the other
runs :func:`reveal` on it, which merges the two into one whole log and proves, before writing
anything, that

- both databases hold the same log (every seq, the same hash);
- the merged log is a whole chain: every event hashes to the hash both databases held, so no
  withheld value was changed after it was committed;
- what each seat was shown of the other's events is exactly the honest redaction of the whole
  event (:func:`rallypoint.core.visibility.redact_events`): nothing shown was a lie;
- the whole log folds through the rules, and every roll, sealed rounds included, re-derives;
- every event is what its recorded command decides, against the state its seat's database held
  (:mod:`rallypoint.session.rederive`): a withheld event is re-derived here, where it is known.

The merged log is written as a signed export anyone can re-check offline (``rallypoint verify``)
and keep (``rallypoint import FILE --as NAME``).

These checks first run in one streaming pass (:mod:`rallypoint.session.reveal_stream`: neither
log is held); a reveal that pass does not accept is checked whole here, whose answer or
one-line refusal stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rallypoint.core.campaign import stored_rolls
from rallypoint.core.errors import IllegalNowError, IntegrityError
from rallypoint.core.events import EventRecord, verify_chain
from rallypoint.core.registry import get_ruleset
from rallypoint.core.visibility import Viewer, is_redacted, redact_events
from rallypoint.dice.audit import audit
from rallypoint.dice.report import Verdict
from rallypoint.errors import Hint
from rallypoint.session.handle import Handle
from rallypoint.session.importing import check_import
from rallypoint.session.rederive import check_log
from rallypoint.session.reveal_stream import Revealed, reveal_streamed
from rallypoint.session.sealed import outgoing_voids
from rallypoint.session.spool import spooled
from rallypoint.session.stall import burnt_rounds, file_voids
from rallypoint.store import exchange
from rallypoint.store.exchange import (
    ExportedCampaign,
    TurnHeader,
    check_header,
    check_importable,
    check_redacted,
    check_signed,
    export_text,
    exported_log,
    read_export,
    write_atomically,
)
from rallypoint.store.signing import SeatKey, seat_cards, seat_keys

__all__ = ["Revealed", "reveal"]

_DISTRUST = "Do not trust the other seat's file; ask them to export their database again"


def reveal(session: Handle, theirs: Path, out: Path, ref: str | None = None) -> Revealed:
    """Merge the other seat's export with this database's log into one whole, checked log.

    Args:
        session: This seat's database.
        theirs: The other seat's plain export (``rallypoint export FILE``), signed by its seat.
        out: Where to write the merged log (a signed export, for anyone).
        ref: This database's campaign (default: the file's campaign id).

    Raises:
        DataFileError: Not a readable export; ``out`` cannot be written.
        IntegrityError: Any check in the module docstring fails (nothing is written).
        IllegalNowError: The logs are not at the same head, or this database holds no seat.
    """
    # A pipe is read once, into a private copy both checks read (session/spool.py).
    with spooled(Path(theirs), exchange.EXPORT_LIMITS.max_bytes) as source:
        return _reveal(session, source, out, ref)


def _reveal(session: Handle, theirs: Path, out: Path, ref: str | None) -> Revealed:
    """:func:`reveal` of a file that can be read twice."""
    # One streaming pass first (memory bounded); anything it does not accept is checked whole.
    streamed = reveal_streamed(session, theirs, out, ref)
    if streamed is not None:
        return streamed
    exported = read_export(theirs)
    check_importable(exported.campaign.id, exported.events, redacted=True)
    check_header(exported)
    with session._store() as store:
        info = store.find(ref if ref is not None else exported.campaign.id)
        header, mine = exported_log(store, info.id)
        created = mine[0].payload
        cards = seat_cards(created)
        held = [s for s, c in cards.items() if store.seat_key(c.key) is not None]
        if len(held) != 1:
            raise IllegalNowError("the reveal merges two seats' databases, and this one holds "
                                  f"{len(held)} seat keys of {info.name!r}",
                                  fix="Run it in your own database (--db), with the other "
                                      "seat's export", instead=Hint.BY_MAIL)
        me = held[0]
        burnt, voids = burnt_rounds(store, info.id), outgoing_voids(store, info.id, me)
        kept = store.seat_key(cards[me].key)
        assert kept is not None  # held above
        key = SeatKey(me, bytes.fromhex(kept.private))
    other = _their_seat(exported, seat_keys(created), me)
    merged = _merge(mine, exported.events)
    _check_shown(mine, merged, me)
    _check_shown(exported.events, merged, other)
    check_import(header, merged, fix="The two databases' logs do not replay as one campaign "
                 "(its cause is named above); nothing was written")
    again = check_log(merged)  # every event, the hidden ones too, decided again
    rolls = stored_rolls(get_ruleset(header.ruleset))
    turn = exported.turn or TurnHeader()
    # Rounds a stall made void are skipped, never used (docs/dice.md, "Stalled rounds").
    report = audit(merged, rolls, turn.revealed_secret, burnt=burnt | file_voids(exported))
    failed = next((e for e in report.events if e.verdict is Verdict.FAILED), None)
    if failed is not None:
        raise IntegrityError(f"the dice of #{failed.seq} do not check once revealed: "
                             f"{failed.reason}", where=f"seq {failed.seq}", fix=_DISTRUST)
    write_atomically(out, export_text(header, merged, TurnHeader(
        sender=me, revealed_secret=turn.revealed_secret, voids=voids),
        sign=lambda hashed: [key.sign(hashed, None)]), "the revealed log")
    return Revealed(len(merged), sum(map(is_redacted, mine)),
                    sum(map(is_redacted, exported.events)), other, report.tally(),
                    again.rederived)


def _their_seat(exported: ExportedCampaign, keys: dict[str, str], me: str) -> str:
    """The seat that signed the other file: not this one, and its withheld digest honest."""
    signer = check_signed(exported, keys)
    if signer is None:
        raise IntegrityError("the other seat's file is not signed", where="signatures",
                             fix="Ask them for `rallypoint export FILE` from their database",
                             instead=Hint.BY_MAIL)
    if signer == me:
        raise IntegrityError(f"the file is signed by your own seat ({me})",
                             fix="Pass the file the other seat exported")
    check_redacted(exported)
    return signer


def _merge(mine: Sequence[EventRecord], theirs: Sequence[EventRecord]) -> list[EventRecord]:
    """Each event from whichever database holds it whole; both must hold the same chain."""
    if len(mine) != len(theirs):
        behind = "yours" if len(mine) < len(theirs) else "theirs"
        raise IllegalNowError(
            f"the two logs are not at the same head (yours #{len(mine)}, theirs "
            f"#{len(theirs)}): {behind} is behind",
            fix="Exchange the latest turn files first (import theirs, or send yours), then "
                "export again and reveal")
    merged = []
    for own, their in zip(mine, theirs, strict=True):
        if own.hash != their.hash:
            raise IntegrityError(f"the logs differ at #{own.seq}: the two databases hold "
                                 "different events there", where=f"seq {own.seq}",
                                 fix="Settle which line counts (`import --as NAME` keeps a "
                                     "fork), then reveal the same line", instead=Hint.BY_MAIL)
        whole = own if not is_redacted(own) else their
        if is_redacted(whole):
            raise IntegrityError(f"neither database holds #{own.seq} whole",
                                 where=f"seq {own.seq}", fix=_DISTRUST)
        merged.append(whole)
    problem = verify_chain(merged)
    if problem is not None:
        raise IntegrityError(f"the revealed log is broken at seq {problem.seq}: "
                             f"{problem.reason} (a withheld value was changed after it was "
                             "committed)", where=f"seq {problem.seq}", fix=_DISTRUST)
    return merged


def _check_shown(seen: Sequence[EventRecord], merged: Sequence[EventRecord], seat: str) -> None:
    """Every event ``seat`` held redacted is the honest redaction, for it, of the whole one."""
    # ``like``: an event held in the format stored before issue 18 is checked in that format.
    expected = redact_events(merged, Viewer.of_side(seat), like=seen)
    for shown, honest in zip(seen, expected, strict=True):
        if is_redacted(shown) and shown.payload != honest.payload:
            raise IntegrityError(
                f"what {seat} was shown of #{shown.seq} is not the redaction of the revealed "
                "event (a public part of it was false)", where=f"seq {shown.seq}",
                fix=_DISTRUST)
