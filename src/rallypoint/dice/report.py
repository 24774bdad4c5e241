"""What a dice audit says (:mod:`rallypoint.dice.audit`): a verdict per rolling event, and
the counts by verdict that a report's one line gives."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Verdict(StrEnum):
    """What the audit could say about one event's dice."""

    VERIFIED = "verified"
    """Re-derived from the key: these are the dice the scheme gave."""
    TYPED = "typed"
    """Physical dice typed in, marked as such; nothing to re-derive."""
    COMMITTED = "committed"
    """Drawn from a committed server secret that is not revealed yet: checkable later."""
    LEGACY = "legacy"
    """A pre-dice-v1 roll that reproduces from the campaign's public seed."""
    FAILED = "failed"
    """Does not check: see the reason."""
    WITHHELD = "withheld"
    """An event redacted for the file's reader: its dice are checked at the reveal."""


class EventDice(BaseModel):
    """The audit of one event that rolled."""

    model_config = ConfigDict(frozen=True)

    seq: int
    verdict: Verdict
    dice: int
    reason: str = ""


class DiceTally(BaseModel):
    """What a dice report's one line says, without its events: the dice and the events by
    verdict (a reveal keeps this, not every rolling event's verdict, so its memory does not
    grow with the rolls).

    Attributes:
        scheme: The campaign's dice scheme.
        dice: Dice (not events) by verdict.
        events: Events by verdict.
    """

    model_config = ConfigDict(frozen=True)

    scheme: str
    dice: dict[Verdict, int]
    events: dict[Verdict, int]

    @property
    def ok(self) -> bool:
        """No event failed."""
        return not self.events.get(Verdict.FAILED)

    def count(self, verdict: Verdict) -> int:
        """Dice (not events) with ``verdict``."""
        return self.dice.get(verdict, 0)

    def summary(self) -> str:
        """One line: ``dice-v1: 14 dice verified, 2 typed in, 0 failed``."""
        parts = [f"{self.count(v)} {label}" for v, label in (
            (Verdict.VERIFIED, "verified"), (Verdict.LEGACY, "reproduced from the public seed"),
            (Verdict.TYPED, "typed in"), (Verdict.COMMITTED, "committed, secret not revealed"),
            (Verdict.FAILED, "failed")) if self.count(v) or v is Verdict.FAILED]
        hidden = self.events.get(Verdict.WITHHELD, 0)
        tail = f"; {hidden} event(s) withheld from you, checked at the reveal" if hidden else ""
        return f"{self.scheme}: " + ", ".join(parts) + f" (dice){tail}"


class Tallies:
    """Dice and events counted by verdict as an audit goes."""

    def __init__(self) -> None:
        self.dice: dict[Verdict, int] = {}
        self.events: dict[Verdict, int] = {}

    def add(self, found: EventDice) -> None:
        """Count one rolling event's verdict and dice."""
        self.dice[found.verdict] = self.dice.get(found.verdict, 0) + found.dice
        self.events[found.verdict] = self.events.get(found.verdict, 0) + 1

    def tally(self, scheme: str) -> DiceTally:
        """The counts so far, for a campaign whose dice scheme is ``scheme``."""
        return DiceTally(scheme=scheme, dice=dict(self.dice), events=dict(self.events))


class DiceReport(BaseModel):
    """Every rolling event's verdict, and the counts by verdict."""

    model_config = ConfigDict(frozen=True)

    scheme: str
    events: tuple[EventDice, ...]

    @property
    def ok(self) -> bool:
        """No event failed."""
        return self.tally().ok

    def count(self, verdict: Verdict) -> int:
        """Dice (not events) with ``verdict``."""
        return self.tally().count(verdict)

    def summary(self) -> str:
        """One line: ``dice-v1: 14 dice verified, 2 typed in, 0 failed``."""
        return self.tally().summary()

    def tally(self) -> DiceTally:
        """The counts by verdict, without the events."""
        tallies = Tallies()
        for found in self.events:
            tallies.add(found)
        return tallies.tally(self.scheme)
