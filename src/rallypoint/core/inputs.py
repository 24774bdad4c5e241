"""Limits on untrusted JSON and TOML input: size, nesting, number range, finite floats.

Every file a user or an opponent hands rallypoint (scenario TOML, campaign exports, command JSON)
passes through here before it is validated, so the edge cases that crash or exhaust a parser —
``NaN``, integers with thousands of digits, nesting thousands deep, hundreds of megabytes of junk —
become one :class:`~rallypoint.core.errors.DataFileError` line instead of a traceback or a hang.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Final

from rallypoint.core.errors import DataFileError

MAX_FILE_BYTES: Final = 64 * 1024 * 1024
"""Largest input file read (64 MiB): a 100,000-event campaign export is well under it."""
MAX_EXPORT_BYTES: Final = 512 * 2**20
"""Largest campaign export or turn file read (512 MiB, about 750 000 TCS events). It is read as
a stream (:mod:`rallypoint.core.jsonstream`) and held only as its validated events, so this
bounds the memory an import takes (about 5 KiB an event), not how long a campaign may grow."""
MAX_EXPORT_VALUE: Final = 16 * 2**20
"""Largest single event or header field of an export, in characters of JSON text (the largest
``created`` event, a scenario with its rules data, is a few hundred KiB)."""
MAX_DEPTH: Final = 64
"""Deepest nesting of arrays and objects accepted; real files nest fewer than 10 deep."""
MAX_INT: Final = 2**63 - 1
"""Integers must fit in 64 bits (the TOML spec's range); no rule counts anywhere near it."""
MAX_STRING: Final = 100_000
"""Longest single string value, in characters."""
MAX_ERRORS_SHOWN: Final = 1
"""Validation stops at the first problem; only a count of the rest is reported, if known."""


def read_text(path: Path, what: str) -> str:
    """A file's UTF-8 text, refusing a missing, unreadable, oversized or non-UTF-8 file."""
    path = Path(path)
    try:
        if path.is_dir():
            raise DataFileError(f"{what} {str(path)!r} is a folder, not a file", where=str(path),
                                fix="pass the path of the file itself")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise DataFileError(
                f"{what} is {size / 2**20:.1f} MiB; the limit is {MAX_FILE_BYTES // 2**20} MiB",
                where=str(path), fix="check that this is the right file")
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataFileError(f"{what} {shorten(str(path), 120)!r} does not exist",
                            fix="check the path") from None
    except OSError as exc:
        raise DataFileError(f"cannot read {what} {shorten(str(path), 120)!r}: {exc.strerror}",
                            fix="check the path and the file's permissions") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataFileError(f"{what} is not UTF-8 text (byte {exc.start + 1} is invalid)",
                            where=f"{path}:{line}",
                            fix="save it as UTF-8, or ask for the file again") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 19:
        raise ValueError(f"integer {shorten(text, 24)} has {len(text)} digits; "
                         "numbers must fit in 64 bits")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {shorten(text, 24)} is out of range")
    return value


def loads_json(text: str, where: str) -> Any:
    """Parse JSON strictly: no NaN/Infinity, 64-bit integers, finite floats, bounded nesting.

    Raises:
        DataFileError: Not JSON, or a value outside the limits (with line and column if known).
    """
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int,
                           parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column "
                            f"{exc.colno}", where=f"{where}:{exc.lineno}",
                            fix="repair the JSON at that spot, or ask for the file again"
                            ) from None
    except RecursionError:
        raise DataFileError(f"JSON nested too deeply (more than {MAX_DEPTH} levels)", where=where,
                            fix="this is not a file rallypoint wrote; ask for it again") from None
    except ValueError as exc:
        raise DataFileError(f"JSON value refused: {exc}", where=where,
                            fix="use finite numbers that fit in 64 bits") from None
    check_value(value, where)
    return value


def check_value(value: Any, where: str) -> None:
    """Refuse parsed data nested deeper than :data:`MAX_DEPTH` or holding out-of-range values.

    Iterative, so it cannot itself overflow the stack on hostile input. A first pass only looks
    (no paths built: it runs on every event of every import); only data it finds at fault is
    walked again to name the path of the first bad value.

    Raises:
        DataFileError: Naming the path of the first bad value.
    """
    if not _has_bad_value(value):
        return
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        path = shorten(path, 80)
        if depth > MAX_DEPTH:
            raise DataFileError(f"data nested more than {MAX_DEPTH} levels deep",
                                where=f"{where} {path}".strip(),
                                fix="this is not a file rallypoint wrote; ask for it again")
        if isinstance(item, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k), depth + 1)
                         for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int) and abs(item) > MAX_INT:
            raise DataFileError("integer does not fit in 64 bits", where=f"{where} {path}",
                                fix="use a number in the range the rules allow")
        elif isinstance(item, float) and not math.isfinite(item):
            raise DataFileError(f"{item} is not a finite number", where=f"{where} {path}",
                                fix="use an ordinary number")
        elif isinstance(item, str) and len(item) > MAX_STRING:
            raise DataFileError(f"a text value is {len(item)} characters long (limit "
                                f"{MAX_STRING})", where=f"{where} {path}",
                                fix="shorten it")


def _has_bad_value(value: Any) -> bool:
    """Whether :func:`check_value` must refuse ``value`` (the same tests, no paths kept)."""
    level: list[Any] = [value]
    depth = 0
    while level:
        if depth > MAX_DEPTH:
            return True
        below: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is dict:
                below.extend(item.values())
            elif kind is list:
                below.extend(item)
            elif kind is str:
                if len(item) > MAX_STRING:
                    return True
            elif kind is int:
                if abs(item) > MAX_INT:
                    return True
            elif kind is float:
                if not math.isfinite(item):
                    return True
            elif kind is not bool and item is not None:
                # Anything else (a subclass, a tuple from a caller): the full walk decides.
                return True
        level = below
        depth += 1
    return False


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for echoing user input safely."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
