"""What a ruleset declares about secrets and seats, and the fallback for one that declares none.

Each ruleset *declares* (in its plugin's ``secrets`` part, a :class:`Declaration`) which parts of
its state view and of each event payload belong to which side, which side a command or a decision
belongs to, and what a withheld event says in public. The filters of
:mod:`rallypoint.core.visibility` and :mod:`rallypoint.core.redaction` read only these
declarations, so no rule runs while filtering.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from typing_extensions import TypeIs

from rallypoint.core.errors import RallypointError
from rallypoint.core.json_types import JsonValue
from rallypoint.core.jsonpaths import Path
from rallypoint.core.viewers import Viewer

REFEREE_ONLY = "@referee"
"""An owner no side sees: only the referee and a reveal (e.g. a legacy plain dice seed)."""


@dataclass(frozen=True)
class Secret:
    """One secret part of a payload or view: where it is and whose it is."""

    path: Path
    owner: str


@dataclass(frozen=True)
class EventSecrets:
    """What one event hides.

    Attributes:
        parts: The withheld parts, each with its owner.
        sealed: Redact the event for every viewer who does not see all, even when nothing of it
            is withheld from them, so that *whether* it holds a secret does not show (a TCS turn
            tells nobody whether the other side has a sheet accruing).
        parties: Owners whose opaque withheld part the redacted event lists whether or not they
            hide anything in it this time (a TCS turn: every side), so that the redacted shape
            does not tell who had something to hide; the owners of ``parts`` are listed too.
    """

    parts: tuple[Secret, ...] = ()
    sealed: bool = False
    parties: tuple[str, ...] = ()

    @property
    def secret(self) -> bool:
        """Whether the event needs a blind (it hides something, or may)."""
        return bool(self.parts) or self.sealed

    def owners(self) -> frozenset[str]:
        """Every side something of the event belongs to."""
        return frozenset(s.owner for s in self.parts)

    def withheld_from(self, viewer: Viewer) -> tuple[str, ...]:
        """The owners whose part a redaction for ``viewer`` lists (sorted): every party and
        owner the viewer does not see."""
        return tuple(sorted(o for o in self.owners() | frozenset(self.parties)
                            if not viewer.sees(o)))


NOTHING = EventSecrets()
"""An event that hides nothing."""

Owners = Mapping[str, str]
"""What a declaration remembers between events (e.g. TCS: sheet id → side)."""


@runtime_checkable
class Declaration(Protocol):
    """What a ruleset declares about secrets and seats (its plugin's ``secrets`` part).

    Every method reads JSON (a stored scenario, a payload, a state view from ``state_json``, a
    command's JSON form), never a ruleset's state objects, so filtering needs no rule to run.
    """

    def sides(self, scenario: Mapping[str, JsonValue]) -> tuple[str, ...]:
        """The seats a campaign of this scenario has, one per side (ids)."""
        ...

    def event_secrets(self, scenario: Mapping[str, JsonValue], owners: Owners, event_type: str,
                      payload: Mapping[str, JsonValue]) -> tuple[EventSecrets, Owners]:
        """What a ruleset event hides, and what to remember for later events."""
        ...

    def public_summary(self, event_type: str, payload: Mapping[str, JsonValue]) -> str:
        """What a redacted event says in the log (``payload`` is already redacted)."""
        ...

    def may_hide(self, event_type: str) -> bool:
        """Whether an event of this type can ever hide something (else it never arrives
        redacted: a sender marking one so would dodge its hash check)."""
        ...

    def view_secrets(self, scenario: Mapping[str, JsonValue],
                     state: Mapping[str, JsonValue]) -> tuple[Secret, ...]:
        """The secret parts of a state view (paths inside ``state_json``)."""
        ...

    def decision_owner(self, scenario: Mapping[str, JsonValue], state: Mapping[str, JsonValue],
                       decision: Mapping[str, JsonValue]) -> str | None:
        """The side a pending decision belongs to (``None``: anyone's)."""
        ...

    def command_owner(self, scenario: Mapping[str, JsonValue], state: Mapping[str, JsonValue],
                      command: Mapping[str, JsonValue]) -> str | None:
        """The side a command acts for (``None``: any seated side may make it)."""
        ...


def is_declaration(found: object) -> TypeIs[Declaration]:
    """Whether a plugin's ``secrets`` part has every method of a :class:`Declaration`."""
    return isinstance(found, Declaration)


@functools.cache
def declaration_of(ruleset: str) -> Declaration:
    """The secrets declaration of a ruleset (its plugin's ``secrets`` part); a ruleset without
    one (registered at run time, say) has no secrets and one seat per side it names: none."""
    from rallypoint.core.registry import plugin

    try:
        found = plugin(ruleset)
    except RallypointError:
        return OPEN
    reference = getattr(found, "secrets", None)
    if not isinstance(reference, str):
        return OPEN
    return found.load("secrets", is_declaration)


@dataclass(frozen=True)
class OpenDeclaration:
    """A ruleset with no secrets, whose commands any seat may make (the fallback)."""

    side_ids: tuple[str, ...] = field(default=())

    def sides(self, scenario: Mapping[str, JsonValue]) -> tuple[str, ...]:
        """No sides of its own."""
        return self.side_ids

    def event_secrets(self, scenario: Mapping[str, JsonValue], owners: Owners, event_type: str,
                      payload: Mapping[str, JsonValue]) -> tuple[EventSecrets, Owners]:
        """Nothing is secret."""
        return NOTHING, owners

    def public_summary(self, event_type: str, payload: Mapping[str, JsonValue]) -> str:
        """Never needed (nothing is withheld)."""
        return event_type

    def may_hide(self, event_type: str) -> bool:
        """Nothing is secret."""
        return False

    def view_secrets(self, scenario: Mapping[str, JsonValue],
                     state: Mapping[str, JsonValue]) -> tuple[Secret, ...]:
        """Nothing is secret."""
        return ()

    def decision_owner(self, scenario: Mapping[str, JsonValue], state: Mapping[str, JsonValue],
                       decision: Mapping[str, JsonValue]) -> str | None:
        """Anyone's."""
        return None

    def command_owner(self, scenario: Mapping[str, JsonValue], state: Mapping[str, JsonValue],
                      command: Mapping[str, JsonValue]) -> str | None:
        """Anyone's."""
        return None


OPEN = OpenDeclaration()
"""The declaration of a ruleset that declares none."""
