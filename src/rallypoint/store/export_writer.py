"""An export file written one event at a time: the text of
:func:`rallypoint.store.exchange.export_text`, never held whole.

The head (the last event's seq and hash) is part of the signed header, which comes before the
events, so the writer takes it up front (a streamed reveal knows it from the database's own
head); the events follow as they come, into a temporary file beside the destination, which
replaces it only on :meth:`ExportWriter.commit` (a refusal removes it: nothing is written).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from rallypoint.core.events import EventRecord
from rallypoint.store.exchange import (
    ExportedCampaignHeader,
    ExportedHead,
    Signer,
    TurnHeader,
    export_document,
)

BATCH = 256
"""Events dumped at once."""
_EVENTS = '"events": []\n}'
"""How the document without events ends, as ``json.dumps(..., indent=2)`` writes it."""


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)


class ExportWriter:
    """Writes an export of a log whose last event is ``head``, one event at a time.

    Args:
        path: The destination, a regular file or none yet (not a device or a link).
        campaign: The header's campaign.
        head: The last event's seq and hash.
        turn: The turn header.
        sign: Signs the header hash.

    Raises:
        OSError: The temporary file cannot be made.
    """

    def __init__(self, path: Path, campaign: ExportedCampaignHeader, head: ExportedHead,
                 turn: TurnHeader | None = None, sign: Signer | None = None) -> None:
        text = _dumps(export_document(campaign, head, turn, sign))
        assert text.endswith(_EVENTS)
        self._path = path
        fd, name = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=path.parent)
        self._temp = Path(name)
        self._file = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        self._file.write(text[:-len("]\n}")])
        self._count = 0
        self._batch: list[dict[str, Any]] = []

    def add(self, record: EventRecord) -> None:
        """Take the next event (written with the next :data:`BATCH`)."""
        self._batch.append(record.model_dump())
        if len(self._batch) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        """Write the events taken, as ``export_text`` indents them inside the list.

        A batch is dumped at once, not each event: an indented ``json.dumps`` builds closures
        that refer to each other (cyclic garbage, kept until the collector runs, which a
        streamed pass pauses), once per call.
        """
        if not self._batch:
            return
        text = _dumps(self._batch)  # "[\n  {...},\n  {...}\n]": one level less indented
        self._file.write(("," if self._count else "") + "\n  " + text[2:-2].replace("\n", "\n  "))
        self._count += len(self._batch)
        self._batch = []

    def commit(self) -> None:
        """Close the list and the document, and put the file in place (fsynced first)."""
        self._flush()
        self._file.write("\n  ]\n}\n" if self._count else "]\n}\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._temp, self._path)

    def abort(self) -> None:
        """Remove the temporary file: nothing is written."""
        self._file.close()
        self._temp.unlink(missing_ok=True)
