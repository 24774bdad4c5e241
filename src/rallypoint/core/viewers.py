"""Who is looking: a side's seat, the referee, the public, or everyone (issue 18).

A :class:`Viewer` is all the filters of :mod:`rallypoint.core.visibility` need to know about the
person a view, a log or an export is for; the rules never see one (they never branch on who is
looking).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    """What kind of viewer."""

    SIDE = "side"
    """A player's seat: sees everything public and their own side's secrets."""
    REFEREE = "referee"
    """Sees everything."""
    PUBLIC = "public"
    """Anyone without a seat (a spectator): sees only what is public."""
    ALL = "all"
    """The one local player of an unshared campaign, or anyone after the reveal."""


@dataclass(frozen=True)
class Viewer:
    """Who is looking.

    Attributes:
        role: What kind of viewer.
        side: The side's id for a :attr:`Role.SIDE` viewer, else ``None``.
    """

    role: Role = Role.ALL
    side: str | None = None
    revealed: bool = False

    @classmethod
    def of_side(cls, side: str, *, revealed: bool = False) -> Viewer:
        """A player seated as ``side`` (``revealed``: the campaign shows them everything now;
        they still act only for their side)."""
        return cls(Role.SIDE, side, revealed)

    @property
    def name(self) -> str:
        """How the viewer is named in messages (``side finland``, ``referee``)."""
        return f"side {self.side}" if self.role is Role.SIDE else self.role.value

    def sees(self, owner: str) -> bool:
        """Whether a secret of ``owner`` is shown to this viewer."""
        if self.sees_all():
            return True
        return self.role is Role.SIDE and owner == self.side

    def sees_all(self) -> bool:
        """Whether this viewer sees every secret."""
        return self.revealed or self.role in (Role.REFEREE, Role.ALL)

    def may_act_for(self, owner: str | None) -> bool:
        """Whether this viewer may make a command that belongs to ``owner`` (``None``: to no one
        side, e.g. the next turn: any seated side)."""
        if self.role in (Role.REFEREE, Role.ALL):
            return True
        return self.role is Role.SIDE and owner in (None, self.side)


EVERYTHING = Viewer(Role.ALL)
"""The viewer who sees all: a loopback player without accounts, or anyone after the reveal."""
REFEREE = Viewer(Role.REFEREE)
"""The referee's seat."""
PUBLIC = Viewer(Role.PUBLIC)
"""Everyone without a seat."""
