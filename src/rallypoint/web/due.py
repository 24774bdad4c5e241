"""What to do next, as the campaign page shows it: each pending decision and each ``Due`` item the
rules return, with the button that does it or a link to its form.

The rules say what is due as typed values (:class:`rallypoint.core.due.Due`); each ruleset's page
says, per command kind, whether a button does it at once (a command without fields: a rest day,
the next turn) or which form takes it (``DUE_ACTIONS``). Nothing reads the rules' text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import quote

from rallypoint.core.due import Due
from rallypoint.core.ruleset import Decision

T = TypeVar("T")


@dataclass(frozen=True)
class Action:
    """How the page does a kind of command: a button posting it, or a link to its form.

    Attributes:
        label: The button's or the link's words.
        link: Where the form is (``#report``; ``{subject}`` is replaced), or ``None`` for a
            button that posts the command as it is.
        field: For a button: the form field the due item's subject fills (``s:sheet``).
    """

    label: str
    link: str | None = None
    field: str | None = None


@dataclass(frozen=True)
class NextStep:
    """One line of the page's "what next" panel."""

    text: str
    command: str | None = None
    label: str | None = None
    link: str | None = None
    field: str | None = None
    subject: str | None = None


def next_steps(decisions: Iterable[Decision], due: Iterable[Due],
               actions: Mapping[str, Action], decision_link: str) -> list[NextStep]:
    """The panel's lines: decisions first (each linked to its form), then what is due.

    Args:
        decisions: The pending decisions the viewer may see.
        due: What the rules say is due, as the viewer may see it.
        actions: Command kind → how this page does it.
        decision_link: The anchor of the N-th decision's form (``#decision-{n}``).
    """
    steps = [NextStep(d.prompt, label="Decide", link=decision_link.format(n=n))
             for n, d in enumerate(decisions, start=1)]
    for item in due:
        action = actions.get(item.command or "")
        if action is None:
            steps.append(NextStep(item.text))
        elif action.link is None:
            steps.append(NextStep(item.text, item.command, action.label,
                                  field=action.field if item.subject else None,
                                  subject=item.subject))
        else:
            steps.append(NextStep(item.text, label=action.label,
                                  link=action.link.format(subject=quote(item.subject or ""))))
    return steps


def listed(context: Mapping[str, object], name: str, kind: type[T]) -> list[T] | None:
    """The page context's ``name`` as a list of ``kind`` (``None`` when the view gives none).

    Raises:
        TypeError: The view gives something else under that name (a view's bug, not input).
    """
    found = context.get(name)
    if found is None:
        return None
    if not isinstance(found, list | tuple) or not all(isinstance(x, kind) for x in found):
        raise TypeError(f"a page context's {name!r} must list {kind.__name__} values")
    return list(found)
