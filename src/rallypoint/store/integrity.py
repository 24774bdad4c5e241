"""Checking a stored log against its hash chain and its campaign's recorded head.

The chain (:mod:`rallypoint.core.events`) catches an edited, dropped or reordered event; only the
head kept in the ``campaigns`` row catches the newest events being cut, since a shorter log is a
perfectly good chain. Rows are checked from the exact text stored, without parsing payloads: the
stored payload is the canonical JSON the hash covers, so the hashed body can be rebuilt as a string
(about 3× faster than re-serialising parsed payloads, which matters because every write checks).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, Final

from rallypoint.core.events import GENESIS_HASH, ChainProblem, text_hash

CHAIN_SELECT: Final = """
SELECT seq, type, payload, recorded_at, prev_hash, hash FROM events
WHERE campaign_id = ? ORDER BY seq
"""


REDACTED_ROWS: Final = ('{"$withheld":{', '{"$redacted":')
"""How a stored payload redacted for this database's seat begins (canonical JSON sorts the
``$`` keys first; the second is the format stored before issue 18): a partial log in play by
e-mail (docs/two-player.md)."""


def row_matches(campaign_id: str, seq: int, type_: str, payload_text: str, recorded_at: str,
                prev_hash: str, hash_: str) -> bool:
    """Whether a stored row's content is what its hash says.

    A row redacted for this database's seat cannot be checked here: its hash is the other seat's
    commitment to the whole event (checked at the reveal, ``rallypoint reveal``); it was checked
    against the signed turn file it came in, and its links are still checked with every row's.
    """
    if payload_text.startswith(REDACTED_ROWS):
        return True
    # Hashed from the text as stored: equal to hashing the parsed payload whenever the text is
    # canonical JSON (how the store writes it); a payload re-spelled no longer matches, which is
    # right: the row was edited.
    return hash_ == text_hash(campaign_id, seq, type_, payload_text, recorded_at, prev_hash)


def check_rows(conn: sqlite3.Connection, campaign_id: str, head_seq: int,
               head_hash: str) -> tuple[int, ChainProblem | None]:
    """The number of stored rows and the first problem with them, or ``None``.

    Checks contiguous seqs from 1, each ``prev_hash`` link, each hash against its row, and that the
    newest row is the recorded head.
    """
    return check_chain(conn.execute(CHAIN_SELECT, (campaign_id,)), campaign_id, head_seq,
                       head_hash)


def check_chain(rows: Iterable[Sequence[Any]], campaign_id: str, head_seq: int, head_hash: str,
                *, after: tuple[int, str] = (0, GENESIS_HASH)) -> tuple[int, ChainProblem | None]:
    """Walk stored rows ``(seq, type, payload, recorded_at, prev_hash, hash)`` in seq order.

    Args:
        rows: The rows after ``after``'s seq, oldest first.
        campaign_id: Their campaign.
        head_seq: The campaign's recorded head.
        head_hash: Its recorded hash.
        after: ``(seq, hash)`` of the last row already known good (none: the genesis).

    Returns:
        The seq of the last row walked (``after``'s when none) and the first problem, if any.
    """
    count, prev = after
    for seq, type_, payload, recorded_at, prev_hash, hash_ in rows:
        count += 1
        if seq != count:
            return count, ChainProblem(seq=seq, reason=f"sequence gap: expected {count}")
        if prev_hash != prev:
            return count, ChainProblem(seq=seq,
                                       reason="prev_hash does not match the event before")
        if not isinstance(payload, str) or not row_matches(
                campaign_id, seq, str(type_), payload, str(recorded_at), str(prev_hash),
                str(hash_)):
            return count, ChainProblem(seq=seq,
                                       reason="content does not match its hash (edited?)")
        prev = str(hash_)
    return count, head_problem(count, prev, head_seq, head_hash)


def head_problem(last_seq: int, last_hash: str, head_seq: int,
                 head_hash: str) -> ChainProblem | None:
    """Whether the newest stored event is the campaign's recorded head.

    Args:
        last_seq: Seq of the newest stored event (0 if none).
        last_hash: Its hash.
        head_seq: The head recorded in the campaign row.
        head_hash: The head's hash.
    """
    if last_seq < head_seq:
        cut = head_seq - last_seq
        return ChainProblem(
            seq=last_seq + 1,
            reason=f"the log ends at seq {last_seq} but the campaign's head is seq {head_seq}: "
                   f"the newest {cut} event{'s were' if cut > 1 else ' was'} cut")
    if last_seq > head_seq:
        return ChainProblem(seq=head_seq + 1,
                            reason=f"events after the campaign's head (seq {head_seq}) were "
                                   "added behind the store's back")
    if last_hash != head_hash:
        return ChainProblem(seq=last_seq,
                            reason="the newest event is not the campaign's recorded head "
                                   "(replaced?)")
    return None
