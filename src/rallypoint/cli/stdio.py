"""``-`` as a file argument: standard input for ``import -`` and ``verify -``, standard output
for ``export -``, so turn files can go through pipes (``ssh host rallypoint export - | rallypoint
import -``). A file really called ``-`` is reached by a path with a folder in it
(``/home/me/-``; the shell's ``./-`` reaches the program as ``-``).

The session reads and writes paths, so a pipe goes through a file in a private temporary folder:
the whole of standard input is read (up to the size limit of every input file) before anything
is checked, and an export reaches standard output only once it was written whole.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STDIO = "-"
STDOUT_NAMES = frozenset({"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"})
"""Paths that name standard output itself (its summary then goes to standard error)."""


def is_stdio(path: Path) -> bool:
    """Whether ``path`` is the ``-`` that names standard input or output."""
    return str(path) == STDIO


@contextmanager
def input_path(path: Path) -> Iterator[Path]:
    """``path`` itself, or for ``-`` a file holding all of standard input."""
    from rallypoint.core.errors import DataFileError
    from rallypoint.core.inputs import MAX_EXPORT_BYTES

    if not is_stdio(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="rallypoint-") as folder:
        piped = Path(folder) / "stdin.json"
        # Copied a piece at a time, as the file is then read (an export may be large).
        size, blank = 0, True
        with piped.open("wb") as handle:
            while chunk := sys.stdin.buffer.read(1 << 20):
                size += len(chunk)
                if size > MAX_EXPORT_BYTES:
                    raise DataFileError(f"standard input is over {MAX_EXPORT_BYTES // 2**20} MiB",
                                        fix="check that the right file is piped in")
                blank = blank and not chunk.strip()
                handle.write(chunk)
        if blank:
            raise DataFileError("standard input is empty", fix="pipe an export file in, or "
                                "give its path instead of -")
        yield piped


@contextmanager
def output_path(path: Path) -> Iterator[Path]:
    """``path`` itself, or for ``-`` a file copied to standard output once written whole."""
    if not is_stdio(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="rallypoint-") as folder:
        written = Path(folder) / "export.json"
        yield written
        sys.stdout.buffer.write(written.read_bytes())
        sys.stdout.buffer.flush()
