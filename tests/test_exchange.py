"""Campaign export/import: the play-by-e-mail round trip."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rallypoint.core.errors import DataFileError, IntegrityError, StoreError
from rallypoint.core.events import NewEvent
from rallypoint.session.importing import import_campaign
from rallypoint.store import EventStore, export_campaign, read_export
from store_kit import events, store_played

CID = "5eed5eed-0000-1111-2222-333344445555"
PLAYED = events()


def ev(i: int) -> NewEvent:
    """Event ``i`` of the playthrough (stored again, it gets a new time and so a new hash)."""
    return PLAYED[i - 1]


@pytest.fixture
def home(tmp_path: Path) -> Iterator[EventStore]:
    """The sender's store: one real (squares) campaign with events 1..3."""
    with EventStore(tmp_path / "home.sqlite3") as store:
        store_played(store, CID, "Kursk", 3)
        yield store


@pytest.fixture
def away(tmp_path: Path) -> Iterator[EventStore]:
    """The opponent's store, empty."""
    with EventStore(tmp_path / "away.sqlite3") as store:
        yield store


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_export_then_import_gives_identical_records(
    home: EventStore, away: EventStore, tmp_path: Path,
) -> None:
    path = tmp_path / "kursk.json"
    assert export_campaign(home, CID, path) == 3
    data = load(path)
    assert data["format"] == "rallypoint-campaign" and data["format_version"] == 3
    assert data["campaign"] == {"id": CID, "name": "Kursk", "ruleset": "squares",
                                "created_at": home.campaign(CID).created_at}
    assert data["head"] == {"seq": 3, "hash": home.events(CID)[-1].hash}
    assert data["signatures"] == []
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []

    info = import_campaign(away, read_export(path))
    assert info == home.campaign(CID)
    assert away.events(CID) == home.events(CID)
    assert away.verify(CID).ok


def test_import_under_another_name(home: EventStore, away: EventStore, tmp_path: Path) -> None:
    path = tmp_path / "kursk.json"
    export_campaign(home, CID, path)
    away.create_campaign("someone-else", "Kursk", "squares", ev(1))
    with pytest.raises(StoreError, match="'Kursk'") as info:
        import_campaign(away, read_export(path))
    assert info.value.fix is not None and "--name" in info.value.fix
    assert import_campaign(away, read_export(path), name="Kursk (PBEM)").name == "Kursk (PBEM)"


def test_tampered_file_refused_and_nothing_written(
    home: EventStore, away: EventStore, tmp_path: Path,
) -> None:
    path = tmp_path / "kursk.json"
    export_campaign(home, CID, path)
    data = load(path)
    data["events"][1]["payload"]["note"] = "and a free rally"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(IntegrityError, match="seq 2") as info:
        import_campaign(away, read_export(path))
    assert "content does not match" in str(info.value)
    assert away.campaigns() == []


def test_events_from_another_campaign_refused(
    home: EventStore, away: EventStore, tmp_path: Path,
) -> None:
    path = tmp_path / "kursk.json"
    export_campaign(home, CID, path)
    data = load(path)
    data["campaign"]["id"] = "some-other-id"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(IntegrityError, match="belongs to campaign"):
        import_campaign(away, read_export(path))
    assert away.campaigns() == []


def test_partial_import_appends_only_newer_events(
    home: EventStore, away: EventStore, tmp_path: Path,
) -> None:
    first, second = tmp_path / "turn1.json", tmp_path / "turn2.json"
    export_campaign(home, CID, first)
    import_campaign(away, read_export(first), name="Kursk at home")
    away.append_many(CID, 4, [ev(4), ev(5)])  # the opponent plays ...
    export_campaign(away, CID, second)  # ... and mails it back

    info = import_campaign(home, read_export(second))
    assert info.version == 5 and info.name == "Kursk"  # the local name is kept
    assert home.events(CID) == away.events(CID)
    assert home.verify(CID).ok
    # Importing the same file, or an older one, again changes nothing.
    assert import_campaign(home, read_export(second)).version == 5
    assert import_campaign(home, read_export(first)).version == 5
    assert home.events(CID) == away.events(CID)


def test_diverging_logs_refused(home: EventStore, away: EventStore, tmp_path: Path) -> None:
    shared, theirs = tmp_path / "shared.json", tmp_path / "theirs.json"
    export_campaign(home, CID, shared)
    import_campaign(away, read_export(shared))
    home.append(CID, 4, ev(4))
    away.append_many(CID, 4, [ev(4), ev(5)])  # the same move, made again: another history
    export_campaign(away, CID, theirs)
    before = home.events(CID)
    with pytest.raises(IntegrityError, match="the logs diverge at seq 4"):
        import_campaign(home, read_export(theirs))
    assert home.events(CID) == before


def test_bad_json_reports_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "rallypoint-campaign",\n  "format_version": 1,\n  oops\n}\n',
                    encoding="utf-8")
    with pytest.raises(DataFileError, match="not valid JSON") as info:
        read_export(path)
    assert info.value.where == f"{path}:4"
    assert "column 3" in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="does not exist") as info:
        read_export(tmp_path / "nope.json")
    assert info.value.fix is not None


@pytest.mark.parametrize(
    ("change", "message", "line"),
    [
        ({"format": "something-else"}, "not a rallypoint campaign export", 2),
        ({"format_version": 4}, "format_version 4 is not supported", 3),
    ],
)
def test_wrong_format_or_version(
    home: EventStore, tmp_path: Path, change: dict[str, Any], message: str, line: int,
) -> None:
    path = tmp_path / "kursk.json"
    export_campaign(home, CID, path)
    data = load(path)
    data.update(change)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(DataFileError, match=message) as info:
        read_export(path)
    assert info.value.where == f"{path}:{line}"


def test_invalid_field_named(home: EventStore, tmp_path: Path) -> None:
    path = tmp_path / "kursk.json"
    export_campaign(home, CID, path)
    data = load(path)
    data["events"][2]["seq"] = "three"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(DataFileError, match=r"events\[2\]\.seq"):
        read_export(path)


def test_export_to_missing_directory(home: EventStore, tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="cannot write"):
        export_campaign(home, CID, tmp_path / "no" / "such" / "dir.json")
