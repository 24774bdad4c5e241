"""A refusal in the web's words: what is wrong, and how to fix it on this page.

The library's message ends with a fix for any front end, often in the CLI's words (a command to
type). The web never reads that text: an error whose fix is "do that command instead" carries
the command's kind in the typed ``instead`` field, and each ruleset's page names the button or
form that does it (its ``COMMANDS``). The field an error's ``where`` names is marked on the form
(see :mod:`.refill`), so the message leaves the machine path out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from rallypoint.core.errors import RallypointError

FieldFor = Callable[[str], str | None]


def web_message(error: RallypointError, commands: Mapping[str, str] | None = None) -> str:
    """One line for the page: what is wrong, then how to fix it here.

    Args:
        error: The refusal.
        commands: Command kind → what does it on this page (``"rest"`` → ``"Use the Rest day
            button."``).
    """
    text = error.what
    words = (commands or {}).get(error.instead or "")
    if error.instead and words is None:
        words = f"Use the {error.instead.replace('_', ' ')} form instead."
    fix = words or error.fix
    if fix:
        text = text.rstrip(".") + ". " + fix
    return text


def field_of(error: RallypointError | None, sent: Iterable[tuple[str, str]],
             field_for: FieldFor | None = None) -> str | None:
    """The submitted form field a refusal's ``where`` names, if any.

    A ruleset page may map its own paths (``field_for``); otherwise a field is named by the
    command field it fills: ``where`` ``steps`` is the form's ``i:steps``, ``centers.1/ErP112``
    its ``ms:centers.1/ErP112``.
    """
    if error is None or not error.where:
        return None
    names = [name for name, _ in sent]
    if field_for is not None and (mapped := field_for(error.where)) in names:
        return mapped
    for name in names:
        if error.where in (name, name.partition(":")[2]):
            return name
    return None


def partly_done(error: RallypointError, written: int, asked: int) -> RallypointError:
    """A refusal that came after some of a repeated command were recorded: it says so."""
    return type(error)(f"{written} of {asked} recorded (listed under Recorded), then the next "
                       f"was refused: {error.what}", where=error.where, fix=error.fix,
                       instead=error.instead)
