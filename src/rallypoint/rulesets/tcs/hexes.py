"""TCS hex numbers (``23.15``: column 23, row 15) and the distance between them.

TCS maps number hexes by column and row with columns offset by half a hex. Which columns sit lower
is a map property, the ``hex_offset`` parameter. A hex may carry a map-section prefix
(``A23.15``); distances across sections are not computed (the player attests instead, see
:func:`hexes_apart`). Hex text is normalised on input: ``a10.5`` is ``A10.05``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rallypoint.core.errors import IllegalNowError, MalformedInputError
from rallypoint.errors import Hint
from rallypoint.rulesets.tcs.fixes import FixKind, fix

_HEX = re.compile(r"^(?P<map>[A-Za-z]{0,2})(?P<col>\d{1,3})\.(?P<row>\d{1,3})$")


@dataclass(frozen=True, order=True)
class Hex:
    """A hex on a TCS map."""

    map: str
    col: int
    row: int

    @classmethod
    def parse(cls, text: str) -> Hex:
        """Parse ``"23.15"`` or ``"A23.15"``."""
        match = _HEX.match(text.strip())
        if not match:
            raise MalformedInputError(
                f"{text!r} is not a TCS hex number",
                fix="Write column.row as printed on the map, e.g. 23.15 (A23.15 with a map).",
            )
        return cls(match["map"].upper(), int(match["col"]), int(match["row"]))

    @classmethod
    def normal(cls, text: str) -> str:
        """The one spelling of a hex: ``"a10.5"`` → ``"A10.05"`` (section upper case, row two
        digits), so two spellings of one hex compare equal."""
        return str(cls.parse(text))

    def __str__(self) -> str:
        return f"{self.map}{self.col}.{self.row:02d}"




def distance(a: Hex, b: Hex, offset: str = "even_down") -> int:
    """Hexes between ``a`` and ``b`` (0 for the same hex, 1 for adjacent).

    Raises:
        MalformedInputError: The hexes are on different map sections.
    """
    if a.map != b.map:
        raise MalformedInputError(
            f"cannot count hexes between {a} and {b}: different map sections",
            fix="Give both hexes on the same map section, or leave the hex out and attest it.",
        )
    ax, ay, az = _cube_offset(a, offset)
    bx, by, bz = _cube_offset(b, offset)
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def _cube_offset(h: Hex, offset: str) -> tuple[int, int, int]:
    # "even_down": even columns are shifted half a hex down ("even-q" in Red Blob terms);
    # "odd_down": odd columns are ("odd-q").
    x = h.col
    if offset == "even_down":
        z = h.row - (h.col + (h.col & 1)) // 2
    else:
        z = h.row - (h.col - (h.col & 1)) // 2
    return x, -x - z, z


def hexes_apart(a: Hex, b: Hex, offset: str, attested: int | None = None) -> int:
    """Hexes between ``a`` and ``b``, counted on one map section or attested across a seam.

    Args:
        a: One hex.
        b: The other.
        offset: The ``hex_offset`` parameter.
        attested: The distance the player attests (``--attest-distance N``; ``--within-2`` is 2).
            Needed when the hexes are on different map sections, which this engine cannot lay
            side by side; on one section it must agree with the count.

    Raises:
        IllegalNowError: Different sections and nothing attested.
        MalformedInputError: An attested distance that contradicts the count on one section.
    """
    if a.map != b.map:
        if attested is None:
            raise IllegalNowError(
                f"{a} and {b} are on different map sections: the hexes between them cannot be "
                "counted here",
                fix=fix(FixKind.ATTEST_SEAM), instead=Hint.FIX_FIELD)
        return attested
    counted = distance(a, b, offset)
    if attested is not None and attested != counted and not (attested == 2 and counted <= 2):
        raise MalformedInputError(
            f"you attest {attested} hexes from {a} to {b}, but they are {counted} apart",
            fix="Attest a distance only across map sections; on one section it is counted.")
    return counted
