"""The page of a ruleset without a view of its own: its state, its pending decisions, a form for
each of its commands (built from the command models' JSON schemas) and its declared odds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rallypoint.core.erased import command_types
from rallypoint.core.ruleset import Command, command_kind
from rallypoint.core.visibility import (
    EVERYTHING,
    Viewer,
    declaration_of,
    redact_state,
    visible_decisions,
)
from rallypoint.session import Campaign

TEMPLATE = "generic.html"
_CONTROL = frozenset({"kind", "expected_version"})
"""Command fields the form fills itself."""


@dataclass(frozen=True)
class FormField:
    """One input of a generic command form.

    Attributes:
        name: The form field's name in :mod:`rallypoint.web.forms`' convention (``s:party``).
        label: The command field's name, as the player reads it.
        control: ``text``, ``number``, ``checkbox``, ``select`` or ``json`` (a text area).
        required: Whether the command needs it (no default).
        choices: The allowed values of a ``select``.
    """

    name: str
    label: str
    control: str
    required: bool
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommandForm:
    """A form for one command kind: its title (the model's first docstring line), its fields."""

    kind: str
    title: str
    fields: tuple[FormField, ...]


def command_forms(models: tuple[type[Command], ...] | list[type[Command]]) -> list[CommandForm]:
    """One form per command model, each field an input fitting its JSON schema type."""
    forms = []
    for model in models:
        schema = model.model_json_schema()
        defs = schema.get("$defs", {})
        required = set(schema.get("required", ()))
        fields = tuple(_field(name, _resolved(prop, defs), name in required)
                       for name, prop in schema.get("properties", {}).items()
                       if name not in _CONTROL)
        title = (model.__doc__ or command_kind(model)).strip().splitlines()[0]
        forms.append(CommandForm(command_kind(model), title, fields))
    return forms


def _resolved(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A property's schema with a ``$ref`` followed and an optional (``X | None``) unwrapped."""
    if "$ref" in prop:
        return _resolved(defs[prop["$ref"].rsplit("/", 1)[-1]], defs)
    options = [p for p in prop.get("anyOf", ()) if p.get("type") != "null"]
    if len(options) == 1:
        return _resolved(options[0], defs)
    return prop


def _field(name: str, prop: dict[str, Any], required: bool) -> FormField:
    """The input for one property: a select for an enum, else by its JSON type (a list of
    strings is one comma-separated text box; anything nested is typed as JSON)."""
    kind = prop.get("type")
    if "enum" in prop or "const" in prop:
        choices = tuple(str(v) for v in prop.get("enum", [prop.get("const")]))
        return FormField(f"s:{name}", name, "select", required, choices)
    if kind == "integer":
        return FormField(f"i:{name}", name, "number", required)
    if kind == "boolean":
        return FormField(f"b:{name}", name, "checkbox", False)
    if kind == "string":
        return FormField(f"s:{name}", name, "text", required)
    if kind == "array" and prop.get("items", {}).get("type") == "string":
        return FormField(f"l:{name}", name, "text", required)
    return FormField(f"j:{name}", name, "json", required)


def context(campaign: Campaign, viewer: Viewer = EVERYTHING) -> dict[str, object]:
    """The state view as indented JSON, the pending decisions as ``viewer`` may see them, and a
    form per command (none when the ruleset does not list its commands)."""
    declared = declaration_of(campaign.ruleset.name)
    full = campaign.ruleset.state_json(campaign.state)
    pending = campaign.ruleset.pending(campaign.state)
    shown = visible_decisions([d.model_dump() for d in pending], full,
                              campaign.created.scenario, viewer, declared)
    state = redact_state(full, campaign.created.scenario, viewer, declared)
    return {"state_text": json.dumps(state, indent=2, ensure_ascii=False),
            "pending": [pending[n] for n in shown],
            "command_forms": command_forms(list(command_types(campaign.ruleset)))}
