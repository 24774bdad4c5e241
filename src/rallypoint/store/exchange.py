"""One JSON file per campaign, for play-by-e-mail and backups.

An export carries the full event log with its hashes, so the receiver can verify that nothing was
edited in transit and can tell "my opponent added moves" (our log is a prefix of theirs: append
the new events) from "our histories split" (the logs diverge: refuse).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from rallypoint.core.errors import DataFileError, IntegrityError
from rallypoint.core.events import EventRecord, verify_chain
from rallypoint.store.sqlite import CampaignInfo, EventStore

FORMAT: Final = "rallypoint-campaign"
FORMAT_VERSION: Final = 1


class ExportedCampaignHeader(BaseModel):
    """The campaign row as exported."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    ruleset: str
    created_at: str


class ExportedCampaign(BaseModel):
    """A parsed, well-formed export file (its chain is checked on import, not here)."""

    model_config = ConfigDict(frozen=True)

    format: Literal["rallypoint-campaign"] = FORMAT
    format_version: Literal[1] = FORMAT_VERSION
    campaign: ExportedCampaignHeader
    events: list[EventRecord]


def export_campaign(store: EventStore, campaign_id: str, path: Path) -> int:
    """Write a campaign and its whole log to ``path`` atomically.

    Args:
        store: The store to read from.
        campaign_id: Exact campaign id.
        path: Destination file; replaced if it exists. Its directory must exist.

    Returns:
        The number of events written.

    Raises:
        UnknownIdError: No such campaign.
        IntegrityError: The stored log fails verification (a broken log is not passed on).
        DataFileError: The file cannot be written.
    """
    info = store.campaign(campaign_id)
    records = store.events(campaign_id)
    problem = verify_chain(records)
    if problem is not None:
        raise IntegrityError(
            f"campaign {campaign_id!r} is broken at seq {problem.seq}: {problem.reason}",
            where=store.path, fix="restore the campaign from an earlier export before exporting")
    document: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "campaign": {"id": info.id, "name": info.name, "ruleset": info.ruleset,
                     "created_at": info.created_at},
        "events": [record.model_dump() for record in records],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    _write_atomically(path, text)
    return len(records)


def _write_atomically(path: Path, text: str) -> None:
    """Write via a temp file in the same directory and ``os.replace``.

    A reader (or the opponent's mail client) never sees a half-written file, and a crash leaves
    either the old file or the new one.
    """
    path = Path(path)
    try:
        fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise DataFileError(f"cannot write the export: {exc.strerror}", where=str(path),
                            fix="check that the directory exists and is writable") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except OSError as exc:
        Path(temp_name).unlink(missing_ok=True)
        raise DataFileError(f"cannot write the export: {exc.strerror}", where=str(path),
                            fix="check free space and permissions, then export again") from exc
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def read_export(path: Path) -> ExportedCampaign:
    """Read and validate an export file (format, version and shape; not yet the hash chain).

    Raises:
        DataFileError: The file is missing or unreadable, not JSON, or not a supported export.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise DataFileError(f"export file {str(path)!r} does not exist", where=str(path),
                            fix="check the path of the file you were sent") from exc
    except UnicodeDecodeError as exc:
        raise DataFileError(f"export file is not UTF-8 text: {exc.reason}", where=str(path),
                            fix="ask for the file again; it may have been mangled in transit"
                            ) from exc
    except OSError as exc:
        raise DataFileError(f"cannot read export file: {exc.strerror}", where=str(path),
                            fix="check the file's permissions") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"export file is not valid JSON: {exc.msg} at line {exc.lineno}, "
                            f"column {exc.colno}", where=f"{path}:{exc.lineno}",
                            fix="ask for the file again, or repair the JSON at that spot") from exc
    if not isinstance(data, dict):
        raise DataFileError("export file does not contain a JSON object", where=f"{path}:1",
                            fix="pass a file made by rallypoint export")
    _check_format(path, text, data)
    try:
        return ExportedCampaign.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field_path(first["loc"])
        raise DataFileError(f"export file has an invalid field {field}: {first['msg']}",
                            where=f"{path} {field}",
                            fix="ask for a fresh export; the file was edited or damaged") from exc


def _check_format(path: Path, text: str, data: dict[str, Any]) -> None:
    """Refuse files that are not rallypoint campaign exports of a version we read."""
    fmt = data.get("format")
    if fmt != FORMAT:
        raise DataFileError(f"not a rallypoint campaign export (format is {fmt!r}, "
                            f"expected {FORMAT!r})", where=f"{path}:{_line_of(text, 'format')}",
                            fix="pass a file made by rallypoint export")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        newer = type(version) is int and version > FORMAT_VERSION
        raise DataFileError(
            f"export format_version {version!r} is not supported (this rallypoint reads "
            f"version {FORMAT_VERSION})", where=f"{path}:{_line_of(text, 'format_version')}",
            fix="upgrade rallypoint" if newer else "ask for a fresh export")


def _line_of(text: str, key: str) -> int:
    """1-based line of the first ``"key":`` in ``text`` (1 if absent), to point at a field."""
    match = re.search(re.escape(json.dumps(key)) + r"\s*:", text)
    return 1 if match is None else text.count("\n", 0, match.start()) + 1


def _field_path(loc: tuple[int | str, ...]) -> str:
    """``("events", 3, "seq")`` as ``events[3].seq``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def import_campaign(
    store: EventStore, exported: ExportedCampaign, name: str | None = None,
) -> CampaignInfo:
    """Bring an exported campaign into ``store``, verifying it first.

    A new campaign is inserted with all its events exactly as exported (same times and hashes).
    A campaign already in the store gets only the events beyond its stored log, provided the
    stored log is a prefix of the imported one; this is how an opponent's moves come back.

    Args:
        store: The destination store.
        exported: From :func:`read_export`.
        name: Name for a new campaign (default: the exported name). Ignored when the campaign
            already exists, which keeps its local name.

    Returns:
        The campaign as stored afterwards.

    Raises:
        IntegrityError: The imported chain is broken or diverges from the stored log (nothing
            is written).
        StoreError: The name is taken by a different campaign.
    """
    header = exported.campaign
    _check_importable(header.id, exported.events)
    return store.import_records(header.id, name or header.name, header.ruleset,
                                header.created_at, exported.events)


def _check_importable(campaign_id: str, records: Sequence[EventRecord]) -> None:
    """Refuse records that are empty, belong elsewhere, or fail the hash chain."""
    if not records:
        raise IntegrityError("the imported log has no events", where=campaign_id,
                             fix="export the campaign again")
    for record in records:
        if record.campaign_id != campaign_id:
            raise IntegrityError(
                f"event {record.seq} belongs to campaign {record.campaign_id!r}, "
                f"not {campaign_id!r}", where=f"seq {record.seq}",
                fix="export the campaign again; the file mixes campaigns")
    problem = verify_chain(records)
    if problem is not None:
        raise IntegrityError(f"the imported log is broken at seq {problem.seq}: {problem.reason}",
                             where=f"seq {problem.seq}",
                             fix="ask for a fresh export; the file was edited or damaged")
