"""One JSON file per campaign, for play-by-e-mail and backups.

An export carries the full event log with its hashes, so the receiver can verify that nothing was
edited in transit and can tell "my opponent added moves" (our log is a prefix of theirs: append
the new events) from "our histories split" (the logs diverge: refuse).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rallypoint.core.campaign import bulk_reading
from rallypoint.core.errors import DataFileError, IntegrityError
from rallypoint.core.events import EventRecord, canonical_json, verify_chain
from rallypoint.core.inputs import MAX_EXPORT_BYTES, MAX_EXPORT_VALUE, shorten
from rallypoint.core.jsonstream import Limits, Streamed, read_object
from rallypoint.core.visibility import verify_visible_chain
from rallypoint.errors import Hint
from rallypoint.store.importcheck import check_header_and_clocks
from rallypoint.store.signing import TurnSignature, check_signatures, seat_keys
from rallypoint.store.sqlite import EventStore
from rallypoint.store.visibility import dishonest_redaction, redacted_digest

FORMAT: Final = "rallypoint-campaign"
FORMAT_VERSION: Final = 3
"""Version 2 added the hashed header with the head, version 3 the turn (sender, addressee, a
revealed dice secret, a pending dice request) inside the hash; versions 1 and 2 are still read."""


class ExportedCampaignHeader(BaseModel):
    """The campaign as exported: its id, the name and ruleset of its ``created`` event."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    name: str = Field(max_length=1000)
    ruleset: str = Field(min_length=1, max_length=100)
    created_at: str = Field(max_length=100)


class ExportedHead(BaseModel):
    """The newest event of the exported log: a file whose last events were cut no longer ends
    at its head."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seq: int = Field(ge=1)
    hash: str = Field(pattern=r"^[0-9a-f]{64}$")


class TurnHeader(BaseModel):
    """Who a turn file is from and for, and what it reveals beyond the log (hashed and signed).

    Attributes:
        sender: The seat that wrote the file (``None``: a one-player export).
        reader: The seat it is for (``None``: a backup, for anyone).
        revealed_secret: The campaign's server-mode dice secret (hex), once revealed with
            ``rallypoint dice reveal``: every server-mode roll then verifies, not only commits.
        request: A pair-mode dice request waiting for the reader's link
            (:class:`rallypoint.dice.v1.PairRequest` as JSON).
        redacted: The hash of the payloads the per-viewer filter redacted for the reader
            (:func:`rallypoint.store.visibility.redacted_digest`); ``None``: nothing withheld.
        answer: The sender's answer to the reader's sealed dice request
            (:class:`rallypoint.dice.sealed.PairAnswer` as JSON); hashed only when present, so
            files written before it existed keep their header hash.
        voids: The sender's void dice rounds (``rallypoint dice stall`` after its answer went
            unresolved; :class:`rallypoint.dice.sealed.PairAnswer` with ``void`` set, as JSON):
            each burns its round in the reader's database too. Hashed only when present.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    sender: str | None = Field(default=None, max_length=100)
    reader: str | None = Field(default=None, max_length=100)
    revealed_secret: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    request: dict[str, Any] | None = None
    redacted: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    answer: dict[str, Any] | None = None
    voids: list[dict[str, Any]] | None = None

    def hashed(self) -> dict[str, Any]:
        """The fields the header hash covers (``answer`` and ``voids`` only when present)."""
        dumped = self.model_dump()
        for optional in ("answer", "voids"):
            if dumped[optional] is None:
                del dumped[optional]
        return dumped


