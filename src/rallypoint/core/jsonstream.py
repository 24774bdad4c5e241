"""A JSON object read from a file piece by piece, its one long array an item at a time.

A campaign export is one JSON object whose ``events`` array holds the whole log: 100 000 events
are about 67 MiB of text. Reading the text whole, then the parsed tree whole, then the validated
events, held three copies of the log at once. Here the file is read in chunks and each item of
the long array is parsed, checked (:func:`rallypoint.core.inputs.check_value`) and handed to the
caller alone, so the text and the tree of only one item are held at a time.

The same limits as :mod:`rallypoint.core.inputs` hold (strict numbers, bounded nesting), and two
more bound memory whatever the file says: one value (an event, a header field) at most
``max_value`` characters of text, the whole file at most ``max_bytes`` bytes, counted as it is
read (a pipe or a device that never ends is refused at that point, not read into memory).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Final

from rallypoint.core.errors import DataFileError
from rallypoint.core.inputs import (
    MAX_DEPTH,
    MAX_STRING,
    _bounded_int,
    _finite_float,
    _refuse_constant,
    check_value,
    shorten,
)
from rallypoint.errors import Hint

CHUNK: Final = 1 << 20
"""Bytes read from the file at a time."""
MAX_MEMBERS: Final = 100
"""Most members the top-level object may have (an export has eight)."""
_LONGEST_TOKEN: Final = 8
"""Characters of a literal, number start or ``\\uXXXX`` escape the chunk's end may cut."""
_SPACE: Final = re.compile(r"[ \t\n\r]*")
_LONG_INT: Final = 19
"""Characters (sign included) from which an integer's text may be out of range: up to 18, it is
under 10**18, well inside 64 bits."""


@dataclass
class Streamed:
    """What :func:`read_object` read besides the streamed items.

    Attributes:
        members: Every other member of the object, parsed and checked.
        lines: The 1-based line of each member's key (to point at a field).
        streamed: How many items the long array held (``None``: the object has no such array;
            its key, if present with another value, is in :attr:`members`).
    """

    members: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    streamed: int | None = None


@dataclass(frozen=True)
class Limits:
    """How much of a file :func:`read_object` reads before refusing it.

    Attributes:
        max_bytes: The whole file, in bytes.
        max_value: One member's or one item's JSON text, in characters.
    """

    max_bytes: int
    max_value: int


Item = Callable[[Any, int], None]
"""Called with each item of the long array (parsed and checked) and its 0-based index."""
Ready = Callable[[Streamed], None]
"""Called once, when the long array starts, with the members read before it."""


def read_object(path: Path, what: str, key: str, item: Item, limits: Limits,
                ready: Ready | None = None) -> Streamed:
    """Read the JSON object in ``path``, handing each item of its ``key`` array to ``item``.

    Raises:
        DataFileError: Missing or unreadable, over a limit, not UTF-8, not JSON, not an object, a
            member twice, or a value outside :mod:`rallypoint.core.inputs`' limits (one line).
    """
    path = Path(path)
    shown = shorten(str(path), 120)
    try:
        if path.is_dir():
            raise DataFileError(f"{what} {str(path)!r} is a folder, not a file", where=str(path),
                                fix="pass the path of the file itself")
        size = path.stat().st_size
        if path.is_file() and size > limits.max_bytes:
            raise DataFileError(f"{what} is {size / 2**20:.1f} MiB; the limit is "
                                f"{_mib(limits.max_bytes)}", where=str(path),
                                fix="check that this is the right file")
        with path.open("rb") as handle:
            reader = _Reader(handle, str(path), what, limits)
            return reader.read_object(key, item, ready)
    except FileNotFoundError:
        raise DataFileError(f"{what} {shown!r} does not exist", fix="check the path") from None
    except OSError as exc:
        raise DataFileError(f"cannot read {what} {shown!r}: {exc.strerror}",
                            fix="check the path and the file's permissions") from None


def _mib(size: int) -> str:
    return f"{size / 2**20:g} MiB"


