"""The command line of a ruleset that brings none of its own: ``show`` and ``play``.

A ruleset's plugin may name a renderer (``render``) and a typer app of verbs (``cli``); one that
names neither still works here: ``rallypoint show`` prints its state view as an outline, and
``rallypoint play KIND FIELD=VALUE ...`` sends any of its commands, judged by the ruleset's own
``parse_command`` (bad input: one line, exit 2, nothing written).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import typer
from rich.markup import escape
from typing_extensions import TypeIs

from rallypoint.cli.session import (
    CampaignOpt,
    DiceOpt,
    JsonOpt,
    console,
    current,
    execute,
    guarded,
)
from rallypoint.core.erased import command_types
from rallypoint.core.registry import plugin
from rallypoint.core.ruleset import command_kind

if TYPE_CHECKING:
    from rallypoint.session import Campaign, Command


class Render(Protocol):
    """A ruleset's ``render`` part: how ``rallypoint show`` prints one of its campaigns."""

    def __call__(self, campaign: Campaign, /) -> None:
        """Print the campaign (the session's :class:`~rallypoint.session.Campaign`)."""
        ...


def is_render(found: object) -> TypeIs[Render]:
    """Whether a plugin's ``render`` part can be called (its parameters cannot be checked
    before the call: a function's annotations are only text)."""
    return callable(found)


def is_typer_app(found: object) -> TypeIs[typer.Typer]:
    """Whether a plugin's ``cli``, ``odds_cli`` or ``simulate_cli`` part is a typer app."""
    return isinstance(found, typer.Typer)


def renderer(ruleset: str) -> Render:
    """The ruleset's own ``render`` part, else :func:`render` (the generic outline)."""
    found = plugin(ruleset)
    if found.render is None:
        return render
    return found.load("render", is_render)


def render(campaign: Campaign) -> None:
    """``rallypoint show`` for any ruleset: the title line, the state view as an outline (one
    ``key: value`` line per scalar, nested maps indented), pending decisions, what is due."""
    from rallypoint.cli.due import print_due

    console.print(f"[bold]{escape(campaign.name)}[/] — {escape(campaign.ruleset.title)} · "
                  f"version {campaign.version}", highlight=False)
    for line in outline(campaign.ruleset.state_json(campaign.state)):
        console.print(escape(line), highlight=False, soft_wrap=True)
    for decision in campaign.ruleset.pending(campaign.state):
        console.print(f"[yellow]pending[/]: {escape(decision.prompt)}", highlight=False)
    print_due(campaign)


def outline(value: Mapping[str, Any], indent: int = 0) -> Iterator[str]:
    """A JSON object as indented lines: scalars and lists of scalars on their key's line."""
    pad = "  " * indent
    for key, item in value.items():
        if isinstance(item, Mapping) and item:
            yield f"{pad}{key}:"
            yield from outline(item, indent + 1)
        elif isinstance(item, list) and any(isinstance(i, dict | list) for i in item):
            yield f"{pad}{key}:"
            for n, entry in enumerate(item, 1):
                yield from outline(entry if isinstance(entry, Mapping) else {str(n): entry},
                                   indent + 1)
        else:
            yield f"{pad}{key}: {_scalar(item)}"


def _scalar(item: Any) -> str:
    if isinstance(item, list):
        return ", ".join(_scalar(i) for i in item) or "none"
    if item is None or item == {}:
        return "none"
    return str(item)


def play(
    kind: Annotated[str | None, typer.Argument(
        help="The command's kind (none: list the kinds the campaign's ruleset takes).")] = None,
    fields: Annotated[list[str] | None, typer.Argument(
        help="The command's fields as FIELD=VALUE (party=north); --data for nested values.",
        show_default=False)] = None,
    data: Annotated[str | None, typer.Option(
        "--data", help='The fields as one JSON object, e.g. \'{"party": "north"}\' (FIELD=VALUE '
                       "words win over it).")] = None,
    campaign: CampaignOpt = None, dice: DiceOpt = None, as_json: JsonOpt = False,
) -> None:
    """Send any command of the campaign's ruleset, built from its fields (every ruleset)."""
    if kind is None:
        _list_kinds(campaign)
        return
    with guarded():
        given = {**_data_object(data), **_fields(fields or [])}

    def build(c: Campaign) -> Command:
        return c.ruleset.parse_command({**given, "kind": kind, "expected_version": c.version})
    execute(campaign, build, dice, as_json)


def _fields(words: Sequence[str]) -> dict[str, str]:
    """``FIELD=VALUE`` words as a map (the ruleset's command model converts each value)."""
    from rallypoint.core.errors import MalformedInputError

    found: dict[str, str] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or not name.strip():
            raise MalformedInputError(f"{word!r} is not FIELD=VALUE", where="fields",
                                      fix="Write each field as FIELD=VALUE; `rallypoint play` "
                                          "lists each command's fields.")
        found[name.strip()] = value
    return found


def _data_object(data: str | None) -> dict[str, Any]:
    """``--data`` as a JSON object (one line naming the fault when it is not one)."""
    from rallypoint.core.errors import MalformedInputError

    if data is None:
        return {}
    try:
        value = json.loads(data)
    except json.JSONDecodeError as exc:
        raise MalformedInputError(f"--data is not JSON: {exc.msg}", where=f"--data column "
                                  f"{exc.colno}", fix='Give an object like \'{"party": "north"}\'.'
                                  ) from None
    if not isinstance(value, dict):
        raise MalformedInputError("--data is not a JSON object", where="--data",
                                  fix='Give an object like \'{"party": "north"}\'.')
    return value


def _list_kinds(campaign: str | None) -> None:
    """The command kinds of the campaign's ruleset and their fields, one line each."""
    c = current(campaign)
    models = command_types(c.ruleset)
    if not models:
        console.print(f"{escape(c.ruleset.name)} does not list its commands; see its docs",
                      highlight=False)
    for model in models:
        console.print(f"{command_kind(model)} {' '.join(_field_words(model))}".rstrip(),
                      highlight=False)


def _field_words(model: type[Command]) -> Sequence[str]:
    """``FIELD=VALUE`` for a required field, ``[FIELD=VALUE]`` for one with a default."""
    words = []
    for name, field in model.model_fields.items():
        if name in {"kind", "expected_version"}:
            continue
        word = f"{name}=" + name.upper()
        words.append(word if field.is_required() else f"[{word}]")
    return words


def register(app: typer.Typer) -> None:
    """Add ``play`` to the top-level verbs."""
    app.command()(play)
