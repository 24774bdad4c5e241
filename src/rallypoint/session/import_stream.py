"""An export imported in one streaming pass: each event checked, folded and stored as it is read.

:func:`rallypoint.session.importing.import_campaign` takes a file read whole: every record held
at once (about 5 times the file's size in memory), then the chain, the header, the signature,
the clocks and the fold as separate passes over them, then the insert. Here each event, as
:func:`rallypoint.store.exchange.read_export` validates it, is checked against the one before
(campaign, hash chain, clock), played through its ruleset (:class:`PlayCheck`, whose fold reads
older records again from the rows already inserted instead of keeping them) and inserted, all
inside one write transaction; what covers the whole file (the head at the end of the log, the
header hash, the signature over it, ``created_at``, the final state's views) is checked at the
end, before the commit. Any refusal, however late, rolls every row back: nothing is written,
as when the file was checked whole first. Memory holds the running state, not the log.

The refusals are those of the whole-file import, each raised at the event at fault; when a file
has several faults, the first one met in reading order is the one named.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rallypoint.core.campaign import bulk_reading
from rallypoint.core.errors import IntegrityError
from rallypoint.core.events import EventRecord
from rallypoint.core.playcheck import PlayCheck
from rallypoint.session.importing import import_campaign
from rallypoint.store import CampaignInfo, EventStore
from rallypoint.store.importcheck import (
    IMPORT_FIX,
    ChainCheck,
    ClockCheck,
    check_created,
    check_created_at,
)

if TYPE_CHECKING:
    from rallypoint.store.exchange import ExportedCampaign
    from rallypoint.store.import_rows import ImportRows

SWEEP_EVERY: Final = 8192
"""Events between two runs of the cyclic garbage collector in a streamed pass."""


def sweep(count: int) -> None:
    """Collect cyclic garbage every :data:`SWEEP_EVERY` events of a streamed pass.

    The collector is paused while a pass reads (:func:`~rallypoint.core.campaign
    .bulk_reading`): its automatic runs cost about a sixth of a streamed import, and an event's
    values hold no cycles. Should a ruleset's fold make some, this bounds what they hold.
    """
    if count % SWEEP_EVERY == 0:
        gc.collect()


@contextmanager
def streaming() -> Iterator[None]:
    """The collector paused for a streamed pass (:func:`sweep` runs it now and then), and what
    was allocated before it (the modules, the interpreter's own) left out of those runs."""
    gc.freeze()
    try:
        with bulk_reading():
            yield
    finally:
        gc.unfreeze()


BATCH: Final = 256
"""Events checked together by a streamed import, each check over all of them in turn."""

_LINK, _CREATED, _CLOCK, _PLAY, _ROWS = range(5)
"""The steps each imported event goes through, in their order."""


class _FirstFault:
    """The first fault in reading order of a batch checked one step at a time across it.

    A step runs over the events of the batch in order, but only over those that come before
    the first fault found so far (by event, then by step): the one that comes first in that
    order is the fault a reader checking each event through every step, one event after the
    other, meets first.

    Args:
        size: The number of events in the batch.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._at: tuple[int, int] = (size, 0)  # (event, step) of the first fault; none yet
        self._error: Exception | None = None

    def run(self, step: int, check: Callable[[int], None], stop: int | None = None) -> None:
        """Run ``check`` on the events (by index, up to ``stop``) that come before the first
        fault; a fault it raises becomes the first if it comes before."""
        event, first_step = self._at
        # The step may still fault at that very event when it comes before the faulted step.
        end = min(self._size if stop is None else stop, event + (step < first_step))
        index = 0
        try:
            for index in range(end):
                check(index)
        except Exception as exc:  # each is the refusal of one event; the first in order wins
            self._at, self._error = (index, step), exc

    def raise_first(self) -> None:
        """Raise the first fault, if any."""
        if self._error is not None:
            raise self._error


OpenStore = Callable[[], AbstractContextManager[EventStore]]
"""Opens the destination's write transaction (:meth:`rallypoint.session.handle.Handle
.transaction`): only once the file's header is read, so a file refused before its events
never opens (or creates) the database."""


def import_streamed(open_store: OpenStore, path: Path, name: str | None = None) -> CampaignInfo:
    """Import the export file ``path`` in one streaming pass (see the module docstring).

    A file whose header does not come whole and valid before its events (not one rallypoint
    wrote) is read whole and imported as ever (:func:`~rallypoint.session.importing
    .import_campaign`), with the same refusals.

    Args:
        open_store: The destination's write transaction.
        path: The file.
        name: Name for a new campaign (default: the exported name).

    Returns:
        The campaign as stored afterwards.

    Raises:
        DataFileError: Not a readable export.
        IntegrityError: Any check fails, or the file diverges from the stored log (nothing is
            written).
        StoreError: The name is taken by a different campaign.
    """
    from rallypoint.store.exchange import read_export

    with ExitStack() as stack:
        streamed = _Streamed(stack, open_store, name)
        with streaming():
            try:
                exported = read_export(path, streamed)
            except Exception:
                # The events taken before the fault are checked first: one of them may be at
                # fault, earlier in reading order.
                streamed.drain()
                raise
        if streamed.rows is None:
            with open_store() as store:
                return import_campaign(store, exported, name)
        return streamed.finish(exported)


class _Streamed:
    """The running checks and the rows of one streamed import (an ``ExportStream``).

    Events are checked a batch at a time (:data:`BATCH`), each check over the whole batch before
    the next (:meth:`drain`): one check's code and data stay in the processor's caches across a
    batch, where checking each event through every step in turn evicts them at every event
    (about a quarter of the import's time). The refusal is still the first fault in reading
    order (:class:`_FirstFault`).
    """

    def __init__(self, stack: ExitStack, open_store: OpenStore, name: str | None) -> None:
        self._stack, self._open, self._name = stack, open_store, name
        self._store: EventStore | None = None
        self.rows: ImportRows | None = None
        self._exported: ExportedCampaign | None = None
        self._chain: ChainCheck | None = None
        self._clocks = ClockCheck()
        self._play: PlayCheck | None = None
        self._rows_open: ExitStack | None = None
        self._first: EventRecord | None = None
        self._last: EventRecord | None = None
        self._batch: list[EventRecord] = []

    def header(self, exported: ExportedCampaign) -> bool:
        """Open the transaction and the campaign's rows (the name is checked here)."""
        header = exported.campaign
        self._exported = exported
        self._chain = ChainCheck(header.id)
        self._store = self._stack.enter_context(self._open())
        self._rows_open = self._stack.enter_context(ExitStack())
        self.rows = self._rows_open.enter_context(self._store.importing(
            header.id, self._name or header.name, header.ruleset, header.created_at))
        return True

    def event(self, record: EventRecord) -> None:
        """Take the next event; check, play and store a batch of them once it is full.

        Raises:
            IntegrityError: An event of the batch belongs elsewhere, breaks the chain, is dated
                wrong, cannot be played, or diverges from the stored log.
        """
        self._batch.append(record)
        if len(self._batch) >= BATCH:
            self.drain()

    def drain(self) -> None:
        """Check, play and store the events taken since the last drain: each check over all of
        them, in the order each event goes through them, refusing at the first fault in reading
        order (the same refusal as checking each event through every step before the next).

        Raises:
            IntegrityError: See :meth:`event`.
        """
        batch, self._batch = self._batch, []
        if not batch:
            return
        assert self._chain is not None and self.rows is not None and self._exported is not None
        chain, rows, header = self._chain, self.rows, self._exported.campaign
        texts: list[str] = []  # each payload's canonical text, hashed, then stored
        fault = _FirstFault(len(batch))

        def link(index: int) -> None:
            texts.append(chain.add(batch[index]))
            sweep(chain.count)

        def created(index: int) -> None:
            if index == 0 and self._first is None:
                self._first = batch[0]
                check_created(header, batch[0])

        def store(index: int) -> None:
            rows.add(batch[index], texts[index])

        fault.run(_LINK, link)
        fault.run(_CREATED, created, stop=1)
        fault.run(_CLOCK, lambda index: self._clocks.add(batch[index]))
        # The rows go in before the play that precedes them in each event's steps: an undo may
        # fold again from older records, which the play reads back from the rows (an earlier
        # event of this batch among them). A fault of the rows is still named after a fault of
        # the play at the same event (``fault`` orders them by step, not by when they ran).
        fault.run(_ROWS, store)
        fault.run(_PLAY, lambda index: self._play_one(batch[index]))
        fault.raise_first()
        self._last = batch[-1]

    def _play_one(self, record: EventRecord) -> None:
        if self._play is None:
            assert self.rows is not None
            self._play = PlayCheck(record, IMPORT_FIX, self.rows.records)
        else:
            self._play.add(record)

    def finish(self, exported: ExportedCampaign) -> CampaignInfo:
        """The checks over the whole file, then the rows closed (the caller's transaction
        commits them).

        Raises:
            IntegrityError: No events; the head is not the last event; the header hash or
                the signature fails; ``created_at`` is not the created event's time; the
                final state cannot be shown.
        """
        from rallypoint.store.exchange import check_header, check_signed
        from rallypoint.store.signing import seat_keys

        self.drain()
        first, last = self._first, self._last
        if (first is None or last is None or self._play is None or self._store is None
                or self._rows_open is None):
            raise IntegrityError("the imported log has no events", where=exported.campaign.id,
                                 fix="export the campaign again")
        check_header(exported, last)
        check_signed(exported, seat_keys(first.payload))
        check_created_at(exported.campaign, first)
        self._play.finish()
        self._rows_open.close()  # the rows flushed; the transaction commits after
        return self._store.campaign(exported.campaign.id)
