"""Hypothesis: the hash chain catches any edit, drop or swap of a stored event."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rallypoint.core.events import GENESIS_HASH, EventRecord, NewEvent, verify_chain

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
