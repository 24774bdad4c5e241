"""Hypothesis: the hash chain catches any edit, drop or swap of a stored event."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rallypoint.core.events import (
    GENESIS_HASH,
    EventRecord,
    NewEvent,
    canonical_json,
    event_hash,
    link_problem,
    text_hash,
    verify_chain,
)

payloads = st.dictionaries(st.text(min_size=1, max_size=5),
                           st.one_of(st.integers(), st.text(max_size=8), st.booleans()),
                           max_size=4)


def chain(items: list[dict[str, Any]]) -> list[EventRecord]:
    records: list[EventRecord] = []
    prev = GENESIS_HASH
    for n, payload in enumerate(items, start=1):
        record = EventRecord.seal("c", n, NewEvent(type="t", payload=payload), prev,
                                  recorded_at="2026-01-01T00:00:00+00:00")
        records.append(record)
        prev = record.hash
    return records


@settings(max_examples=200, deadline=None)
@given(st.lists(payloads, min_size=1, max_size=8), st.data())
def test_any_edited_event_is_caught_at_its_seq(items: list[dict[str, Any]],
                                               data: st.DataObject) -> None:
    records = chain(items)
    assert verify_chain(records) is None
    index = data.draw(st.integers(0, len(records) - 1))
    target = records[index]
    edited_payload = {**target.payload, "tampered": data.draw(st.integers())}
    field = data.draw(st.sampled_from(["payload", "type", "recorded_at"]))
    changes: dict[str, dict[str, Any]] = {
        "payload": {"payload": edited_payload},
        "type": {"type": target.type + "x"},
        "recorded_at": {"recorded_at": "2030-01-01T00:00:00+00:00"},
    }
    change = changes[field]
    tampered = [*records[:index], target.model_copy(update=change), *records[index + 1:]]
    problem = verify_chain(tampered)
    assert problem is not None and problem.seq == target.seq


@settings(max_examples=100, deadline=None)
@given(st.lists(payloads, min_size=2, max_size=8), st.data())
def test_a_dropped_or_swapped_event_is_caught(items: list[dict[str, Any]],
                                              data: st.DataObject) -> None:
    records = chain(items)
    index = data.draw(st.integers(0, len(records) - 2))
    dropped = [*records[:index], *records[index + 1:]]
    assert verify_chain(dropped) is not None
    swapped = [*records[:index], records[index + 1], records[index], *records[index + 2:]]
    assert verify_chain(swapped) is not None


@settings(max_examples=200, deadline=None)
@given(st.lists(payloads, min_size=2, max_size=8), st.data())
def test_a_resealed_forged_event_is_caught_by_the_next_events_prev_hash(
        items: list[dict[str, Any]], data: st.DataObject) -> None:
    # A forger edits an event and re-seals it (its own hash made to fit the new content), but
    # leaves the events after it alone: the next one's prev_hash still names the original.
    records = chain(items)
    index = data.draw(st.integers(0, len(records) - 2))
    target = records[index]
    forged = EventRecord.seal("c", target.seq,
                              NewEvent(type=target.type,
                                       payload={**target.payload, "forged": True}),
                              target.prev_hash, recorded_at=target.recorded_at)
    assert forged.hash != target.hash and forged.hash == forged.expected_hash()
    tampered = [*records[:index], forged, *records[index + 1:]]
    problem = verify_chain(tampered)
    assert problem is not None and problem.seq == target.seq + 1
    assert problem.reason == "prev_hash does not match the event before"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63 + 1, 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=12)
"""Any JSON value: unicode, quotes, escapes and floats in keys and values."""
# Text that UTF-8 can encode (a lone surrogate is refused by both hashes alike).
fields = st.text(st.characters(codec="utf-8"), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=4), fields, fields, fields,
       fields, st.integers(1, 10**6))
def test_the_hash_of_a_payloads_canonical_text_is_the_events_hash(
        payload: dict[str, Any], campaign_id: str, type_: str, recorded_at: str,
        prev: str, seq: int) -> None:
    # An import hashes the canonical text it stores (text_hash) instead of the parsed payload
    # (event_hash, the oracle): the two must agree on every event, or a good file is refused.
    text = canonical_json(payload)
    expected = event_hash(campaign_id, seq, type_, payload, recorded_at, prev)
    assert text_hash(campaign_id, seq, type_, text, recorded_at, prev) == expected
    record = EventRecord(campaign_id=campaign_id, seq=seq, type=type_, payload=payload,
                         recorded_at=recorded_at, prev_hash=prev, hash=expected)
    assert link_problem(record, seq, prev, text) is None
    assert link_problem(record.model_copy(update={"hash": "0" * 64}), seq, prev, text) == \
        link_problem(record.model_copy(update={"hash": "0" * 64}), seq, prev)
