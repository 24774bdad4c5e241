"""Imports are checked whole before anything is written: header, head, clocks, and a full fold.

Each attack re-hashes the file it edits, as an opponent with the code could, so the hash chain
alone would pass it; the other checks must catch it, and the store must stay empty.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.errors import DataFileError, IntegrityError, RallypointError
from rallypoint.core.events import GENESIS_HASH, event_hash
from rallypoint.session.import_stream import import_streamed
from rallypoint.session.importing import import_campaign
from rallypoint.store import CampaignInfo, EventStore, export_campaign, read_export
from rallypoint.store.exchange import ExportedCampaignHeader, ExportedHead, header_hash
from store_kit import events, store_played

CID = "feed0000-1111-2222-3333-444455556666"
_WAY = {"now": "whole"}


@pytest.fixture(autouse=True, params=["whole", "streamed"])
def way(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every attack against both imports: the file read whole and checked, then stored
    (``import_campaign``), and each event checked and stored as it is read, in one
    transaction rolled back on a refusal (``import_streamed``, what ``Session.import_file``
    runs)."""
    _WAY["now"] = request.param
    yield request.param
    _WAY["now"] = "whole"


def do_import(away: EventStore, path: Path) -> CampaignInfo:
    if _WAY["now"] == "whole":
        return import_campaign(away, read_export(path))

    @contextmanager
    def transaction() -> Iterator[EventStore]:
        with away.transaction():
            yield away

    return import_streamed(transaction, path)


@pytest.fixture
def exported(tmp_path: Path) -> dict[str, Any]:
    """A whole squares playthrough, exported, as JSON data to edit."""
    with EventStore(tmp_path / "home.sqlite3") as home:
        store_played(home, CID, "Kursk", len(events()))
        export_campaign(home, CID, tmp_path / "good.json")
    data: dict[str, Any] = json.loads((tmp_path / "good.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture
def away(tmp_path: Path) -> Iterator[EventStore]:
    with EventStore(tmp_path / "away.sqlite3") as store:
        yield store


def rehash(data: dict[str, Any]) -> dict[str, Any]:
    """Re-seal every event and the header after an edit (a forger's first step)."""
    prev = GENESIS_HASH
    for e in data["events"]:
        e["prev_hash"] = prev
        e["hash"] = prev = event_hash(e["campaign_id"], e["seq"], e["type"], e["payload"],
                                      e["recorded_at"], prev)
    last = data["events"][-1]
    data["head"] = {"seq": last["seq"], "hash": last["hash"]}
    data["header_hash"] = header_hash(ExportedCampaignHeader(**data["campaign"]),
                                      ExportedHead(**data["head"]))
    return data


def attempt(tmp_path: Path, away: EventStore, data: dict[str, Any]) -> RallypointError:
    path = tmp_path / "attack.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RallypointError) as info:
        do_import(away, path)
    assert away.campaigns() == [], "a refused import must write nothing"
    assert "\n" not in str(info.value)
    return info.value


def test_good_file_imports(tmp_path: Path, away: EventStore, exported: dict[str, Any]) -> None:
    path = tmp_path / "good.json"
    info = do_import(away, path)
    assert info.version == len(events()) and away.verify(CID).ok


def test_cut_tail_in_file(tmp_path: Path, away: EventStore, exported: dict[str, Any]) -> None:
    exported["events"].pop()
    error = attempt(tmp_path, away, exported)
    assert isinstance(error, IntegrityError) and "newest 1 event(s) were cut" in str(error)


def test_cut_tail_with_edited_head_breaks_header_hash(
    tmp_path: Path, away: EventStore, exported: dict[str, Any],
) -> None:
    exported["events"].pop()
    last = exported["events"][-1]
    exported["head"] = {"seq": last["seq"], "hash": last["hash"]}
    assert "header does not match its header_hash" in str(attempt(tmp_path, away, exported))


def event_of(data: dict[str, Any], type_: str) -> dict[str, Any]:
    found: dict[str, Any] = next(e for e in data["events"] if e["type"] == type_)
    return found


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda d: d["events"].append({**d["events"][-1], "seq": len(d["events"]) + 1,
                                   "type": "undone", "payload": {"target": "abc",
                                                                 "summary": "x"}}),
     "undoes 'abc'"),
    (lambda d: d["events"].append({**d["events"][-1], "seq": len(d["events"]) + 1,
                                   "type": "undone", "payload": {"target": 1, "summary": "x"}}),
     "undoes 1"),
    # An unknown event type does not read into the ruleset's typed events (issue 8).
    (lambda d: d["events"].append({**d["events"][-1], "seq": len(d["events"]) + 1,
                                   "type": "no_such_event", "payload": {}}),
     "cannot be played"),
    (lambda d: event_of(d, "sp_lost")["payload"].clear(), "cannot be played"),
    (lambda d: event_of(d, "sp_lost")["payload"].update(steps=10**30), "64 bits"),
    (lambda d: d["events"][0]["payload"].update(ruleset="tcs"), "ruleset"),
    (lambda d: d["campaign"].update(ruleset="tcs"), "header's ruleset"),
    (lambda d: d["campaign"].update(name="Other"), "header's name"),
    (lambda d: d["events"][-1].update(recorded_at="9999-12-31T00:00:00+00:00"), "in the future"),
    (lambda d: d["events"][-1].update(recorded_at="yesterday"), "no valid time"),
    (lambda d: d["events"][-1].update(recorded_at="2020-01-01T00:00:00"), "without a time zone"),
    (lambda d: d["events"][2].update(recorded_at="2000-01-01T00:00:00+00:00"), "dated before"),
    (lambda d: d["campaign"].update(created_at="2000-01-01T00:00:00+00:00"), "created_at"),
    (lambda d: d["events"][0].update(type="sp_lost"), "not the 'created' event"),
])
def test_rehashed_files_that_cannot_be_played_are_refused(
    tmp_path: Path, away: EventStore, exported: dict[str, Any], edit: Any, expected: str,
) -> None:
    edit(exported)
    error = attempt(tmp_path, away, rehash(exported))
    assert expected in str(error)


