"""A plugin's parts are checked when loaded, not trusted; a bare ruleset registers as itself
(issue 21).

:meth:`RulesetPlugin.load` takes the part's run-time check (``is_demo_part``, ...) and gives the
part as that type; what a plugin names must pass it, or the load is refused in one line naming
the ruleset, the part and the reference. The oracle for the parts that load is the reference
itself, imported here by hand.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterator

import pytest
from typing_extensions import TypeIs

from rallypoint.cli.generic import is_render, is_typer_app
from rallypoint.core.declarations import is_declaration
from rallypoint.core.erased import rules_of
from rallypoint.core.errors import UnknownIdError
from rallypoint.core.parts import is_demo_part, is_lab_part, is_odds_part, is_word_map
from rallypoint.core.readings import is_readings_part
from rallypoint.core.registry import (
    RulesetPlugin,
    get_ruleset,
    plugin,
    plugins,
    register,
    registered,
    unregister,
)
from rallypoint.web.builder_part import is_builder_part
from rallypoint.web.rulesets import is_ruleset_view

CHECKS: dict[str, Callable[[object], bool]] = {
    "cli": is_typer_app, "render": is_render, "odds_cli": is_typer_app,
    "simulate_cli": is_typer_app, "lab": is_lab_part, "secrets": is_declaration,
    "readings": is_readings_part, "web": is_ruleset_view, "builder": is_builder_part,
    "words": is_word_map, "demo": is_demo_part, "odds": is_odds_part, "fixes": is_word_map}
"""Every part a plugin may name that is loaded as an object (``templates`` names a package)."""


def _checked_by(check: Callable[[object], bool]) -> Callable[[object], TypeIs[object]]:
    # Each check narrows to its own part's type (TypeIs is invariant): one table of them all
    # loads every part as an object.
    def narrowed(found: object) -> TypeIs[object]:
        return check(found)
    return narrowed


def _by_hand(reference: str) -> object:
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


@pytest.mark.parametrize("name", sorted(plugins()))
def test_every_part_an_installed_plugin_names_passes_its_check(name: str) -> None:
    found = plugin(name)
    declared = {part: getattr(found, part) for part in CHECKS if getattr(found, part)}
    assert declared, f"{name} names no front part: nothing checked"
    for part, reference in declared.items():
        assert found.load(part, _checked_by(CHECKS[part])) is _by_hand(reference), part
    assert rules_of(found.ruleset()) is _by_hand(found.rules)


@pytest.fixture()
def planted() -> Iterator[str]:
    """A module of wrong parts, and a plugin ``planted`` naming them."""
    module = types.ModuleType("planted_parts")
    module.__dict__.update(WORDS={"turn": "rallypoint squares turn", "rest": 3},  # not text
                           NOT_A_VIEW={"template": "planted/page.html"},
                           TEXT="print the campaign")
    sys.modules[module.__name__] = module
    register(RulesetPlugin(name="planted", rules="planted_parts:TEXT",
                           words="planted_parts:WORDS", web="planted_parts:NOT_A_VIEW",
                           render="planted_parts:TEXT", demo="planted_parts:WORDS"))
    try:
        yield "planted"
    finally:
        unregister("planted")
        del sys.modules[module.__name__]


@pytest.mark.parametrize(("part", "check", "reference", "kind"), [
    ("words", is_word_map, "planted_parts:WORDS", "dict"),
    ("web", is_ruleset_view, "planted_parts:NOT_A_VIEW", "dict"),
    ("render", is_render, "planted_parts:TEXT", "str"),
    ("demo", is_demo_part, "planted_parts:WORDS", "dict")])
def test_a_part_that_is_not_what_its_part_must_be_is_refused(
        planted: str, part: str, check: Callable[[object], bool], reference: str,
        kind: str) -> None:
    with pytest.raises(UnknownIdError) as refused:
        plugin(planted).load(part, _checked_by(check))
    assert refused.value.what == (f"the planted ruleset's {part!r} part {reference!r} is a "
                                  f"{kind}, not what a {part!r} part must be")
    assert refused.value.fix == ("Point " + part + " at the object RulesetPlugin's docstring "
                                 "names for it (docs/own-ruleset.md).")


def test_rules_that_are_not_a_ruleset_are_refused(planted: str) -> None:
    with pytest.raises(UnknownIdError) as refused:
        get_ruleset(planted)
    assert refused.value.what == ("the planted ruleset's 'rules' part 'planted_parts:TEXT' is "
                                  "a str, not what a 'rules' part must be")


def test_an_undeclared_part_is_refused_before_any_check(planted: str) -> None:
    with pytest.raises(UnknownIdError) as refused:
        plugin(planted).load("lab", is_lab_part)
    assert refused.value.what == "the planted ruleset has no 'lab' part"


def test_a_bare_ruleset_registered_at_run_time_is_found_as_itself_with_no_parts() -> None:
    # docs/rules/platoon.md: a ruleset built with other hooks, registered under its own name.
    from rallypoint.rulesets.platoon import PlatoonRuleset
    from rallypoint.rulesets.platoon.section9 import Hooks

    mine = PlatoonRuleset(hooks=Hooks(cohesion_after_stranger=lambda cohesion, rules: 0))
    # Compared as objects: what the registry gives is the same ruleset behind its erased
    # wrapper (rallypoint.core.erased), one wrapper per ruleset.
    found: list[object] = []
    try:
        assert register(mine) is mine
        found += [get_ruleset("platoon"), registered()["platoon"]]
        assert plugin("platoon") == RulesetPlugin("platoon", rules="")
    finally:
        unregister("platoon")
    found.append(get_ruleset("platoon"))
    assert [rules_of(f) is mine for f in found] == [True, True, False]
    assert found[0] is found[1]
    assert plugin("platoon").rules == "rallypoint.rulesets.platoon.ruleset:RULESET"