class ExportedCampaign(BaseModel):
    """A parsed, well-formed export file (its chain is checked on import, not here).

    Attributes:
        campaign: Who the file is about.
        head: The newest event (``None`` only in a version-1 file).
        turn: Sender, addressee and what the file reveals (version 3; ``None`` before).
        header_hash: SHA-256 of the canonical JSON of format, format_version, campaign, head and
            turn: the value a seat signs, binding the head (and so every event) to the chain.
        signatures: The sender's seat signature (:mod:`rallypoint.store.signing`); empty for a
            one-player campaign.
        events: The whole log.
    """

    model_config = ConfigDict(frozen=True)

    format: Literal["rallypoint-campaign"] = FORMAT
    format_version: Literal[1, 2, 3] = FORMAT_VERSION
    campaign: ExportedCampaignHeader
    head: ExportedHead | None = None
    turn: TurnHeader | None = None
    header_hash: str | None = None
    signatures: list[TurnSignature] = []
    events: list[EventRecord]


def header_hash(campaign: ExportedCampaignHeader, head: ExportedHead,
                format_version: int = FORMAT_VERSION, turn: TurnHeader | None = None) -> str:
    """The hash a signature covers: the header fields, the head and the turn, canonical JSON."""
    body: dict[str, Any] = {"format": FORMAT, "format_version": format_version,
                            "campaign": campaign.model_dump(), "head": head.model_dump()}
    if format_version >= 3:
        body["turn"] = (turn or TurnHeader()).hashed()
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


Signer = Callable[[str], list[TurnSignature]]
"""Signs a file's header hash (the sender's seat key); returns the signatures to write."""


def export_campaign(store: EventStore, campaign_id: str, path: Path, *,
                    allow_broken: bool = False) -> int:
    """Write a campaign and its whole log to ``path`` atomically.

    Args:
        store: The store to read from.
        campaign_id: Exact campaign id.
        path: Destination file; replaced if it exists. Its directory must exist.
        allow_broken: Write even a log that fails verification (a backup before ``delete``;
            import refuses such a file, so a broken log is never passed on as good).

    Returns:
        The number of events written.

    Raises:
        UnknownIdError: No such campaign.
        IntegrityError: The stored log fails verification (a broken log is not passed on).
        DataFileError: The file cannot be written.
    """
    campaign, records = exported_log(store, campaign_id, allow_broken=allow_broken)
    write_atomically(path, export_text(campaign, records))
    return len(records)


def exported_log(store: EventStore, campaign_id: str, *, allow_broken: bool = False,
                 ) -> tuple[ExportedCampaignHeader, list[EventRecord]]:
    """The header and the whole log of a campaign, as an export carries them.

    Raises:
        UnknownIdError: No such campaign.
        IntegrityError: The stored log fails verification (unless ``allow_broken``) or is empty.
    """
    log = store.log(campaign_id)
    if log.problem is not None and not allow_broken:
        raise IntegrityError(
            f"campaign {log.info.name!r} is broken at seq {log.problem.seq}: "
            f"{log.problem.reason}",
            where=store.path, fix="restore the campaign from an earlier export before exporting")
    records = log.records
    if not records:
        raise IntegrityError(f"campaign {log.info.name!r} has no readable events",
                             where=store.path, fix="delete it with --no-backup",
                             instead=Hint.SERVER)
    first = records[0].payload
    campaign = ExportedCampaignHeader(
        id=log.info.id, name=str(first.get("name", log.info.name)),
        ruleset=str(first.get("ruleset", log.info.ruleset)), created_at=log.info.created_at)
    return campaign, list(records)


def export_text(campaign: ExportedCampaignHeader, records: Sequence[EventRecord],
                turn: TurnHeader | None = None, sign: Signer | None = None) -> str:
    """The JSON text of an export of ``records``, its header hashed and (``sign``) signed."""
    head = ExportedHead(seq=records[-1].seq, hash=records[-1].hash)
    document = export_document(campaign, head, turn, sign)
    document["events"] = [record.model_dump() for record in records]
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def export_document(campaign: ExportedCampaignHeader, head: ExportedHead,
                    turn: TurnHeader | None = None, sign: Signer | None = None,
                    ) -> dict[str, Any]:
    """An export's JSON document up to its events (``"events"`` last, empty): the header
    hashed and (``sign``) signed. :func:`export_text` fills the events in;
    :class:`rallypoint.store.export_writer.ExportWriter` writes them after it as they come."""
    hashed = header_hash(campaign, head, FORMAT_VERSION, turn)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "campaign": campaign.model_dump(),
        "head": head.model_dump(),
        "turn": (turn or TurnHeader()).hashed(),
        "header_hash": hashed,
        "signatures": [] if sign is None else [s.model_dump() for s in sign(hashed)],
        "events": [],
    }


