"""A refusal in the web's words: what is wrong, and how to fix it on this page.

The library's message ends with a fix for any front end, often in the CLI's words (a command to
type). The web never reads that text: an error whose fix is "do that command instead" carries
the command's kind in the typed ``instead`` field, and each ruleset's page names the button or
form that does it (its ``COMMANDS``); any other fix that names a command line command or option
carries a :class:`~rallypoint.errors.Hint`, worded here (:data:`HINTS`). The field an error's
typed location (``at``, else its whole ``where``) names is marked on the form (see
:mod:`.refill`), so the message leaves the machine path out; ``where`` is never split.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rallypoint.core.errors import Hint, RallypointError

FieldFor = Callable[[tuple[str, ...]], str | None]
"""A ruleset page's map from a refusal's typed location (``error.at``) to its form field."""

PREFIXES = ("s", "i", "b", "l", "ms", "mi", "j", "o", "oi")
"""The form field prefixes of :mod:`.forms`."""


HINTS: Mapping[str, str] = {
    Hint.PICK_ID: "Choose one of the ids this page lists.",
    Hint.FIX_FIELD: "Correct the marked field, then send the form again.",
    Hint.DICE: "Type one face (1 to 6) per die in the dice box, separated by commas, in the "
               "order the rolls happen, or leave the box empty for the campaign's own dice.",
    Hint.BY_MAIL: "Turn files, seat cards and sealed dice rounds belong to play by e-mail, each "
                  "player with their own database (docs/two-player.md): not to this page.",
    Hint.SERVER: "That needs whoever keeps this server (docs/hosting.md); nothing was written.",
    Hint.IMPORT_FILE: "Choose an export file made by a campaign's Export link, or give the "
                      "import another name.",
    Hint.LAB: "The lab's other simulations run on your own machine (docs/lab.md).",
}
"""The web's words for each :class:`~rallypoint.errors.Hint` an error may carry."""


def web_message(error: RallypointError, commands: Mapping[str, str] | None = None,
                fields: Mapping[str, str] | None = None) -> str:
    """One line for the page: what is wrong, then how to fix it here.

    Args:
        error: The refusal.
        commands: Command kind → what does it on this page (``"rest"`` → ``"Use the Rest day
            button."``), for an error's ``instead``.
        fields: Command field → how to put it right on this page, for an error whose typed
            location starts at that field (``("attest",)``, or ``"centers"`` for
            ``("centers", "1/ErP112")``).
    """
    text = error.what
    words = (commands or {}).get(error.instead or "")
    if words is None and error.at:
        # A field's own words first: they say which box, where a hint only says "the field".
        words = (fields or {}).get(error.at[0])
    if words is None and error.instead:
        words = HINTS.get(error.instead) or \
            f"Use the {error.instead.replace('_', ' ')} form instead."
    fix = words or error.fix
    if fix:
        text = text.rstrip(".") + ". " + fix
    return text


def field_of(error: RallypointError | None, field_for: FieldFor | None = None
             ) -> tuple[str, ...]:
    """The form field names a refusal's location may stand for, most likely first.

    A ruleset page may map its own paths (``field_for``, given the typed ``error.at``, never the
    text); otherwise a field is named by the command field it fills: ``where`` ``steps`` is the
    form's ``i:steps``, ``centers.1/ErP112`` its ``ms:centers.1/ErP112``, ``attest`` its
    ``b:attest``.
    """
    if error is None or not error.where:
        return ()
    mapped = field_for(error.at) if field_for is not None and error.at else None
    generic = [error.where] + [f"{prefix}:{error.where}" for prefix in PREFIXES]
    return tuple(([mapped] if mapped else []) + generic)


def partly_done(error: RallypointError, written: int, asked: int) -> RallypointError:
    """A refusal that came after some of a repeated command were recorded: it says so."""
    return type(error)(f"{written} of {asked} recorded (listed under Recorded), then the next "
                       f"was refused: {error.what}", where=error.where, fix=error.fix,
                       instead=error.instead, at=error.at)
