"""Reading TOML input files with errors that name the file and line.

Shared by every ruleset's scenario loader: a missing file, a TOML syntax error (with its line) and
a validation error (with the line of the offending key, found from its path) all become one
:class:`DataFileError` line.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rallypoint.core.errors import DataFileError
from rallypoint.core.inputs import check_value, read_text, shorten
from rallypoint.core.problems import FIELD_FIX, Problem
from rallypoint.errors import Hint

M = TypeVar("M", bound=BaseModel)

_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    """Parse a TOML file; return the data and the raw text (for line lookups).

    The file is size-capped and must be UTF-8; the parsed data may not nest deeper than
    :data:`~rallypoint.core.inputs.MAX_DEPTH`, hold ``nan``/``inf`` or integers beyond 64 bits.

    Raises:
        DataFileError: The file is missing, unreadable, too large, not UTF-8, not valid TOML, or
            holds a value outside those limits.
    """
    path = Path(path)
    try:
        missing = not path.exists()
    except OSError:  # a name the file system cannot even look up: read_text says why
        missing = False
    if missing:
        raise DataFileError(
            f"no such file: {shorten(str(path), 200)!r}",
            fix="Check the path (`rallypoint scenarios` lists the shipped ones).",
            instead=Hint.FIX_FIELD)
    text = read_text(path, "scenario file")
    return parse_toml(text, str(path)), text


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """Parse TOML ``text`` (read from ``where``, a file name for messages) within the limits of
    :func:`read_toml`.

    Raises:
        DataFileError: Not valid TOML (with its line), or a value outside the limits.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _LINE.search(message)
        where = f"{where}:{match.group(1)}" if match else where
        what = shorten(_LINE.sub("", message).strip(), 120)
        raise DataFileError(
            f"TOML syntax error: {what}", where=where,
            fix="Fix the syntax on that line (strings need quotes; tables need [brackets]).",
        ) from None
    except RecursionError:
        raise DataFileError("TOML nested too deeply", where=where,
                            fix="Flatten the file; scenarios nest a few levels at most.") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise DataFileError(f"TOML value refused: {shorten(str(exc), 120)}", where=where,
                            fix="Use numbers that fit in 64 bits.") from None
    check_value(data, where)
    return data


def line_of(text: str, loc: Sequence[str | int]) -> int | None:
    """Best-effort line number (1-based) of the key at ``loc`` in TOML ``text``.

    Follows arrays of tables (``[[a]]``, ``[[a.b]]``) by index, then finds the key.
    """
    lines = text.splitlines()
    position = 0
    prefix: list[str] = []
    found: int | None = None
    items = list(loc)
    i = 0
    while i < len(items):
        key = items[i]
        nxt = items[i + 1] if i + 1 < len(items) else None
        if isinstance(key, str) and isinstance(nxt, int):
            header = "[[" + ".".join([*prefix, key]) + "]]"
            count = -1
            for n in range(position, len(lines)):
                if lines[n].strip() == header:
                    count += 1
                    if count == nxt:
                        position = n
                        found = n + 1
                        break
            else:
                return found
            prefix.append(key)
            i += 2
            continue
        if isinstance(key, str) and isinstance(nxt, str):
            # A plain table: its header ``[a.b]``, when written so; else the key's own line
            # (``a = {...}`` or ``a.b = ...``) is the best there is.
            header = "[" + ".".join([*prefix, key]) + "]"
            at = next((n for n in range(position, len(lines)) if lines[n].strip() == header),
                      None)
            if at is not None:
                position, found = at, at + 1
                prefix.append(key)
                i += 1
                continue
        if isinstance(key, str):
            pattern = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*[=.]")
            for n in range(position, len(lines)):
                if pattern.match(lines[n]):
                    return n + 1
                if n > position and lines[n].lstrip().startswith("[") and found is not None:
                    break
            return found
        i += 1
    return found


def line_naming(text: str, message: str) -> int | None:
    """The line defining the first id quoted in ``message`` (for cross-reference errors)."""
    for ident in re.findall(r"'([^']+)'", message):
        pattern = re.compile(rf"^\s*id\s*=\s*\"{re.escape(ident)}\"")
        for n, line in enumerate(text.splitlines(), start=1):
            if pattern.match(line):
                return n
    return None


def validate_toml(model: type[BaseModel], data: dict[str, Any], text: str, path: Path) -> Any:
    """Validate ``data`` against ``model``; a failure names file:line, field, and a fix.

    Raises:
        DataFileError: The first problem (as :func:`validation_problems` words it), with a count
            of the rest.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, text, str(path))
        first = problems[0]
        # Not a count: problems of other kinds (an unknown side) are judged only once every
        # field is valid, so only the check knows how many there are.
        more = (" (more after it: `rallypoint scenario check` lists every problem)"
                if len(problems) > 1 else "")
        raise DataFileError(f"{first.what}{more}", where=first.where, fix=first.fix) from None


def validation_problems(exc: ValidationError, text: str, path: str) -> list[Problem]:
    """Every problem of a failed validation, each with its file:line, field and fix.

    ``rallypoint new`` reports the first of them; ``rallypoint scenario check`` all of them, in
    the same words.
    """
    problems = []
    errors = exc.errors()
    for error in errors:
        if error["type"] == "too_short" and _inside(error["loc"], errors):
            continue  # its items' own problems: the list is not short, they are bad
        loc = [p for p in error["loc"] if isinstance(p, str | int)]
        field = ".".join(
            f"[{p}]" if isinstance(p, int) else p for p in loc
        ).replace(".[", "[")
        message = str(error["msg"]).removeprefix("Value error, ")
        line = line_of(text, loc) if loc else line_naming(text, message)
        problems.append(Problem(message, FIELD_FIX, file=path, line=line, field=field))
    return problems


def _inside(loc: tuple[Any, ...], errors: Sequence[Any]) -> bool:
    """Whether another error lies inside the list at ``loc`` (pydantic counts a list whose items
    all failed as too short as well)."""
    return any(len(e["loc"]) > len(loc) and tuple(e["loc"][:len(loc)]) == tuple(loc)
               for e in errors)


def load_ruleset_file(path: Path, ruleset: str, model: type[BaseModel]) -> Any:
    """Read a scenario file for ``ruleset`` and validate it against ``model``.

    Raises:
        DataFileError: Missing file, TOML syntax error (with line), a scenario for another
            ruleset, or invalid content (with the line and field).
    """
    data, text = read_toml(path)
    named = data.get("ruleset", ruleset)
    if named != ruleset:
        raise DataFileError(
            f"scenario is for ruleset {named!r}, not {ruleset!r}", where=f"{path} ruleset",
            fix=f'Use the command of that ruleset, or set ruleset = "{ruleset}".',
        )
    return validate_toml(model, data, text, path)


def validate_data(model: type[M], raw: Mapping[str, Any], ruleset: str) -> M:
    """Validate a ruleset's (merged) ``data.toml`` into its frozen model.

    Raises:
        DataFileError: Naming the field, pointing at ``docs/rules/<ruleset>.md``.
    """
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise DataFileError(
            f"{ruleset} data is invalid: {first['msg']}",
            where="data.toml " + ".".join(str(p) for p in first["loc"]),
            fix=f"Correct the value against docs/rules/{ruleset}.md.") from None