def write_atomically(path: Path, text: str, what: str = "the export") -> None:
    """Write via a temp file in the same directory and ``os.replace``.

    A reader (or the opponent's mail client) never sees a half-written file, and a crash leaves
    either the old file or the new one.

    Raises:
        DataFileError: The folder is missing or read-only, the path is a folder, the disk is full.
    """
    path = Path(path)
    shown = shorten(str(path), 120)
    if path.is_dir():
        raise DataFileError(f"cannot write {what}: {shown!r} is a folder",
                            fix="give a file name inside it, e.g. roster.json")
    if path.is_symlink() or (path.exists() and not path.is_file()):
        # A device, pipe, socket or link (/dev/stdout, a FIFO) is written to, never renamed
        # over: replacing it would swap the device node or the link for a plain file.
        _write_through(path, text, what)
        return
    try:
        fd, temp_name = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp",
                                         dir=path.parent)
    except OSError as exc:
        raise DataFileError(f"cannot write {what} to {shown!r}: {exc.strerror}",
                            fix="check that the folder exists and is writable") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except OSError as exc:
        Path(temp_name).unlink(missing_ok=True)
        raise DataFileError(f"cannot write {what} to {shown!r}: {exc.strerror}",
                            fix="check free space and permissions, then try again") from exc
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _write_through(path: Path, text: str, what: str) -> None:
    """Write ``text`` into an existing non-regular file (no temp file, no rename)."""
    try:
        with path.open("w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise DataFileError(f"cannot write {what} to {shorten(str(path), 120)!r}: "
                            f"{exc.strerror}", fix="check the path and its permissions") from exc


EXPORT_LIMITS: Final = Limits(max_bytes=MAX_EXPORT_BYTES, max_value=MAX_EXPORT_VALUE)
"""What an export file may take (:mod:`rallypoint.core.jsonstream`): the whole file, and one
event or header field."""


class ExportStream(Protocol):
    """Takes an export's events one at a time as :func:`read_export` reads them, instead of
    their being kept (a streamed import: :mod:`rallypoint.session.import_stream`)."""

    def header(self, exported: ExportedCampaign) -> bool:
        """Called when the events start, with the header read so far (its ``events`` empty);
        ``True``: hand each event to :meth:`event` and keep none; ``False``: keep them."""
        ...

    def event(self, record: EventRecord) -> None:
        """The next event, validated (raise to refuse the file)."""
        ...


def read_export(path: Path, stream: ExportStream | None = None) -> ExportedCampaign:
    """Read and validate an export file (format, version and shape; not yet the hash chain).

    The file is read as a stream (:func:`rallypoint.core.jsonstream.read_object`): size-capped,
    parsed strictly (no NaN, 64-bit integers, bounded nesting) and validated event by event,
    stopping at the first bad one, so neither junk nor a long log is ever held as text.

    Args:
        path: The file.
        stream: Takes the events instead, if the header before them is whole and valid and it
            accepts them (:meth:`ExportStream.header`): the result's ``events`` are then empty.

    Raises:
        DataFileError: The file is missing or unreadable, not JSON, or not a supported export.
    """
    path = Path(path)
    parsed: list[EventRecord] = []
    streaming = False

    def event(item: Any, index: int) -> None:
        try:
            record = EventRecord.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise _invalid(path, ("events", index, *first["loc"]), first["msg"]) from None
        if streaming:
            assert stream is not None  # streaming only with a stream
            stream.event(record)
        else:
            parsed.append(record)

    def ready(before: Streamed) -> None:
        nonlocal streaming
        if "format" in before.members:  # a file of something else is refused before its list
            _check_format(path, before)
            streaming = stream is not None and _streams(before, stream)

    with bulk_reading() if stream is None else nullcontext():  # records kept: no cycles
        read = read_object(path, "export file", "events", event, EXPORT_LIMITS, ready)
    _check_format(path, read)
    if read.streamed is None:
        raise DataFileError("export file has no events list", where=f"{path} events",
                            fix="ask for a fresh export; the file was edited or damaged")
    try:
        return ExportedCampaign.model_validate({**read.members, "events": parsed})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise _invalid(path, first["loc"], first["msg"]) from None


