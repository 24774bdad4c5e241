"""A partial log: one seat's database in play by e-mail holds the other seat's events redacted.

The stores keep such rows (their links checked, their hashes commitments checked at the reveal),
on both backends; an edit of a row that is *not* redacted is still caught; the core reads a
redacted ruleset event as :class:`Withheld` and folds it through the ruleset's ``apply_redacted``,
and a ruleset without one refuses in one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pg_kit import fresh_database
from rallypoint.core.campaign import Campaign, read_event
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import EventRecord, Withheld
from rallypoint.core.registry import get_ruleset
from rallypoint.store import EventStore
from rallypoint.store.postgres import PostgresStore
from store_kit import playthrough


def _redact(record: EventRecord) -> EventRecord:
    """``record`` as another seat's database would hold it: one value withheld, hash kept."""
    payload: dict[str, Any] = {**record.payload, "$redacted": [{"path": ["v"], "owner": "red"}],
                               "v": {"$withheld": "red"}}
    return record.model_copy(update={"payload": payload})


def _partial() -> list[EventRecord]:
    log = list(playthrough().events[:4])
    log[2] = _redact(log[2])
    return log


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "postgres":
        for url in fresh_database():
            with PostgresStore(url) as opened:
                yield opened
    else:
        with EventStore(tmp_path / "s.sqlite3") as opened:
            yield opened


def test_a_store_keeps_a_partial_log_and_checks_its_links(store: Any) -> None:
    log = _partial()
    info = store.import_records(log[0].campaign_id, "Kursk", "squares", log[0].recorded_at, log)
    assert store.check(info.id) is None
    assert [r.payload for r in store.events(info.id)] == [r.payload for r in log]


def test_a_whole_row_edited_is_still_caught_beside_a_redacted_one(store: Any) -> None:
    log = _partial()
    forged = log[3].model_copy(update={"payload": {**log[3].payload, "v": 99}})
    info = store.import_records(log[0].campaign_id, "Kursk", "squares", log[0].recorded_at,
                                [*log[:3], forged])  # the caller checks a file; the store reads
    problem = store.check(info.id)
    assert problem is not None and problem.seq == 4 and "does not match its hash" in problem.reason


def test_a_redacted_event_reads_as_withheld() -> None:
    log = _partial()
    event = read_event(get_ruleset("squares"), log[2])
    assert isinstance(event, Withheld)
    assert event.type == log[2].type and event.shown["v"] == {"$withheld": "red"}


def test_a_ruleset_without_apply_redacted_refuses_in_one_line() -> None:
    with pytest.raises(IntegrityError, match="cannot play on from a log with withheld events"):
        Campaign.from_events(_partial())


def test_a_redacted_undone_keeps_its_target() -> None:
    log = list(playthrough().events[:3])
    c = Campaign.from_events(log).undo()
    undone = c.events[-1]
    hidden = undone.model_copy(update={"payload": {
        **undone.payload, "summary": {"$withheld": "red"},
        "$redacted": [{"path": ["summary"], "owner": "red"}]}})
    again = Campaign.from_events([*log, hidden])
    assert again.undone == {3}
    assert again.state == Campaign.from_events(log[:2]).state


def test_a_created_event_with_a_withheld_legacy_seed_reads() -> None:
    log = list(playthrough().events[:3])
    created = log[0]
    hidden = created.model_copy(update={"payload": {
        **created.payload, "seed": {"$withheld": "@referee"},
        "$redacted": [{"path": ["seed"], "owner": "@referee"}]}})
    again = Campaign.from_events([hidden, *log[1:]])
    assert again.created.seed is None and again.state == Campaign.from_events(log).state
