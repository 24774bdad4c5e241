"""Campaign names as typed by a user or carried by an imported file, made safe to store and show."""

from __future__ import annotations

import unicodedata
from typing import Final

from rallypoint.core.errors import MalformedInputError
from rallypoint.errors import Hint

MAX_NAME_LENGTH: Final = 80
"""Longest campaign name, in characters: a name is a label for tables and prompts, not a note."""


def clean_name(text: str) -> str:
    """A campaign name with control and format characters removed and spaces collapsed.

    Control characters (escape sequences, newlines), bidi overrides and other invisible format
    characters would reach the terminal raw or disguise one name as another, so they are
    dropped on input rather than escaped on every output.

    Raises:
        MalformedInputError: Nothing visible is left, or the name is longer than
            :data:`MAX_NAME_LENGTH` characters.
    """
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    name = " ".join(kept.split())
    if not name:
        raise MalformedInputError("a campaign name needs at least one visible character",
                                  where="name", fix="Pass a name like --name 'Kursk 1943'.",
                                  instead=Hint.FIX_FIELD)
    if len(name) > MAX_NAME_LENGTH:
        raise MalformedInputError(
            f"the campaign name is {len(name)} characters long ({name[:24]!r}…)", where="name",
            fix=f"Use at most {MAX_NAME_LENGTH} characters.")
    return name
