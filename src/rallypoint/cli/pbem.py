"""Play by e-mail on the command line: ``export``/``import`` of turn files, ``seat`` and ``dice``.

A thin shell over :mod:`rallypoint.session.pbem`; docs/two-player.md walks through a game.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rallypoint.cli.session import (
    CampaignOpt,
    JsonOpt,
    campaign_ref,
    console,
    err_console,
    guarded,
    print_json,
    report,
    session,
)

if TYPE_CHECKING:
    from rallypoint.session.pbem import SeatCard

ForOpt = Annotated[str | None, typer.Option(
    "--for", help="The seat the turn file is for: signed by your seat, without your secrets.")]


def export(
    file: Annotated[Path, typer.Argument(help="JSON file to write (- for standard output; "
                                             "the summary then goes to standard error).")],
    campaign: CampaignOpt = None,
    for_seat: ForOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Export a campaign to one JSON file: a turn file for the other seat (--for), or a backup."""
    from rallypoint.cli.stdio import STDOUT_NAMES, is_stdio, output_path
    from rallypoint.session.pbem import export_turn

    # With the file on standard output (-, /dev/stdout, a pipe), the summary must not mix in.
    with guarded():
        piped = is_stdio(file) or str(file) in STDOUT_NAMES or (
            file.exists() and not file.is_file())
        with output_path(file) as target:
            done = export_turn(session(), campaign_ref(campaign), target, for_seat=for_seat)
    out = err_console if piped else console
    if as_json:
        if piped:
            sys.stderr.write(json.dumps(fields(done, file=str(file)), indent=2) + "\n")
        else:
            print_json(fields(done, file=str(file)))
        return
    line = f"exported {_events(done.events)} to " + (
        "standard output" if is_stdio(file) else escape(str(file)))
    if done.sender is not None:
        line += f", signed by {done.sender}" + (f" for {done.reader}" if done.reader else "")
    if done.request is not None:
        line += f"; with your dice request (round {done.request.round})"
    if done.answered is not None:
        line += f"; with your dice answer (round {done.answered})"
    if done.withheld:
        line += f"; your secrets withheld in {_events(done.withheld)}"
    if done.partial and done.reader is None:
        line += (f"; the other seat's {_events(done.partial)} as your database holds them "
                 "(redacted; `rallypoint reveal` merges them)")
    if done.revealed:
        line += "; with the revealed dice secret"
    out.print(line, highlight=False, soft_wrap=True)


def import_(
    file: Annotated[Path, typer.Argument(help="JSON file from `rallypoint export` (- for "
                                             "standard input).")],
    name: Annotated[str | None, typer.Option(help="Name for a new campaign.")] = None,
    as_name: Annotated[str | None, typer.Option(
        "--as", help="Keep the file as a new campaign of this name (e.g. a fork of yours).")]
    = None,
    as_json: JsonOpt = False,
) -> None:
    """Import a campaign (or the newer events of one you have) from an export file.

    The whole file is checked first (header, signature, hash chain, head, clocks, dice, and a
    replay of every event through its rules); a file that fails any check, repeats what you
    have, or forks from your history is refused and nothing is written.
    """
    from rallypoint.cli.stdio import input_path
    from rallypoint.session.pbem import import_turn

    with guarded(), input_path(file) as source:
        done = import_turn(session(), source, name=name, as_name=as_name)
    if as_json:
        print_json(fields(done, file=str(file)))
        return
    what = (f"imported {escape(done.info.name)} as a new campaign "
            f"({_events(done.info.version)})" if done.forked else
            f"imported {escape(done.info.name)} ({_events(done.info.version)}, "
            f"{done.new_events} new)")
    if done.sender is not None:
        what += f", signed by {done.sender} (key {done.fingerprint})"
    if done.withheld:
        what += f"; {done.sender or 'the sender'}'s secrets withheld in {_events(done.withheld)}"
    console.print(what, highlight=False, soft_wrap=True)
    if done.owed:
        console.print(f"your hidden bookkeeping caught up: {_events(done.owed)} appended "
                      "(`rallypoint log` shows them)", highlight=False, soft_wrap=True)
    if done.note is not None:
        console.print(f"[yellow]note[/]: {escape(done.note)}", highlight=False, soft_wrap=True)
    if done.request is not None:
        console.print(f"{done.request.seat} asks for your dice link (round "
                      f"{done.request.round}): `rallypoint dice answer`", highlight=False)
    if done.resolved is not None:  # the file answered this seat's sealed dice round
        console.print(f"{done.sender} answered your sealed dice round; your kept command is "
                      "decided with both links:", highlight=False, soft_wrap=True)
        report(done.resolved)


def _events(count: int) -> str:
    return f"{count} event" + ("" if count == 1 else "s")


def fields(done: object, **first: object) -> dict[str, Any]:
    """What ``--json`` prints for a result dataclass (``Exported``, ``Imported``): ``first``,
    then every field by its name (a ``CampaignInfo`` ``info`` as ``campaign``), models as JSON.

    Built from the dataclass's own fields, so a field the library adds shows up here too.
    """
    out: dict[str, Any] = dict(first)
    assert dataclasses.is_dataclass(done) and not isinstance(done, type)
    for field in dataclasses.fields(done):
        value = getattr(done, field.name)
        dump = getattr(value, "model_dump", None)  # a pydantic model (no import: --help is fast)
        as_json = getattr(value, "to_json", None)  # an Executed (a resolved sealed round)
        out["campaign" if field.name == "info" else field.name] = (
            dump(mode="json") if callable(dump) else as_json() if callable(as_json) else value)
    return out


