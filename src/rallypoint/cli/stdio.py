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
    from rallypoint.core.inputs import MAX_FILE_BYTES

    if not is_stdio(path):
        yield path
        return
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise DataFileError(f"standard input is over {MAX_FILE_BYTES // 2**20} MiB",
                            fix="check that the right file is piped in")
    if not data.strip():
        raise DataFileError("standard input is empty", fix="pipe an export file in, or give "
                            "its path instead of -")
    with tempfile.TemporaryDirectory(prefix="rallypoint-") as folder:
        piped = Path(folder) / "stdin.json"
        piped.write_bytes(data)
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