def _streams(before: Streamed, stream: ExportStream) -> bool:
    """Whether ``stream`` takes the events: the header before them is whole and valid (else
    they are kept, and the header refused as ever once the file is read) and it accepts."""
    try:
        header = ExportedCampaign.model_validate({**before.members, "events": []})
    except ValidationError:
        return False
    return stream.header(header)


def _invalid(path: Path, loc: tuple[int | str, ...], msg: str) -> DataFileError:
    field = _field_path(loc)
    return DataFileError(f"export file has an invalid field {field}: {msg}",
                         where=f"{path} {field}",
                         fix="ask for a fresh export; the file was edited or damaged")


def _check_format(path: Path, read: Streamed) -> None:
    """Refuse files that are not rallypoint campaign exports of a version we read."""
    data = read.members
    fmt = data.get("format")
    if fmt != FORMAT:
        shown = shorten(repr(fmt), 40)
        raise DataFileError(f"not a rallypoint campaign export (format is {shown}, "
                            f"expected {FORMAT!r})", where=f"{path}:{read.lines.get('format', 1)}",
                            fix="pass a file made by rallypoint export", instead=Hint.IMPORT_FILE)
    version = data.get("format_version")
    if version not in (1, 2, FORMAT_VERSION) or type(version) is not int:
        newer = type(version) is int and version > FORMAT_VERSION
        raise DataFileError(
            f"export format_version {shorten(repr(version), 30)} is not supported (this "
            f"rallypoint reads versions 1 to {FORMAT_VERSION})",
            where=f"{path}:{read.lines.get('format_version', 1)}",
            fix="upgrade rallypoint" if newer else "ask for a fresh export",
            instead=Hint.IMPORT_FILE)