seat_app = typer.Typer(help="Seats for two-player play: your key and dice chain, and the "
                            "campaign made from both seats' cards.", no_args_is_help=True)


@seat_app.command("new")
def seat_new(
    side: Annotated[str, typer.Argument(help="The side you play (e.g. soviet).")],
    card: Annotated[Path, typer.Option(help="Where to write your public seat card.")]
    = Path("seat.json"),
    physical_dice: Annotated[bool, typer.Option(
        "--physical-dice", help="Agree to typed-in physical dice (--dice): allowed only when "
        "every seat's card agrees.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Make your seat: a signing key and a dice chain kept here, and a card to send."""
    from rallypoint.session import write_atomically
    from rallypoint.session.pbem import fingerprint, new_seat

    with guarded():
        made = new_seat(session(), side, physical_dice=physical_dice)
        write_atomically(card, made.model_dump_json(indent=2) + "\n", "the seat card")
    if as_json:
        print_json({"file": str(card), "seat": made.seat, "fingerprint": fingerprint(made.key),
                    "card": made.model_dump(mode="json")})
        return
    console.print(f"seat {escape(made.seat)}: key {fingerprint(made.key)}; card written to "
                  f"{escape(str(card))} (send it to your opponent)", highlight=False,
                  soft_wrap=True)


@seat_app.command("start")
def seat_start(
    scenario: Annotated[Path, typer.Argument(
        help="Scenario TOML file, or a shipped scenario's name (`rallypoint scenarios`).")],
    card: Annotated[list[Path], typer.Option(help="Every seat's card (yours and theirs).")],
    name: Annotated[str | None, typer.Option(help="Campaign name (default: file name).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Start a two-seat campaign from every seat's card (pair-mode dice: no trusted server)."""
    from rallypoint.cli.scenario_titles import shipped_scenario
    from rallypoint.session.pbem import create_seated

    with guarded():
        cards = [_card(path) for path in card]
        info = create_seated(session(), shipped_scenario(scenario), cards, name=name)
    seats = sorted(c.seat for c in cards)
    if as_json:
        print_json({"campaign": info.model_dump(mode="json"), "seats": seats})
        return
    console.print(f"created campaign [bold]{escape(info.name)}[/] ({info.ruleset}, id "
                  f"{info.id[:8]}), seats {', '.join(seats)}",
                  highlight=False)


def _card(path: Path) -> SeatCard:
    from pydantic import ValidationError

    from rallypoint.core.errors import DataFileError
    from rallypoint.core.inputs import read_text
    from rallypoint.session.pbem import SeatCard

    try:
        return SeatCard.model_validate_json(read_text(path, "seat card"))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "card"
        raise DataFileError(f"{path} is not a seat card ({field}: {first['msg']})",
                            where=str(path), fix="pass a card made by `rallypoint seat new`"
                            ) from None


dice_app = typer.Typer(help="dice-v1 in two-player play: answer a dice request, give up on a "
                            "stalled round, reveal the server secret.", no_args_is_help=True)


@dice_app.command("answer")
def dice_answer(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Answer the other seat's dice request with your link only (it shows you no dice).

    Send it back with `rallypoint export --for SIDE`; their import decides their command.
    """
    from rallypoint.dice.sealed import PairAnswer
    from rallypoint.session.pbem import answer

    with guarded():
        done = answer(session(), campaign_ref(campaign))
    if isinstance(done, PairAnswer):  # a sealed round: only the link goes back
        if as_json:
            print_json(done.model_dump(mode="json"))
            return
        console.print(f"your link for sealed dice round {done.round} is kept (their command "
                      "stays sealed: nothing was decided here); send it back with `rallypoint "
                      "export --for SIDE FILE`", highlight=False, soft_wrap=True)
        return
    report(done, as_json)


@dice_app.command("stall")
def dice_stall(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Give up waiting on a dice round the other seat has stopped answering or resolving.

    Your request with no answer yet is withdrawn (you may play on; you never saw a die). Your
    answer that they have not resolved makes the round void, forfeited by them, and burnt
    (nobody may use it). `rallypoint show` says where a campaign's rounds stand.
    """
    from rallypoint.session.stall import RoundKind, stall

    with guarded():
        done = stall(session(), campaign_ref(campaign))
    if as_json:
        print_json({"kind": done.kind.value, "round": done.round, "position": done.position,
                    "forfeited_by": done.forfeited_by})
        return
    if done.kind is RoundKind.WITHDRAWN:
        line = (f"your dice request (round {done.round}) is withdrawn; you may play on. If "
                f"{done.forfeited_by}'s answer crossed it in the mail, importing it still "
                "resolves it, until you play on")
    else:
        line = (f"dice round {done.round} is void, forfeited by {done.forfeited_by} (they did "
                "not resolve it after your answer); you may play on, and your next turn file "
                "tells them")
    console.print(line, highlight=False, soft_wrap=True)


@dice_app.command("reveal")
def dice_reveal(campaign: CampaignOpt = None, as_json: JsonOpt = False) -> None:
    """Reveal the campaign's server dice secret (at the campaign's end).

    Every export then carries it, and `rallypoint verify FILE` checks every roll. No new roll may
    use it.
    """
    from rallypoint.session.pbem import reveal

    with guarded():
        secret = reveal(session(), campaign_ref(campaign))
    if as_json:
        print_json({"secret": secret})
        return
    console.print(f"revealed dice secret {secret}; exports now carry it", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``export`` and ``import`` to the top-level app."""
    app.command()(export)
    app.command("import")(import_)
