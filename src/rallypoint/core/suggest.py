"""Ids as a player types them: case-insensitive matching and "did you mean …" suggestions.

Any ruleset or front end can use these; they know nothing of a ruleset. Matching is exact first,
then exact ignoring case; near misses are offered by :mod:`difflib` (ignoring case), never picked.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from rallypoint.errors import Fix, MalformedInputError, UnknownIdError


def near(text: str, known: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """Up to ``n`` known ids closest to ``text`` (ignoring case), best first.

    Args:
        text: What the player typed.
        known: The ids that exist.
        n: How many suggestions at most.
        cutoff: :func:`difflib.get_close_matches` similarity (0..1) a suggestion must reach.
    """
    by_fold: dict[str, str] = {}
    for ident in known:
        by_fold.setdefault(ident.casefold(), ident)
    hits = difflib.get_close_matches(text.casefold(), list(by_fold), n=n, cutoff=cutoff)
    return [by_fold[h] for h in hits]


def did_you_mean(text: str, known: Iterable[str]) -> str:
    """``"Did you mean A or B? "`` for the nearest known ids, or ``""`` when none is near."""
    hits = near(text, known)
    return f"Did you mean {' or '.join(hits)}? " if hits else ""


def match_id(text: str, known: Iterable[str], what: str, *, scope: str = "",
             where: str | None = None, fix: str | Fix = "", instead: str | None = None) -> str:
    """The known id ``text`` names: itself, else the one id equal to it ignoring case.

    Args:
        text: What the player typed.
        known: The ids that exist.
        what: The kind of id, for the message (``"counter"``).
        scope: Words after the id in the message (``"in this scenario"``).
        where: Where the id was given (optional, for the error).
        fix: The fix sentence (or a ruleset's typed :class:`Fix`) to end the error with
            (after any suggestion).
        instead: The error's typed hint for front ends that word the fix their own way.

    Raises:
        UnknownIdError: No id matches (the message suggests the nearest ones).
        MalformedInputError: Several ids differ only by case (they are listed).
    """
    ids = list(known)
    if text in ids:
        return text
    folded = [i for i in ids if i.casefold() == text.casefold()]
    if len(folded) == 1:
        return folded[0]
    if folded:
        raise MalformedInputError(f"{text!r} could be {' or '.join(folded)}", where=where,
                                  fix=f"Type the {what} id with its exact case.")
    suggestion = did_you_mean(text, ids)
    said = fix.led(suggestion) if isinstance(fix, Fix) else (suggestion + fix).strip() or None
    raise UnknownIdError(f"no {what} {text!r}" + (f" {scope}" if scope else ""), where=where,
                         fix=said, instead=instead)


def soft_match(text: str, known: Iterable[str]) -> str:
    """The known id equal to ``text`` ignoring case, if exactly one is; else ``text`` unchanged
    (for a caller that refuses an unknown id in its own words)."""
    ids = list(known)
    folded = [i for i in ids if i.casefold() == text.casefold()]
    return text if text in ids or len(folded) != 1 else folded[0]


def foreign_command(command: object) -> str:
    """Another ruleset's command in words (``a tcs command 'turn'``), never a class name.

    For the refusal of a command handed to the wrong ruleset.
    """
    parts = type(command).__module__.split(".")
    owner = parts[2] if parts[:2] == ["rallypoint", "rulesets"] and len(parts) > 2 else None
    kind = getattr(command, "kind", None)
    return (f"a {owner} command" if owner else "that command") + \
        (f" {kind!r}" if isinstance(kind, str) else "")
