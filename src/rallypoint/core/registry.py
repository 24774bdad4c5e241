"""The registry: every ruleset plugs in here, and the front ends find one by name.

The core never imports a ruleset module by name: each installed ruleset declares a
:class:`RulesetPlugin` under the ``rallypoint.rulesets`` entry-point group, and everything else
looks rulesets up here. There is no ``if ruleset == ...`` anywhere. What a ruleset is (its
Protocol and the optional parts it may add) is :mod:`rallypoint.core.ruleset`; a ruleset found
here comes back erased to :data:`~rallypoint.core.erased.ErasedRuleset`, checked at its edge.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from typing_extensions import TypeIs

from rallypoint.core.erased import ErasedRuleset, erase
from rallypoint.core.errors import UnknownIdError
from rallypoint.core.ruleset import E, Ruleset, S
from rallypoint.errors import Hint

T = TypeVar("T")
"""What a plugin's part is: the type its run-time check proves (:meth:`RulesetPlugin.load`)."""


ENTRY_POINT_GROUP = "rallypoint.rulesets"
"""The entry-point group a ruleset registers under (``[project.entry-points."rallypoint.rulesets"]``
in ``pyproject.toml``): ``name = "package.module:PLUGIN"``, a :class:`RulesetPlugin`."""


@dataclass(frozen=True)
class RulesetPlugin:
    """How one ruleset plugs in: its name and where each of its parts lives.

    Every part is a ``"module:attribute"`` reference, imported only when a front end needs that
    part, so listing the rulesets costs nothing and a command loads only its campaign's ruleset.

    Attributes:
        name: The ruleset key stored in every campaign (``created`` event) of it.
        rules: The :class:`Ruleset` object.
        cli: A typer app with the ruleset's verbs (``rallypoint <name> ...``).
        render: ``render(campaign) -> None``: how ``rallypoint show`` prints a campaign of it.
        odds_cli: A typer app whose commands join ``rallypoint odds``.
        simulate_cli: A typer app whose commands join ``rallypoint simulate``.
        lab: The module of its lab simulation (whole-campaign Monte Carlo).
        secrets: Its :class:`rallypoint.core.visibility.Declaration`: what is secret to whom,
            and which side each command belongs to (none: nothing secret, any seat acts).
        readings: Its ``readings(rules_data)`` function: the clauses its seed leaves open, the
            reading taken of each and its switch (:mod:`rallypoint.core.readings`).
        web: Its campaign page, a :class:`rallypoint.web.rulesets.RulesetView`.
        templates: The package whose ``templates/`` folder holds its web page templates,
            addressed by the web as ``"<name>/<file>"`` (e.g. ``"rallypoint.rulesets.tcs.front"``
            makes ``tcs/campaign.html`` its ``front/templates/campaign.html``).
        builder: What it adds to the web's scenario builder, a
            :class:`rallypoint.web.builder_part.BuilderPart` (field suggestions, a part of the
            page of its own).
        words: Its :data:`~rallypoint.core.parts.CommandWords`: what to type for each kind of
            due command.
        demo: Its :class:`~rallypoint.core.parts.DemoPart`: its scene in ``rallypoint demo``.
        odds: Its :class:`~rallypoint.core.parts.OddsPart`: exact odds tables for the lab page.
        fixes: Its command line's words for its typed fixes (:class:`rallypoint.errors.Fix`):
            a mapping of fix key → sentence (``{name}`` filled from the fix's values).

    Every front part is optional: without ``render`` ``show`` prints the state as an outline;
    without ``cli`` ``rallypoint play KIND FIELD=VALUE`` sends its commands; without ``web`` the
    page shows its state and a form per command (:class:`CommandTypes`); without ``odds`` the
    lab page shows the exact odds of its declared chance nodes (:class:`ChanceNodes`); without
    ``words`` a due item says ``rallypoint play KIND``; without ``demo`` the demo skips it.
    See docs/own-ruleset.md.
    """

    name: str
    rules: str
    cli: str | None = None
    render: str | None = None
    odds_cli: str | None = None
    simulate_cli: str | None = None
    lab: str | None = None
    secrets: str | None = None
    readings: str | None = None
    web: str | None = None
    templates: str | None = None
    builder: str | None = None
    words: str | None = None
    demo: str | None = None
    odds: str | None = None
    fixes: str | None = None

    def load(self, part: str, check: Callable[[object], TypeIs[T]]) -> T:
        """Import one part (``"demo"``) and return it as what ``check``, the run-time test
        beside the part's type (:func:`rallypoint.core.parts.is_demo_part`), finds it is: a
        plugin is another package's code, so what it names is tested, not trusted.

        Raises:
            UnknownIdError: The ruleset has no such part, or what it names fails ``check``.
        """
        reference = getattr(self, part, None)
        if not isinstance(reference, str):
            raise UnknownIdError(f"the {self.name} ruleset has no {part!r} part",
                                 fix="Use a part its plugin declares.")
        module, _, attribute = reference.partition(":")
        found: object = getattr(importlib.import_module(module), attribute)
        if not check(found):
            raise UnknownIdError(
                f"the {self.name} ruleset's {part!r} part {reference!r} is a "
                f"{type(found).__name__}, not what a {part!r} part must be",
                fix=f"Point {part} at the object RulesetPlugin's docstring names for it "
                    "(docs/own-ruleset.md).")
        return found

    def ruleset(self) -> ErasedRuleset:
        """The ruleset itself (imports its rule modules), checked at its edge."""
        return erase(self.load("rules", _is_ruleset))


