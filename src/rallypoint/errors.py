"""One root error with subclasses by kind of wrongness.

Every error carries a stable ``code`` (for ``--json`` consumers and tests), says *what* is wrong,
*where* (a file:line, a field, a counter id) and ends with *how to fix it*. The CLI prints
``str(error)`` as one line and exits with status 2; nothing is written when one is raised.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import ClassVar


class Hint(StrEnum):
    """A fix each front end words its own way, when it is not "do that command instead" (a
    command's kind, e.g. ``"rest"``): the CLI keeps the error's ``fix``, which names its own
    commands and options; a web page names its own boxes and buttons (``web.words.HINTS``)."""

    PICK_ID = "pick_id"
    """Use an id as the campaign shows it."""
    FIX_FIELD = "fix_field"
    """Correct a field of the command (an option on the command line, a box on a page)."""
    DICE = "dice"
    """Type the dice otherwise, or let the campaign's dice roll."""
    BY_MAIL = "by_mail"
    """A step of play by e-mail (turn files, seat cards, sealed rounds, the reveal), done with
    the player's own database."""
    SERVER = "server"
    """The database, the install or the server needs the attention of whoever keeps it."""
    IMPORT_FILE = "import_file"
    """Choose another file to import, or give the import another name."""
    LAB = "lab"
    """A simulation the lab runs from its own commands."""


@dataclass(frozen=True)
class Fix:
    """A fix in typed form, so rules hold no front end's words (issue 21): the ruleset names it
    by ``key`` and says it in words no front end owns (``text``); each front end may word it its
    own way (the CLI names its commands and options from the words its ruleset's plugin publishes
    as ``fixes``, :func:`rallypoint.cli.session.fail`).

    Attributes:
        ruleset: The ruleset whose words tables name ``key``.
        key: Which fix it is.
        text: The fix in plain words (what the library, its API and the web without a hint say);
            ``{name}`` is filled from ``values``.
        values: Ids the fix names (``("company", "1-A")``), for ``{company}`` in any wording.
        lead: Words said before the fix (a "did you mean" suggestion), in every front end.
    """

    ruleset: str
    key: str
    text: str
    values: tuple[tuple[str, str], ...] = ()
    lead: str = ""

    def worded(self, words: str | None = None) -> str:
        """The fix in ``words`` (a front end's own for ``key``; default: :attr:`text`), its
        ``{name}`` fields filled, after the lead."""
        return (self.lead + (words or self.text).format(**dict(self.values))).strip()

    def led(self, lead: str) -> Fix:
        """The same fix, said after ``lead``."""
        return replace(self, lead=lead)


class RallypointError(Exception):
    """Root of every error rallypoint raises on purpose.

    Args:
        what: What is wrong, quoting the bad input with ``!r`` where there is one.
        where: Where it is: ``file.toml:12``, ``formations[0].companies[2].counters[1].steps``,
            or a counter/company id. Optional.
        fix: One sentence on how to fix it, or a :class:`Fix` (a ruleset's typed fix, which each
            front end may word its own way; ``fix`` is then its plain words and ``typed_fix``
            the value). Optional but almost always given.
        at: Where it is in typed form, when it is a place in a command or file the rules read: the
            path of names from the top (``("report", "tanks", "3", "ordnance_days")``), so a front
            end finds the place without splitting ``where`` (issue 21). ``where``, when not
            given, is this path joined by dots, as every front end showed it before.
        instead: The kind of command that does what the player meant (``"rest"`` for a report
            on a day with no action), when the fix is "do that instead", or a :class:`Hint`: a
            typed hint each front end words its own way (the CLI keeps ``fix``, the web names
            its button or box), so no front end reads the fix's text. Optional; every fix that
            names a command line command or option has one (tests/web/test_web_words.py).
    """

    code: ClassVar[str] = "error"

    def __init__(self, what: str, *, where: str | None = None, fix: str | Fix | None = None,
                 instead: str | None = None, at: tuple[str, ...] = ()) -> None:
        self.what = what
        self.at = at
        self.where = where if where is not None or not at else ".".join(at)
        self.typed_fix = fix if isinstance(fix, Fix) else None
        self.fix = fix.worded() if isinstance(fix, Fix) else fix
        self.instead = instead
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The one-line message: ``what (at where). fix``."""
        text = self.what
        if self.where:
            text += f" (at {self.where})"
        if self.fix:
            text = text.rstrip(".") + ". " + self.fix
        return text

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, str | None]:
        """A JSON-ready form of the error."""
        return {"code": self.code, "what": self.what, "where": self.where, "fix": self.fix}


class MalformedInputError(RallypointError):
    """The input is not well formed: wrong type, unknown id, bad syntax."""

    code = "malformed-input"


class UnknownIdError(MalformedInputError):
    """An id (counter, company, formation, sheet, campaign) that does not exist."""

    code = "unknown-id"


class IllegalNowError(RallypointError):
    """Well-formed, but the rules do not allow it in the current state."""

    code = "illegal-now"


class StaleVersionError(RallypointError):
    """A command was made against an older state version than the campaign's current one."""

    code = "stale-version"


class DataFileError(RallypointError):
    """A data file or scenario file is missing, unreadable, or invalid."""

    code = "bad-data-file"


class StoreError(RallypointError):
    """The event store cannot do what was asked (missing campaign, integrity failure)."""

    code = "store"


class IntegrityError(StoreError):
    """The event log fails verification: a broken hash chain or a gap in sequence numbers."""

    code = "integrity"


class MissingExtraError(RallypointError):
    """A command needs an optional part of rallypoint that this install left out (an extra)."""

    code = "missing-extra"
