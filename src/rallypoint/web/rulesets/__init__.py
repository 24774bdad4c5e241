"""What a ruleset's campaign page is, as a typed contract with a generic fallback.

A ruleset's plugin may name a ``web`` part: an object meeting :class:`RulesetView` (in practice a
:class:`View`, whose every field has the generic page's behaviour as its default). A ruleset that
names none gets :data:`GENERIC`: its state, its pending decisions and one form per command built
from the command models' schemas (:mod:`.generic`), so a fourth ruleset works in the browser
unchanged. Nothing here decides anything: views read states, pending decisions and odds from the
library.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from typing_extensions import TypeIs

from rallypoint.core.json_types import JsonObject, JsonValue
from rallypoint.core.registry import plugin
from rallypoint.session import Campaign
from rallypoint.web.due import Action
from rallypoint.web.forms import command_from_form
from rallypoint.web.rulesets import generic
from rallypoint.web.seat_preview import SeatPreview

Context = Callable[..., Mapping[str, object]]
"""``context(campaign, *, viewer, **selection) -> mapping``: what the page template shows
(``selection``: the view's ``query`` parameters the request carried). A template reads any
Python value by name, so the honest type of its context is a mapping to ``object``."""

Download = Callable[[Campaign], JsonValue]
"""A file a page offers: the campaign → the JSON that goes in ``NAME.json``."""


@runtime_checkable
class RulesetView(Protocol):
    """How a campaign page shows one ruleset. Every member is read; :class:`View` gives each
    the generic page's behaviour as its default."""

    @property
    def template(self) -> str:
        """The page template (under ``web/templates``)."""
        ...

    @property
    def context(self) -> Context:
        """What the page template shows."""
        ...

    @property
    def query(self) -> tuple[str, ...]:
        """Query parameters the page takes (a squares unit), passed to ``context`` by name."""
        ...

    @property
    def parts(self) -> Mapping[str, str]:
        """Parts of the page served alone (``/c/ID/part/NAME``): name → template."""
        ...

    @property
    def commands(self) -> Mapping[str, str]:
        """Command kind → what on this page does it, for a refusal's ``instead``."""
        ...

    @property
    def fields(self) -> Mapping[str, str]:
        """Command field → the web's fix for a refusal whose ``where`` names it."""
        ...

    @property
    def due_actions(self) -> Mapping[str, Action]:
        """Command kind → how this page does a due item of that kind (``web.due``)."""
        ...

    @property
    def decision_link(self) -> str:
        """Where the N-th pending decision's form is (``{n}``)."""
        ...

    @property
    def downloads(self) -> Mapping[str, Download]:
        """Files the page offers: name → what goes in ``NAME.json``."""
        ...

    @property
    def preview_template(self) -> str:
        """The live preview's template."""
        ...

    @property
    def lab_template(self) -> str | None:
        """The ruleset's own panel on the lab page, a template ``lab.html`` includes (none:
        the page shows only the odds tables and the simulation)."""
        ...

    @property
    def lab_context(self) -> Context:
        """What the lab panel's template shows (called like ``context``)."""
        ...

    def field_for(self, at: tuple[str, ...]) -> str | None:
        """The form field a refusal's typed location (``error.at``) names, when it is not the
        command field."""
        ...

    def translate(self, items: Iterable[tuple[str, str]]) -> JsonObject:
        """Submitted form fields → the command's JSON form."""
        ...

    def preview_context(self, campaign: Campaign, result: SeatPreview) -> Mapping[str, object]:
        """What the preview template shows beside the generic result."""
        ...



def _no_field(at: tuple[str, ...]) -> str | None:
    return None


def _no_preview(campaign: Campaign, result: SeatPreview) -> dict[str, object]:
    return {}


def _no_lab_context(campaign: Campaign, **_: object) -> dict[str, object]:
    return {}


@dataclass(frozen=True)
class View:
    """A :class:`RulesetView` from parts; what a ruleset leaves out is the generic page's.

    The callables are fields (not methods) so a view module hands over its functions as they
    are: ``VIEW = View(template=TEMPLATE, context=context, parts=PARTS)``.
    """

    template: str = generic.TEMPLATE
    context: Context = generic.context
    query: tuple[str, ...] = ()
    parts: Mapping[str, str] = field(default_factory=dict)
    commands: Mapping[str, str] = field(default_factory=dict)
    fields: Mapping[str, str] = field(default_factory=dict)
    due_actions: Mapping[str, Action] = field(default_factory=dict)
    decision_link: str = "#decision-{n}"
    downloads: Mapping[str, Download] = field(default_factory=dict)
    preview_template: str = "preview.html"
    lab_template: str | None = None
    lab_context: Context = _no_lab_context
    field_for: Callable[[tuple[str, ...]], str | None] = _no_field
    translate: Callable[[Iterable[tuple[str, str]]], JsonObject] = command_from_form
    preview_context: Callable[[Campaign, SeatPreview], Mapping[str, object]] = _no_preview


def is_ruleset_view(found: object) -> TypeIs[RulesetView]:
    """Whether a plugin's ``web`` part has every member of a :class:`RulesetView`."""
    return isinstance(found, RulesetView)


GENERIC: RulesetView = View()
"""The page of a ruleset whose plugin names no ``web`` part."""


def view_of(ruleset: str) -> RulesetView:
    """The ruleset's own view (its plugin's ``web`` part), else :data:`GENERIC`."""
    found = plugin(ruleset)
    if found.web is None:
        return GENERIC
    return found.load("web", is_ruleset_view)


