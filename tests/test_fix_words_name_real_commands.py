"""A refusal's fix names commands and options a player can type (every ruleset's CLI words).

Each ruleset's front part words its typed fixes for the terminal (``front/cli_words.py``, the
plugin's ``fixes`` part). A fix that names a verb or an option the CLI does not have sends the
player nowhere: two did (``rallypoint platoon day``, ``squares sight --clear``). The oracle is
the CLI itself: the click command tree Typer builds, not the words' own tables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Protocol

import pytest
import typer.main

from rallypoint.cli.main import app
from rallypoint.core.parts import is_word_map
from rallypoint.core.registry import plugins


class Command(Protocol):
    """A command of the CLI's tree as this test reads it (click's, vendored by Typer 0.29)."""

    @property
    def params(self) -> Sequence[object]: ...


BACKTICKED = re.compile(r"`([^`]+)`")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def _tree() -> Command:
    # Typer 0.29 builds on its own vendored click: read the tree by its attributes.
    return typer.main.get_command(app)


def _verbs(command: Command | None) -> Mapping[str, Command]:
    commands: Mapping[str, Command] = getattr(command, "commands", {})
    return commands


def _options(command: Command) -> set[str]:
    return {name for param in command.params for name in getattr(param, "opts", ())
            if name.startswith("--")}


def named_but_missing(ruleset: str, words: Mapping[str, str], root: Command) -> list[str]:
    """The commands and options the fix words of ``ruleset`` name that its CLI lacks."""
    top = _verbs(root)
    verbs = _verbs(top.get(ruleset))
    every_option = set().union(*(_options(c) for c in verbs.values()))
    missing: list[str] = []
    for kind, text in words.items():
        for quoted in BACKTICKED.findall(text):
            tokens = quoted.split()
            if tokens[0] == "rallypoint":
                tokens = tokens[1:]
            if tokens and tokens[0] in top and tokens[0] != ruleset:
                sub = _verbs(top[tokens[0]])
                if len(tokens) > 1 and sub and tokens[1] not in sub:
                    missing.append(f"{kind}: {quoted}")
                continue  # a top-level command (`rallypoint show`)
            if tokens and tokens[0] == ruleset:
                tokens = tokens[1:]
            if tokens and tokens[0] not in verbs:
                missing.append(f"{kind}: {quoted}")
        missing += [f"{kind}: {option}" for option in OPTION.findall(text)
                    if option not in every_option]
    return missing


@pytest.mark.parametrize("name", [n for n, p in plugins().items() if p.fixes is not None])
def test_every_fix_names_a_command_and_options_the_cli_has(name: str) -> None:
    words = plugins()[name].load("fixes", is_word_map)
    assert named_but_missing(name, words, _tree()) == []


def test_a_fix_naming_a_verb_or_option_the_cli_lacks_is_caught() -> None:
    # The two words that were wrong before, planted back: the check must name both.
    planted = {"new_year": "Play the new year's days first (`rallypoint platoon day`).",
               "sight": "Give --clear or --blocked to make one.",
               "fine": "Use `rallypoint platoon rest` or `rallypoint show`."}
    assert named_but_missing("platoon", planted, _tree()) == [
        "new_year: rallypoint platoon day", "sight: --clear", "sight: --blocked"]
