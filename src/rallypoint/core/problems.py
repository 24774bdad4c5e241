"""One problem found in an input file: what is wrong, where (file, line, field), how to fix it.

A checker that collects *every* problem (python-chess's ``Status``: all of them, not the first)
returns a list of these; a command that stops at the first raises :meth:`Problem.error` — so both
word a problem the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rallypoint.core.errors import DataFileError

FIELD_FIX: Final = "Correct that field; docs/scenarios.md lists every field and its meaning."
"""The fix of a field a scenario's model refuses (the docs name every field)."""


@dataclass(frozen=True)
class Problem:
    """One problem in a scenario (or other input) file.

    Attributes:
        what: What is wrong, quoting the bad value.
        fix: One sentence on how to fix it.
        file: The file's name as given (``""`` for data that came from no file).
        line: The 1-based line it is on, when known.
        field: The field's path (``formations[0].companies[1].counters[0].steps``), when known.
    """

    what: str
    fix: str
    file: str = ""
    line: int | None = None
    field: str = ""

    @property
    def where(self) -> str:
        """``file:line field`` (the parts known), as ``rallypoint new`` prints it."""
        place = self.file
        if self.line is not None:
            place = f"{place}:{self.line}" if place else f"line {self.line}"
        return f"{place} {self.field}".strip()

    def error(self) -> DataFileError:
        """The problem as the error ``rallypoint new`` raises for it."""
        return DataFileError(self.what, where=self.where or None, fix=self.fix)

    @property
    def message(self) -> str:
        """The one line: ``what (at where). fix``."""
        return self.error().message

    def to_dict(self) -> dict[str, str | int | None]:
        """A JSON-ready form (for ``--json`` and the web builder)."""
        return {"code": DataFileError.code, "what": self.what, "file": self.file,
                "line": self.line, "field": self.field, "where": self.where, "fix": self.fix}