def test_a_signature_on_a_one_player_file_is_refused(
    tmp_path: Path, away: EventStore, exported: dict[str, Any],
) -> None:
    exported["signatures"] = [{"algorithm": "ed25519", "key_id": "ab" * 32, "seat": "axis",
                               "signature": "cd" * 64}]
    assert "names no seat keys" in str(attempt(tmp_path, away, exported))


def test_version_1_file_still_imports(
    tmp_path: Path, away: EventStore, exported: dict[str, Any],
) -> None:
    for key in ("head", "turn", "header_hash", "signatures"):
        del exported[key]
    exported["format_version"] = 1
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    assert do_import(away, path).version == len(events())


def test_small_clock_skew_is_allowed(
    tmp_path: Path, away: EventStore, exported: dict[str, Any],
) -> None:
    soon = (datetime.now(UTC) + timedelta(minutes=2)).isoformat(timespec="microseconds")
    exported["events"][-1]["recorded_at"] = soon
    path = tmp_path / "skew.json"
    path.write_text(json.dumps(rehash(exported)), encoding="utf-8")
    assert do_import(away, path).version == len(events())


@pytest.mark.parametrize(("text", "expected"), [
    ('{"format": NaN}', "NaN"),
    ('{"format": Infinity}', "Infinity"),
    ('{"format": 1e999}', "out of range"),
    ('{"format": ' + "9" * 5000 + "}", "64 bits"),
    ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ('{"a": ' + "[" * 100 + "]" * 100 + "}", "nested more than 64"),
    ('"just a string"', "JSON object"),
])
def test_json_edge_values(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "edge.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataFileError, match=expected) as info:
        read_export(path)
    assert len(str(info.value)) < 300, "echoed input must be cut"


def test_non_utf8_and_oversized_files(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "J\xe4rvi"}')
    with pytest.raises(DataFileError, match="not UTF-8"):
        read_export(path)
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(513 * 2**20)  # sparse: no disk cost
    with pytest.raises(DataFileError, match=r"is 513\.0 MiB; the limit is 512 MiB"):
        read_export(big)


def test_junk_events_report_one_error_cheaply(tmp_path: Path, exported: dict[str, Any]) -> None:
    exported["events"] = [{"junk": i} for i in range(200_000)]
    path = tmp_path / "junk.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    with pytest.raises(DataFileError, match=r"events\[0\]") as info:
        read_export(path)
    assert len(str(info.value)) < 300
