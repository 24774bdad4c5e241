"""What every CLI command shares: the store, the chosen campaign, rollers, and error output.

The CLI is a thin shell: it builds a command, asks the library to decide it, appends the event to
the store, and prints. Heavy modules are imported inside functions so ``rallypoint --help``
starts fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from rallypoint.core.campaign import Campaign
    from rallypoint.core.errors import RallypointError
    from rallypoint.core.events import NewEvent
    from rallypoint.core.ruleset import Command
    from rallypoint.dice import Roller
    from rallypoint.store import EventStore

CampaignOpt = Annotated[str | None, typer.Option(
    "--campaign", "-c", help="Campaign name or id (default: the most recently active).")]
"""The ``--campaign`` option every campaign command takes."""
DiceOpt = Annotated[str | None, typer.Option(
    "--dice", help="Script the dice, one value per die in roll order, e.g. 6,6,5,1,4.")]
"""The ``--dice`` option every rolling command takes."""
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
"""The ``--json`` option every read command takes."""

console = Console()
err_console = Console(stderr=True)


@dataclass
class Settings:
    """Options given before the subcommand (``rallypoint --db PATH ...``)."""

    db: Path | None = None


SETTINGS = Settings()


def fail(error: RallypointError) -> NoReturn:
    """Print one line for a refused command and exit with status 2 (nothing was written)."""
    err_console.print(f"[bold red]error[/] [dim]({error.code})[/]: {escape(error.message)}",
                      highlight=False, soft_wrap=True)
    raise typer.Exit(2)


@contextmanager
def guarded() -> Iterator[None]:
    """Turn every :class:`RallypointError` into one line and exit status 2."""
    from pydantic import ValidationError

    from rallypoint.core.errors import MalformedInputError, RallypointError

    try:
        yield
    except RallypointError as error:
        fail(error)
    except ValidationError as exc:
        # A command model refused a value (``--steps 0``): one line, like every other refusal.
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or exc.title
        fail(MalformedInputError(f"{field}: {first['msg']}", where=exc.title,
                                 fix="See the command's --help for the values it takes."))


@contextmanager
def open_store() -> Iterator[EventStore]:
    """Open the event store chosen by ``--db``, ``RALLYPOINT_DB`` or the user data dir."""
    from rallypoint.store import EventStore, default_db_path

    path = SETTINGS.db or default_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with EventStore(path) as store:
        yield store


def store_campaign(name: str, ruleset: str, created: NewEvent) -> str:
    """Store a new campaign from its ``created`` event; return its id."""
    import uuid

    with open_store() as store:
        campaign_id = uuid.uuid4().hex
        store.create_campaign(campaign_id, name, ruleset, created)
    return campaign_id


def load(store: EventStore, ref: str | None) -> Campaign:
    """The campaign named by ``ref`` (name, id or id prefix), else the most recently active."""
    from rallypoint.core.campaign import Campaign
    from rallypoint.core.errors import UnknownIdError

    if ref is None:
        info = store.latest()
        if info is None:
            raise UnknownIdError("there are no campaigns in this database",
                                 fix="Create one with `rallypoint new SCENARIO.toml`.")
    else:
        info = store.find(ref)
    return Campaign.from_events(store.events(info.id))


def current(ref: str | None) -> Campaign:
    """Load a campaign for a read command (one line and exit 2 if there is none)."""
    with guarded(), open_store() as store:
        return load(store, ref)


def roller_for(campaign: Campaign, dice: str | None) -> Roller:
    """A scripted roller for ``--dice``, else the campaign's seeded roller at this version."""
    from rallypoint.dice import ScriptedRoller, SeededRoller

    if dice is not None:
        return ScriptedRoller.parse(dice)
    # Keyed by the campaign's seed and version only (not its random store id): a campaign made
    # with `new --seed S` rolls the same dice wherever it is created.
    return SeededRoller(campaign.seed, f"v{campaign.version}")


def execute(ref: str | None, build: Callable[[Campaign], Command], dice: str | None,
            as_json: bool = False, roller: Roller | None = None, quiet: bool = False) -> Campaign:
    """Decide a command against the current campaign, append its event, print what happened.

    ``roller`` overrides the campaign's seeded roller (``simulate --seed``); ``quiet`` prints
    nothing.
    """
    from rallypoint.core.errors import MalformedInputError
    from rallypoint.dice import ScriptedRoller

    with guarded(), open_store() as store:
        campaign = load(store, ref)
        command = build(campaign)
        roller = roller if roller is not None else roller_for(campaign, dice)
        event = campaign.decide(command, roller)
        if isinstance(roller, ScriptedRoller) and roller.remaining:
            raise MalformedInputError(
                f"--dice gave {roller.used + roller.remaining} value(s) but the command used "
                f"{roller.used}", fix="Drop the extra values (nothing was recorded).")
        record = store.append(campaign.campaign_id, campaign.version + 1, event)
        after = campaign.with_event(record)
    if quiet:
        return after
    if as_json:
        print_json({"seq": record.seq, "type": record.type, "payload": record.payload})
    else:
        console.print(f"[dim]#{record.seq}[/] "
                      + escape(after.ruleset.describe(record.type, record.payload)),
                      highlight=False)
        pending = after.ruleset.pending(after.state)
        if pending:
            console.print(f"[yellow]{len(pending)} decision(s) pending[/]: "
                          + escape("; ".join(d.prompt for d in pending)), highlight=False)
    return after


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
