"""A turn file given as a pipe (a FIFO, a shell's ``<(…)``), read once and kept for a second read.

The streamed import (:mod:`rallypoint.session.turn_stream`) may hand a file to the whole check
after reading it, and a pipe can be read only once. So a pipe is first copied, a piece at a
time, into a private temporary file (deleted however the import ends), and both read that. The
copy stops one byte past the input limit: a pipe that goes on past it is then given to the
whole check as a pipe again (fed from the copy), which refuses it at the same point with the
same line as the original. Either way, a refusal names the pipe, not the copy.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Final

from rallypoint.core.errors import RallypointError
from rallypoint.core.inputs import shorten

PIECE: Final = 1 << 20
"""Bytes copied at a time."""


def is_pipe(path: Path) -> bool:
    """Whether ``path`` is something that can be read only once (not a regular file, a folder
    or missing: the reader says what is wrong with those)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def spooled(path: Path, limit: int) -> Iterator[Path]:
    """``path`` itself, or for a pipe a copy of what it gives (see the module docstring).

    Args:
        path: The file as given.
        limit: The most bytes the reader takes (the export limit).

    Raises:
        RallypointError: Whatever the body raises, naming ``path`` where it named the copy.
    """
    if not is_pipe(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="rallypoint-") as folder:
        copy = Path(folder) / "turn.json"
        with path.open("rb") as source, copy.open("wb") as out:
            left = limit + 1
            while left > 0 and (piece := source.read(min(PIECE, left))):
                out.write(piece)
                left -= len(piece)
        # (No named pipes without mkfifo: the copy then, refused by its size.)
        over = left <= 0 and hasattr(os, "mkfifo")
        with _as_pipe(copy) if over else _same(copy) as given:
            try:
                yield given
            except RallypointError as exc:
                raise _naming(exc, given, path) from None


@contextmanager
def _same(copy: Path) -> Iterator[Path]:
    yield copy


@contextmanager
def _as_pipe(copy: Path) -> Iterator[Path]:
    """A named pipe fed from ``copy`` by a thread, for a reader that stops at its limit."""
    fifo = copy.with_suffix(".pipe")
    os.mkfifo(fifo, 0o600)

    def feed() -> None:
        with suppress(OSError), fifo.open("wb") as sink, copy.open("rb") as source:
            while piece := source.read(PIECE):
                sink.write(piece)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        yield fifo
    finally:
        # A reader that never opened it, or stopped reading: open and close the read end, so
        # the feeder's open or write returns.
        with suppress(OSError):
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        feeder.join(10)


def _naming(exc: RallypointError, copy: Path, path: Path) -> RallypointError:
    """``exc`` with ``path`` where it names ``copy`` (shortened in its text, as the reader
    shows a path there)."""
    exc.what = exc.what.replace(str(copy), shorten(str(path), 120))
    if exc.where is not None:
        exc.where = exc.where.replace(str(copy), str(path))
    if exc.fix is not None:
        exc.fix = exc.fix.replace(str(copy), str(path))
    exc.args = (exc.message,)
    return exc
