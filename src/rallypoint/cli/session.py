"""What every CLI command shares: the store, the chosen campaign, rollers, and error output.

The CLI is a thin shell over :mod:`rallypoint.session`: it builds a command, hands it to the
session (which decides it and stores the event), and prints. Heavy modules are imported inside
functions so ``rallypoint --help`` starts fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from rallypoint.core.errors import RallypointError
    from rallypoint.dice import Roller
    from rallypoint.session import Campaign, Command, Executed, Session

CampaignOpt = Annotated[str | None, typer.Option(
    "--campaign", "-c", help="Campaign name or id (default: the one last written to on this "
    "machine; an import does not change it).")]
"""The ``--campaign`` option every campaign command takes."""
DiceOpt = Annotated[str | None, typer.Option(
    "--dice", help="Script the dice, one value per die in roll order, e.g. 6,6,5,1,4 (or 'ask': "
                   "be asked for each die).")]
"""The ``--dice`` option every rolling command takes."""
AskDiceOpt = Annotated[bool, typer.Option(
    "--ask-dice", help="Roll physical dice: you are asked for each die, with what it is for.")]
"""The ``--ask-dice`` option: :func:`execute` asks for each die (marked typed, like ``--dice``)."""
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
"""The ``--json`` option every read command takes."""

console = Console()
err_console = Console(stderr=True)


@dataclass
class Settings:
    """Options given before the subcommand (``rallypoint --db PATH ...``)."""

    db: Path | str | None = None
    ruleset: str | None = None
    """The ruleset whose verbs are running (``rallypoint squares board``), else ``None``."""


SETTINGS = Settings()


def fail(error: RallypointError) -> NoReturn:
    """Print one line for a refused command and exit with status 2 (nothing was written).

    Each part of the line is capped (:data:`MAX_PART`): a refusal quotes the input it refuses,
    and 5,000 characters pasted into an option must not come back as a screenful.
    """
    from rallypoint.core.inputs import shorten

    line = " ".join(shorten(error.what, MAX_PART).split())
    if error.where:
        line += f" (at {shorten(error.where, MAX_PART // 2)})"
    fix = cli_fix(error)
    if fix:
        line = line.rstrip(".") + ". " + shorten(fix, MAX_PART)
    err_console.print(f"[bold red]error[/] [dim]({error.code})[/]: {escape(line)}",
                      highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def cli_fix(error: RallypointError) -> str | None:
    """The refusal's fix in the command line's words: a ruleset's typed fix worded by the words
    its plugin publishes (``fixes``, naming the CLI's commands and options), else the error's own.
    """
    from rallypoint.core.parts import is_word_map
    from rallypoint.core.registry import plugin

    said = error.typed_fix
    if said is None:
        return error.fix
    found = plugin(said.ruleset)
    words: Mapping[str, str] = found.load("fixes", is_word_map) if found.fixes is not None else {}
    return said.worded(words.get(said.key))


MAX_PART = 400
"""Most characters of a refusal's what and fix (half that of its where) echoed to the player."""


@contextmanager
def guarded() -> Iterator[None]:
    """Turn every :class:`RallypointError` into one line and exit status 2."""
    from pydantic import ValidationError

    from rallypoint.core.errors import MalformedInputError, RallypointError
    from rallypoint.session.pair import AwaitingDice

    try:
        yield
    except AwaitingDice as waiting:
        # Not a refusal: a pair-mode roll waits for the other seat (docs/two-player.md).
        console.print(f"[yellow]waiting[/]: {escape(waiting.message)}", highlight=False,
                      soft_wrap=True)
        raise typer.Exit(0) from None
    except RallypointError as error:
        fail(error)
    except ValidationError as exc:
        # A command model refused a value (``--steps 0``): one line, like every other refusal.
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or exc.title
        fail(MalformedInputError(f"{field}: {first['msg']}", where=exc.title,
                                 fix="See the command's --help for the values it takes."))
    except OSError as exc:
        # A path the file system refuses (too long, a folder, no permission) is bad input too.
        from rallypoint.core.errors import DataFileError
        from rallypoint.core.inputs import shorten

        name = shorten(str(exc.filename), 80) if exc.filename is not None else "a path"
        fail(DataFileError(f"cannot use {name!r}: {exc.strerror or exc}",
                           fix="Check the path and its permissions; nothing was written."))


def session() -> Session:
    """The library session on the database chosen by ``--db``, ``RALLYPOINT_DB`` or the data dir."""
    from rallypoint.session import Session, default_db_path

    return Session(SETTINGS.db or default_db_path())


def campaign_ref(ref: str | None) -> str:
    """``--campaign`` as given, else the CLI's own default: the most recently active campaign.

    The library never guesses a campaign; this convenience lives here and is passed explicitly.
    """
    from rallypoint.core.errors import UnknownIdError

    group = SETTINGS.ruleset
    if ref is not None and group is None:
        return ref
    if ref is None:
        # The campaign this machine last wrote to: an imported event's clock never decides it.
        last = session().last_used(group) or session().last_used()
        if last is None:
            raise UnknownIdError("there are no campaigns in this database",
                                 fix="Create one with `rallypoint new SCENARIO.toml`.")
        ref = last.id
    # `rallypoint squares board -c <a tcs campaign>` is refused by ruleset, not by a crash.
    return session().resolve(ref, ruleset=group).id


def current(ref: str | None, *, whole: bool = False) -> Campaign:
    """Load a campaign for a read command (one line and exit 2 if there is none).

    A campaign whose log fails verification is still shown, under a warning line on stderr
    (commands on it are refused by the library).
    """
    with guarded():
        chosen = campaign_ref(ref)
        problem = session().check(chosen)
        if problem is not None:
            err_console.print(
                f"[bold red]warning[/] [dim](integrity)[/]: this campaign is BROKEN at "
                f"#{problem.seq}: {escape(problem.reason)}; commands are refused until it is "
                "restored (see `rallypoint verify`, `rallypoint delete`)",
                highlight=False, soft_wrap=True)
        return session().load(chosen, whole=whole)


def execute(ref: str | None, build: Callable[[Campaign], Command], dice: str | None,
            as_json: bool = False, roller: Roller | None = None, quiet: bool = False,
            ask_dice: bool = False) -> Campaign:
    """Decide a command against the campaign through the session API, print what happened.

    ``roller`` overrides the campaign's seeded roller; ``quiet`` prints nothing; ``ask_dice``
    asks for each die at the terminal (:func:`asked_dice`).
    """
    if dice is not None and dice.strip().casefold() == "ask":
        # ``--dice ask`` is --ask-dice for every command that takes --dice (any ruleset).
        dice, ask_dice = None, True
    if ask_dice:
        dice, build = asked_dice(ref, build, dice)
    with guarded():
        done = session().execute(campaign_ref(ref), build, dice=dice,
                                 roller=None if roller is None else (lambda _c: roller))
    if not quiet:
        report(done, as_json)
    return done.campaign


def asked_dice(ref: str | None, build: Callable[[Campaign], Command],
               dice: str | None) -> tuple[str | None, Callable[[Campaign], Command]]:
    """Ask for each die of a command as the rules roll it; return them as a ``--dice`` script.

    The command is decided in memory first with a :class:`~rallypoint.dice.rollers.PromptRoller`
    (a refused command asks for no die, and a roll that depends on an earlier one is asked only
    when it happens); the typed faces then record it as ``--dice`` would, marked typed in the
    log. No lock is held while the player rolls; the command keeps the version it was made
    against, so a campaign changed meanwhile refuses it as stale.
    """
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.dice.rollers import PromptRoller

    with guarded():
        if dice is not None:
            raise MalformedInputError("give --dice or --ask-dice, not both",
                                      fix="--dice types every die at once; --ask-dice asks each.")
    c = current(ref)
    with guarded():
        command = build(c)
        asker = PromptRoller(_ask_die)
        c.decide(command, asker)
    typed = ",".join(str(v) for v in asker.typed)
    return (typed or None), (lambda _c: command)


def _ask_die(node: Any, index: int) -> int:
    from rallypoint.dice.rollers import die_prompt

    sides = node.dice.sides
    while True:
        answer = typer.prompt(die_prompt(node, index), err=True)
        if answer.strip().isdigit() and 1 <= int(answer) <= sides:
            return int(answer)
        err_console.print(f"a d{sides} shows 1 to {sides}; roll again and type the face",
                          highlight=False)


def report(done: Executed, as_json: bool = False) -> None:
    """Print a recorded command: ``#seq summary`` and any pending decisions, or its JSON."""
    if as_json:
        print_json(done.to_json())
        return
    # Every write names the campaign it went to: a bare command picks the default campaign.
    console.print(f"{escape(done.campaign.name)} [dim]#{done.record.seq}[/] "
                  + escape(done.summary), highlight=False)
    if done.pending:
        console.print(f"[yellow]{len(done.pending)} decision(s) pending[/]: "
                      + escape("; ".join(d.prompt for d in done.pending)), highlight=False)


def print_json(value: Any) -> None:
    """Write JSON to stdout (no colour, stable key order)."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def pairs(values: list[str] | None, option: str) -> dict[str, str]:
    """Parse repeated ``KEY=VALUE`` options."""
    from rallypoint.core.errors import MalformedInputError

    result: dict[str, str] = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise MalformedInputError(f"{option} {item!r} is not KEY=VALUE",
                                      fix=f"Write it like {option} 1/ErP112=23.15.")
        result[key.strip()] = value.strip()
    return result


def int_pairs(values: list[str] | None, option: str) -> dict[str, int]:
    """Parse repeated ``ID=N`` options with whole-number values."""
    from rallypoint.core.errors import MalformedInputError

    result = {}
    for key, value in pairs(values, option).items():
        try:
            result[key] = int(value)
        except ValueError:
            raise MalformedInputError(f"{option} {key}={value!r}: not a whole number",
                                      fix=f"Write it like {option} {key}=3.") from None
    return result
