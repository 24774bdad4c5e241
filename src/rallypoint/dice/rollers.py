"""Rollers pick the faces of a chance node; rule code never calls an RNG.

* :class:`SeededRoller` — deterministic from a seed and a stream label, by a derivation that
  depends only on HMAC-SHA256 (not on Python's or numpy's generator streams), documented in
  ``docs/dice.md`` and pinned by test vectors.
* :class:`ScriptedRoller` — takes faces from a list (tests, the CLI's ``--dice 5,1,4``).
* :class:`PromptRoller` — asks for each die as it is rolled, naming the roll's purpose (the
  CLI's ``--ask-dice``: physical dice typed in one at a time).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Protocol, TypeVar

from rallypoint.dice.nodes import ChanceNode, Read, Roll, fraction_text
from rallypoint.errors import Hint, MalformedInputError

T = TypeVar("T")


class Roller(Protocol):
    """Anything that can pick faces for a chance node."""

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        """Return one face per die of ``node.dice``, each in 1..sides."""
        ...


class SeededRoller:
    """Deterministic faces from ``HMAC-SHA256(key=seed, msg=stream ":" block)``.

    Derivation (stable across Python and numpy versions):

    1. Block ``i`` (``i`` = 0, 1, 2, …) is ``HMAC-SHA256(key=seed, msg=f"{stream}:{i}".encode())``,
       32 bytes.
    2. Bytes are consumed in order, block after block.
    3. For a die of ``s`` sides (2 ≤ s ≤ 256), a byte ``b`` is rejected when
       ``b >= 256 - 256 % s``; otherwise the face is ``b % s + 1``. Rejection keeps every face
       exactly equally likely.

    Args:
        seed: The secret key (the campaign's seed), as bytes or text (UTF-8).
        stream: A label that separates independent streams, e.g. ``"campaign-id/v12"``.
    """

    def __init__(self, seed: bytes | str, stream: str) -> None:
        self._key = seed.encode() if isinstance(seed, str) else seed
        self._stream = stream
        self._block = 0
        self._buffer = b""
        self._pos = 0

    def _next_byte(self) -> int:
        if self._pos >= len(self._buffer):
            message = f"{self._stream}:{self._block}".encode()
            self._buffer = hmac.new(self._key, message, hashlib.sha256).digest()
            self._block += 1
            self._pos = 0
        byte = self._buffer[self._pos]
        self._pos += 1
        return byte

    def face(self, sides: int) -> int:
        """One uniformly chosen face in 1..sides."""
        if not 2 <= sides <= 256:
            raise MalformedInputError(
                f"a seeded die must have 2..256 sides, not {sides}",
                fix="Use a smaller die or combine several.",
            )
        limit = 256 - 256 % sides
        while True:
            byte = self._next_byte()
            if byte < limit:
                return byte % sides + 1

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        """Faces for every die of ``node``."""
        return tuple(self.face(node.dice.sides) for _ in range(node.dice.count))


class ScriptedRoller:
    """Faces taken in order from a script, one value per die.

    Raises :class:`MalformedInputError` naming the roll when the script runs out or a value does
    not fit the die, so a ``--dice`` typo is caught before anything is written.
    """

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._pos = 0

    @classmethod
    def parse(cls, text: str) -> ScriptedRoller:
        """Parse ``"5,1,4"`` (commas or spaces)."""
        parts = [p for p in text.replace(",", " ").split() if p]
        try:
            return cls(int(p) for p in parts)
        except ValueError:
            raise MalformedInputError(
                f"the dice {text!r} are not a list of whole numbers",
                fix="Write the faces separated by commas, e.g. --dice 5,1,4.",
                instead=Hint.DICE) from None

    @property
    def used(self) -> int:
        """How many values have been consumed."""
        return self._pos

    @property
    def remaining(self) -> int:
        """How many values are left."""
        return len(self._values) - self._pos

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        """The next ``node.dice.count`` values, checked against the die."""
        count, sides = node.dice.count, node.dice.sides
        if self.remaining < count:
            raise MalformedInputError(
                f"the scripted dice ran out at {node.purpose!r} "
                f"(needs {count} more, {self.remaining} left)",
                fix="Give more values to --dice, one per die, in the order the rolls happen.",
                instead=Hint.DICE)
        picked = tuple(self._values[self._pos : self._pos + count])
        for value in picked:
            if not 1 <= value <= sides:
                raise MalformedInputError(
                    f"scripted die value {value} does not fit a d{sides} at {node.purpose!r}",
                    fix=f"Use values between 1 and {sides}.",
                )
        self._pos += count
        return picked


class PromptRoller:
    """Physical dice typed in one die at a time, as the rules ask for them.

    ``ask(node, index)`` returns the face of die ``index`` (0-based) of ``node``; it sees the
    node's purpose, dice and modifiers, so a prompt can say what the roll is for. Rolls that
    depend on earlier ones (recovery rolls only after an implementation succeeds) are asked for
    only when they happen. :attr:`typed` keeps every face in order, so the same faces can be
    handed on as a script (``--dice``) to record the command.

    Args:
        ask: Returns one face; a value that does not fit the die is refused here too.
    """

    def __init__(self, ask: Callable[[ChanceNode, int], int]) -> None:
        self._ask = ask
        self.typed: list[int] = []

    def faces(self, node: ChanceNode) -> tuple[int, ...]:
        """Ask for each die of ``node`` in turn."""
        picked = tuple(self._ask(node, n) for n in range(node.dice.count))
        for value in picked:
            if not 1 <= value <= node.dice.sides:
                raise MalformedInputError(
                    f"die value {value} does not fit a d{node.dice.sides} at {node.purpose!r}",
                    fix=f"Type values between 1 and {node.dice.sides}.")
        self.typed.extend(picked)
        return picked


def die_prompt(node: ChanceNode, index: int) -> str:
    """What to ask for die ``index`` of ``node`` (``rest implementation check: d66; tens die``).

    Names the roll's purpose, the dice, which die of several, and its modifiers, so a player
    rolling by hand knows what each throw is for.
    """
    dice = node.dice
    if dice.count == 1:
        which = "the die"
    elif dice.read is Read.TENS_UNITS:
        which = "tens die" if index == 0 else "units die"
    else:
        which = f"die {index + 1} of {dice.count}"
    mods = "".join(f", {m.value:+d} {m.name}" for m in node.modifiers)
    return f"{node.purpose}: {dice.label}{mods}; {which} (1-{dice.sides})"


def roll(
    node: ChanceNode,
    roller: Roller,
    reading: Callable[[int], str] | None = None,
    odds: Callable[[ChanceNode], str] | None = None,
    law: Mapping[str, Fraction] | None = None,
) -> Roll:
    """Roll ``node`` with ``roller`` and record everything needed to explain it.

    Args:
        node: The chance node.
        roller: Picks the faces.
        reading: Turns the modified total into the rules' outcome (``"3 steps"``).
        odds: Describes the exact odds; by default, the probability of the outcome read.
        law: The exact distribution of ``reading``'s outcomes, when the caller already has it
            (saves enumerating the node again for every roll).

    Returns:
        The stored :class:`Roll`.
    """
    faces = roller.faces(node)
    total = node.total(faces)
    outcome = reading(total) if reading else ""
    if odds is not None:
        odds_text = odds(node)
    elif reading is not None:
        p = law.get(outcome, Fraction(0)) if law is not None else node.probability(
            lambda v: reading(v) == outcome)
        odds_text = f"P({outcome}) = {fraction_text(p)}"
    else:
        odds_text = ""
    return Roll(
        purpose=node.purpose,
        dice=node.dice.label,
        faces=faces,
        natural=node.dice.value(faces),
        modifiers=node.modifiers,
        total=total,
        outcome=outcome,
        odds=odds_text,
    )


def replay_faces(rolls: Sequence[Roll]) -> ScriptedRoller:
    """A scripted roller that reproduces ``rolls`` exactly (handy for re-deciding a command)."""
    return ScriptedRoller(f for r in rolls for f in r.faces)