def _is_ruleset(found: object) -> TypeIs[ErasedRuleset]:
    # Only the members' presence can be tested at run time; erase() then checks every state
    # and event handed to it against the types the ruleset declares.
    return isinstance(found, Ruleset)


_REGISTERED: dict[str, RulesetPlugin | ErasedRuleset] = {}
"""Rulesets of different state and event types side by side (each erased where it is
registered: see :mod:`rallypoint.core.erased`)."""


def register(ruleset: Ruleset[S, E] | RulesetPlugin) -> Ruleset[S, E] | RulesetPlugin:
    """Register a ruleset (or its plugin) at run time, ahead of any installed under the same name.

    Installed rulesets need no call: they are found through the ``rallypoint.rulesets`` entry
    points. This is for rulesets made in a test or a notebook, or a package that cannot declare
    an entry point: ``register(RulesetPlugin(name="mine", rules="mine.rules:RULESET"))``. A
    plugin registered so is found by every front end like an installed one; a bare
    :class:`Ruleset` has no front parts (every front end uses its generic fallback).
    """
    _REGISTERED[ruleset.name] = (ruleset if isinstance(ruleset, RulesetPlugin)
                                 else erase(ruleset))
    return ruleset


def unregister(name: str) -> None:
    """Forget a ruleset registered at run time (installed ones stay)."""
    _REGISTERED.pop(name, None)


def plugins() -> dict[str, RulesetPlugin]:
    """Every ruleset plugin: the installed ones sorted by name, then those registered at run
    time (imports no rule code of an installed one)."""
    found = {name: _plugin_from(point) for name, point in _entry_points().items()}
    found.update({name: _as_plugin(r) for name, r in _REGISTERED.items()})
    return found


def plugin(name: str) -> RulesetPlugin:
    """The plugin of one ruleset, registered at run time or installed (imports only its plugin
    module).

    Raises:
        UnknownIdError: No ruleset of that name is registered or installed.
    """
    if name in _REGISTERED:
        return _as_plugin(_REGISTERED[name])
    point = _entry_points().get(name)
    if point is None:
        raise _unknown(name)
    return _plugin_from(point)


def _as_plugin(found: RulesetPlugin | ErasedRuleset) -> RulesetPlugin:
    # A bare ruleset registered at run time has no module to name: no parts but its rules,
    # which get_ruleset finds in the run-time registry first.
    return found if isinstance(found, RulesetPlugin) else RulesetPlugin(found.name, rules="")


def get_ruleset(name: str) -> ErasedRuleset:
    """Find a ruleset by name, importing only that one: erased to its edge's checks (a state
    or event not its own is refused by a :class:`TypeError`, see :mod:`rallypoint.core.erased`).

    Raises:
        UnknownIdError: No ruleset of that name is registered or installed.
    """
    found = _REGISTERED.get(name)
    if found is None:
        found = plugin(name)
    return found.ruleset() if isinstance(found, RulesetPlugin) else found


def registered() -> dict[str, ErasedRuleset]:
    """Every ruleset by name (installed ones sorted by name, then run-time ones)."""
    names = [*_entry_points(), *(n for n in _REGISTERED if n not in _entry_points())]
    return {name: get_ruleset(name) for name in names}


@functools.cache
def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    # Sorted by name: entry points have no order of their own across installers.
    points = {point.name: point for point in sorted(
        importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name)}
    if not points:
        raise UnknownIdError(
            f"no rulesets are installed (entry-point group {ENTRY_POINT_GROUP!r} is empty)",
            fix="Reinstall rallypoint (`uv sync`) so its rulesets are registered.",
            instead=Hint.SERVER)
    return points


def _plugin_from(point: importlib.metadata.EntryPoint) -> RulesetPlugin:
    loaded = point.load()
    if not isinstance(loaded, RulesetPlugin) or loaded.name != point.name:
        raise UnknownIdError(
            f"entry point {point.name!r} = {point.value!r} is not a RulesetPlugin of that name",
            fix="Point the entry point at the ruleset's PLUGIN object.")
    return loaded


def ruleset_line_fix(where: str = "top-level") -> str:
    """The fix for a scenario file that names no ruleset: the line to add, with the names of
    the rulesets installed (``where``: which line, ``"top-level"`` or ``"first"``)."""
    names = sorted(plugins())
    return f'Add a {where} line like ruleset = "{names[-1]}" (installed: {", ".join(names)}).'


def _unknown(name: str) -> UnknownIdError:
    known = ", ".join(sorted({*_entry_points(), *_REGISTERED})) or "none"
    return UnknownIdError(f"no ruleset named {name!r}", fix=f"Use one of: {known}.")