def _maybe_cut(exc: json.JSONDecodeError, length: int) -> bool:
    """Whether the decoder may have failed only because the text read so far ends mid-value
    (a string, or a literal, number or escape at the very end); junk earlier is an error now."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= length - _LONGEST_TOKEN


class _Ints:
    """The parser's integers: :func:`~rallypoint.core.inputs._bounded_int`, noting one long
    enough to be out of range (:meth:`_Reader._may_be_refused`)."""

    def __init__(self) -> None:
        self.long = False
        """An integer of :data:`_LONG_INT` characters or more was parsed since this was reset."""

    def __call__(self, text: str) -> int:
        if len(text) < _LONG_INT:
            return int(text)
        self.long = True
        return _bounded_int(text)


class _Reader:
    """The file's decoded text from the last unread value on, refilled a chunk at a time."""

    def __init__(self, handle: BinaryIO, where: str, what: str, limits: Limits) -> None:
        self._handle = handle
        self._where = where
        self._what = what
        self._limits = limits
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._text = ""
        self._pos = 0
        self._eof = False
        self._bytes = 0  # read so far
        self._raw_lines = 0  # newlines in the bytes read before the current chunk
        self._lines = 0  # newlines in the text dropped before ``_text``
        self._ints = _Ints()
        self._json = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=self._ints,
                                      parse_float=_finite_float)

    def read_object(self, key: str, item: Item, ready: Ready | None) -> Streamed:
        out = Streamed()
        if self._peek() != "{":
            self._not_an_object()
        self._pos += 1
        if self._peek() == "}":
            self._pos += 1
            self._end()
            return out
        while True:
            name, line = self._member_name(out)
            if name == key and self._peek() == "[":
                if ready is not None:
                    ready(out)
                out.streamed = self._array(item)
            else:
                out.members[name] = self._value(name)
            out.lines[name] = line
            if self._next_in("}", "object") == "}":
                break
        self._end()
        return out

    def _member_name(self, out: Streamed) -> tuple[str, int]:
        if self._peek() != '"':
            self._invalid("Expecting property name enclosed in double quotes")
        line = self._line_at(self._pos)
        name = self._value("a member name")
        if name in out.lines or name in out.members:
            raise DataFileError(f"{self._what} names {shorten(repr(name), 40)} twice",
                                where=f"{self._where}:{line}",
                                fix="this is not a file rallypoint wrote; ask for it again")
        if len(out.lines) >= MAX_MEMBERS:
            raise DataFileError(f"{self._what} has more than {MAX_MEMBERS} members",
                                where=f"{self._where}:{line}",
                                fix="this is not a file rallypoint wrote; ask for it again")
        if self._peek() != ":":
            self._invalid("Expecting ':' delimiter")
        self._pos += 1
        self._peek()
        return name, line

    def _array(self, item: Item) -> int:
        self._pos += 1  # the "["
        if self._peek() == "]":
            self._pos += 1
            return 0
        index = 0
        while True:
            self._peek()
            item(self._value(f"item {index}"), index)
            index += 1
            if self._next_in("]", "array") == "]":
                return index

    def _next_in(self, close: str, kind: str) -> str:
        """Past the ``,`` or the closing bracket after a value; return which it was."""
        found = self._peek()
        if found not in (",", close):
            self._invalid("Expecting ',' delimiter" if found else f"Unterminated {kind}")
        self._pos += 1
        if found == ",":
            self._peek()
        return found

    def _value(self, path: str) -> Any:
        """The JSON value at the read position, checked; more text is read until it parses."""
        while True:
            self._ints.long = False
            try:
                value, end = self._json.raw_decode(self._text, self._pos)
            except json.JSONDecodeError as exc:
                if _maybe_cut(exc, len(self._text)) and self._more():
                    continue
                self._invalid(exc.msg, exc.pos)
            except RecursionError:
                raise DataFileError(f"JSON nested too deeply (more than {MAX_DEPTH} levels)",
                                    where=self._where, fix="this is not a file rallypoint "
                                    "wrote; ask for it again") from None
            except ValueError as exc:
                raise DataFileError(f"JSON value refused: {exc}", where=self._where,
                                    fix="use finite numbers that fit in 64 bits") from None
            if end > len(self._text) - _LONGEST_TOKEN and self._more():
                continue  # a number may go on in the next chunk ("1.5e" read as 1.5)
            if self._may_be_refused(end):
                check_value(value, f"{self._where} {path}")
            self._pos = end
            return value

    def _may_be_refused(self, end: int) -> bool:
        """Whether :func:`~rallypoint.core.inputs.check_value` might refuse the value just parsed
        (its text from the read position to ``end``): each event of a long log is checked from
        its text, counted in C, rather than walked in Python.

        The parse itself refused every non-finite number and every integer of more than 19
        digits, so the walk can only refuse: nesting deeper than ``MAX_DEPTH`` (as many ``[``
        or ``{`` at least), a string longer than ``MAX_STRING`` characters (a text longer
        still), or an integer of 19 digits past 64 bits (noted by :class:`_Ints`). Where
        none of these can be, it would pass; elsewhere it runs, and refuses as ever.
        """
        text, start = self._text, self._pos
        return (self._ints.long or end - start > MAX_STRING
                or text.count("[", start, end) + text.count("{", start, end) > MAX_DEPTH)

    def _more(self) -> bool:
        """Read another chunk, as the value may be cut by the chunk's end (the decoder cannot
        tell a value cut short from a malformed one); ``False`` when the file is over."""
        if self._eof:
            return False
        if len(self._text) - self._pos > self._limits.max_value:
            raise DataFileError(
                f"{self._what} holds a value over {_mib(self._limits.max_value)} "
                f"(line {self._line_at(self._pos)})", where=self._where,
                fix="this is not a file rallypoint wrote; ask for it again")
        self._fill()
        return True

    def _peek(self) -> str:
        """The next character after whitespace (``""`` at the end of the file)."""
        while True:
            match = _SPACE.match(self._text, self._pos)
            assert match is not None  # the pattern matches the empty string
            self._pos = match.end()
            if self._pos < len(self._text) or self._eof:
                return self._text[self._pos:self._pos + 1]
            self._fill()

    def _fill(self) -> None:
        """Drop the text already read and append the next chunk, decoded."""
        self._lines += self._text.count("\n", 0, self._pos)
        self._text = self._text[self._pos:]
        self._pos = 0
        chunk = self._handle.read(CHUNK)
        self._bytes += len(chunk)
        if self._bytes > self._limits.max_bytes:
            raise DataFileError(
                f"{self._what} goes on past {_mib(self._limits.max_bytes)}, the limit "
                "(a pipe or device that does not end?)", where=self._where,
                fix="check that this is the right file")
        self._eof = not chunk
        try:
            self._text += self._decoder.decode(chunk, final=self._eof)
        except UnicodeDecodeError as exc:
            offset = self._bytes - len(chunk) + exc.start
            line = self._raw_lines + chunk.count(b"\n", 0, exc.start) + 1
            raise DataFileError(f"{self._what} is not UTF-8 text (byte {offset + 1} is invalid)",
                                where=f"{self._where}:{line}",
                                fix="save it as UTF-8, or ask for the file again") from None
        self._raw_lines += chunk.count(b"\n")

    def _line_at(self, pos: int) -> int:
        return self._lines + self._text.count("\n", 0, pos) + 1

    def _invalid(self, msg: str, pos: int | None = None) -> None:
        at = self._pos if pos is None else pos
        line = self._line_at(at)
        column = at - self._text.rfind("\n", 0, at)
        raise DataFileError(f"not valid JSON: {msg} at line {line}, column {column}",
                            where=f"{self._where}:{line}",
                            fix="repair the JSON at that spot, or ask for the file again")

    def _end(self) -> None:
        if self._peek():
            self._invalid("Extra data")

    def _not_an_object(self) -> None:
        """Anything but an object is refused: parsed first (bounded), so junk says why."""
        if not self._peek():
            self._invalid("Expecting value")
        self._value("")
        self._end()
        raise DataFileError(f"{self._what} does not contain a JSON object",
                            where=f"{self._where}:1", fix="pass a file made by rallypoint export",
                            instead=Hint.IMPORT_FILE)
