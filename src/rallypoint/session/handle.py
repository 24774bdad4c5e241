"""A handle on one campaign database: where it is, and the store each call opens.

A :class:`Handle` holds only the location: every call opens its own connection and closes it
before returning, so a handle is cheap to make, and one handle may serve many threads or requests
at once (SQLite's write lock orders concurrent writers). :class:`rallypoint.session.Session` is
one; the session's modules take a handle, so none of them imports the facade.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from rallypoint.core.errors import UnknownIdError
from rallypoint.errors import Hint
from rallypoint.store import EventStore
from rallypoint.store.location import exists, normalised, open_store

_HELD: ContextVar[tuple[Path | str, EventStore] | None] = ContextVar("rallypoint_held_store",
                                                               default=None)
"""The store of the :meth:`Handle.transaction` open in this context, by its location."""


class Handle:
    """Where a campaign database is, and how each call opens it.

    Args:
        path: The SQLite file (created, with its folder, on first use), or a
            ``postgresql://`` URL.
    """

    def __init__(self, path: Path | str) -> None:
        self.location = normalised(path)
        """The SQLite file, or the ``postgresql://`` URL, every call opens."""
        self.path = Path(path).expanduser()
        """The SQLite file (meaningless for a PostgreSQL URL: use :attr:`location`)."""

    @contextmanager
    def transaction(self) -> Iterator[EventStore]:
        """One write transaction for every call inside it on this database (in this thread):
        they all land together, or, on any exception, none does (e.g. a whole import)."""
        with self._store(write=True) as store, store.transaction():
            token = _HELD.set((self.location, store))
            try:
                yield store
            finally:
                _HELD.reset(token)

    @contextmanager
    def _store(self, *, write: bool = False) -> Iterator[EventStore]:
        """The store for one call: the open :meth:`transaction`'s, else a new connection (a read
        opens read-only and refuses a database that does not exist yet)."""
        held = _HELD.get()
        if held is not None and held[0] == self.location:
            yield held[1]  # inside :meth:`transaction`: part of it
            return
        # Reads open read-only: they never create the file, migrate a current one or lock it.
        if not write and not exists(self.location):
            # Nothing has been stored here yet, so no campaign a read asks for exists.
            raise UnknownIdError(f"no database at {str(self.path)!r}, so no campaigns yet",
                                 fix="check --db (or $RALLYPOINT_DB); "
                                 "a database is made by the first `rallypoint new`",
                                 instead=Hint.SERVER)
        with open_store(self.location, readonly=not write) as store:
            yield store