def _field_path(loc: tuple[int | str, ...]) -> str:
    """``("events", 3, "seq")`` as ``events[3].seq``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def check_export(exported: ExportedCampaign) -> None:
    """Everything the store checks of an export before it may be stored, in order: the log
    belongs to the campaign and its hash chain holds, the header (hash, head at the end of the
    log, no unchecked signature), the ``created`` event matching the header, and plausible
    timestamps. Whether the log can be *played* is the session's question
    (:func:`rallypoint.session.importing.import_campaign` asks it before storing).

    Raises:
        IntegrityError: The file fails any check above.
    """
    header = exported.campaign
    records = exported.events
    check_importable(header.id, records)
    check_header(exported)
    check_signed(exported, seat_keys(records[0].payload))
    check_header_and_clocks(header, records)


def check_importable(campaign_id: str, records: Sequence[EventRecord], *,
                      redacted: bool = False) -> None:
    """Refuse records that are empty, belong elsewhere, or fail the hash chain (``redacted``:
    a turn file filtered for its reader, whose redacted events are checked by link only)."""
    if not records:
        raise IntegrityError("the imported log has no events", where=campaign_id,
                             fix="export the campaign again")
    for record in records:
        if record.campaign_id != campaign_id:
            raise IntegrityError(
                f"event {record.seq} belongs to campaign {shorten(record.campaign_id)!r}, "
                f"not {shorten(campaign_id)!r}", where=f"seq {record.seq}",
                fix="export the campaign again; the file mixes campaigns")
    problem = verify_visible_chain(records) if redacted else verify_chain(records)
    if problem is not None:
        raise IntegrityError(f"the imported log is broken at seq {problem.seq}: {problem.reason}",
                             where=f"seq {problem.seq}",
                             fix="ask for a fresh export; the file was edited or damaged")


def check_header(exported: ExportedCampaign, last: EventRecord | None = None) -> None:
    """The header's hash, and its head against the log's last event (a cut tail shows here;
    ``last``: that event, when the events were streamed rather than kept)."""
    if exported.format_version == 1:
        return  # written before heads existed: only the chain can be checked
    head, stated = exported.head, exported.header_hash
    if head is None or stated is None:
        raise IntegrityError("the file has no head or header_hash", where="head",
                             fix="ask for a fresh export; the file was edited or damaged")
    if stated != header_hash(exported.campaign, head, exported.format_version, exported.turn):
        raise IntegrityError("the header does not match its header_hash (edited?)",
                             where="header_hash",
                             fix="ask for a fresh export; the file was edited or damaged")
    last = exported.events[-1] if last is None else last
    if (last.seq, last.hash) != (head.seq, head.hash):
        cut = head.seq - last.seq
        what = (f"the file's log ends at seq {last.seq} but its head is seq {head.seq}: the "
                f"newest {cut} event(s) were cut" if cut > 0 else
                f"the file's last event (seq {last.seq}) is not its head (seq {head.seq})")
        raise IntegrityError(what, where="head",
                             fix="ask for a fresh export; the file was cut or edited")


def check_signed(exported: ExportedCampaign, seats: dict[str, str],
                 reader: str | None = None) -> str | None:
    """The file's signatures against ``seats`` (seat → public key, from a ``created`` event
    the reader trusts); returns the seat that signed (``None``: a one-player file).

    Raises:
        IntegrityError: Unsigned when the campaign has seats, signed by a stranger's key, for
            another reader, or not matching the header (edited, cut, reordered, re-hashed).
    """
    if exported.format_version < 3:
        if seats:
            raise IntegrityError("the file has no turn header, but its campaign has seats",
                                 where="format_version",
                                 fix="ask the sender for `rallypoint export --for SIDE`",
                                 instead=Hint.BY_MAIL)
        return None
    stated = exported.header_hash or ""
    signer = check_signatures(stated, exported.signatures, seats, reader=reader)
    turn = exported.turn or TurnHeader()
    if signer is not None and (turn.sender != signer or any(
            s.for_seat != turn.reader for s in exported.signatures)):
        raise IntegrityError("the turn header's sender or reader is not the signature's",
                             where="turn", fix="do not trust this file; ask for a fresh export")
    return signer


def check_redacted(exported: ExportedCampaign) -> None:
    """The redacted payloads are the ones the signed header's ``turn.redacted`` hashes.

    Raises:
        IntegrityError: A redacted event was edited (or redacted) after the file was signed, or
            is not one an honest redaction makes (:func:`dishonest_redaction`).
    """
    stated = exported.turn.redacted if exported.turn else None
    if redacted_digest(exported.events) != stated:
        raise IntegrityError("the file's withheld events are not the ones its signed header "
                             "names (edited after it was signed?)", where="turn.redacted",
                             fix="Do not trust this file; ask the sender to export it again")
    dishonest = dishonest_redaction(exported.events)
    if dishonest is not None:
        seq, why = dishonest
        raise IntegrityError(f"event #{seq} arrives redacted, but {why}: its hash cannot be "
                             "checked, so the sender could have written anything in it",
                             where=f"seq {seq}", fix="Do not trust this file; ask the sender "
                             "to export it again")
