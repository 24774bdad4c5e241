"""Each seat's view of a log shown whole, folded one event at a time beside it.

In a hidden game each seat's database decided its events against the log as it held it: the
other seats' secrets redacted. :func:`rallypoint.session.rederive.check_log` therefore decides
an event again against the whole log and, when that differs, against its seat's view
(``rederive._SeatView``, the whole log redacted for that seat, then folded). The streamed passes
(the reveal, :mod:`rallypoint.session.reveal_stream`; a whole log imported as a new campaign,
:mod:`rallypoint.session.turn_stream`) fold the same views one event at a time: each event
redacted for each seat as it comes (:func:`rallypoint.core.redaction.redact_record`, with what
it hides from :class:`rallypoint.session.stream_secrets.Secrets`), so memory holds each view's
running state, not the log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rallypoint.core.campaign import Campaign
from rallypoint.core.declarations import EventSecrets
from rallypoint.core.differences import Difference
from rallypoint.core.events import EventRecord
from rallypoint.core.folding import LogFold
from rallypoint.core.redaction import redact_record
from rallypoint.core.visibility import Viewer
from rallypoint.session.rederive import decide_again
from rallypoint.session.stream_secrets import Secrets, kept_only

__all__ = ["Replay", "SeatViews", "ViewsOnDemand"]

Replay = Callable[[int, int, Callable[[EventRecord], None]], None]
"""Gives each record with a seq in ``[first, stop)``, in order, to a callback: the log read
again (an import's own rows; a verified file, read from its start)."""


class SeatViews:
    """The seats' views of a log, folded in step with it (see the module docstring).

    An undo reaching back past what a view's fold keeps raises
    :class:`~rallypoint.session.stream_secrets.Forgotten` (its fold reads nothing again): the
    streamed pass then leaves the log to the whole check.

    Args:
        first: The ``created`` event.
        seats: The seats whose views are folded.
    """

    def __init__(self, first: EventRecord, seats: Iterable[str]) -> None:
        self._views = {seat: (Viewer.of_side(seat), LogFold(first, kept_only))
                       for seat in sorted(seats)}

    def campaign(self, seat: str) -> Campaign | None:
        """The campaign as ``seat``'s database held it after the events added so far
        (``None``: not one of the seats)."""
        held = self._views.get(seat)
        return None if held is None else held[1].campaign()

    def add(self, record: EventRecord, hides: EventSecrets) -> None:
        """Fold the next event into each seat's view, redacted for that seat.

        Args:
            record: The next event, shown whole (or as this database holds it).
            hides: What it hides (``Secrets.of(record)``).
        """
        for viewer, fold in self._views.values():
            fold.add(redact_record(record, hides, viewer))


class ViewsOnDemand:
    """The seats' views of a log that is folded anyway, each started only when an event needs
    it: ``rederive.check_log`` decides an event again in its seat's view when it differs
    against the log as it is, so a log whose events all decide as they are folds no view, and
    one whose such events are all one seat's folds that seat's alone.

    A view is folded from the log read again up to the first event that needs it
    (``replay``), then in step (:meth:`add`).

    Args:
        first: The ``created`` event.
        seats: The seats whose views may be asked for.
        replay: Reads the log again.
    """

    def __init__(self, first: EventRecord, seats: Iterable[str], replay: Replay) -> None:
        self._first, self._seats, self._replay = first, frozenset(seats), replay
        self._views: dict[str, tuple[SeatViews, Secrets]] = {}
        self.used = False
        """Whether an event was what its command decides only in its seat's view."""

    def decides(self, record: EventRecord, seat: object) -> bool:
        """Whether ``record`` (the next event) is what its command decides against the log as
        ``seat``'s database held it (the other seats' secrets redacted).

        Raises:
            Forgotten: Folding a view reached back past what it keeps (an undo).
        """
        if not isinstance(seat, str) or seat not in self._seats:
            return False
        if seat not in self._views:
            views, secrets = SeatViews(self._first, [seat]), Secrets(self._first)
            secrets.of(self._first)
            self._replay(2, record.seq, lambda row: views.add(row, secrets.of(row)))
            self._views[seat] = views, secrets
        view = self._views[seat][0].campaign(seat)
        if view is None or isinstance(decide_again(view, record), Difference):
            return False
        self.used = True
        return True

    def add(self, record: EventRecord) -> None:
        """Fold the next event into each view started."""
        for views, secrets in self._views.values():
            views.add(record, secrets.of(record))
