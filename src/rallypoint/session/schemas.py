"""Published JSON Schemas of the files rallypoint reads, generated from its pydantic models.

One per ruleset's scenario file (``tcs-scenario`` ...), one per file a ruleset takes from
outside (the platoon battle report: ``platoon-report``), and the campaign export
(``campaign-export``). ``rallypoint schema NAME`` prints one; ``docs/schemas/NAME.schema.json``
holds each, kept equal to this output by a test. A TOML editor that understands taplo's
``#:schema PATH`` comment (Even Better TOML) then completes and checks a scenario's fields.

A schema is what a file must look like, not everything ``rallypoint new`` checks: which side an
id names, a square off the grid, a hex's spelling are judged by ``rallypoint scenario check``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from pydantic import BaseModel

from rallypoint.core.erased import ErasedRuleset, rules_of
from rallypoint.core.errors import UnknownIdError
from rallypoint.core.registry import registered
from rallypoint.core.scenario_check import scenario_files

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
"""The JSON Schema dialect pydantic writes (a name, not a download: nothing fetches it)."""


def schema_names() -> list[str]:
    """Every published schema's name, sorted."""
    return sorted(_sources())


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema called ``name``.

    Raises:
        UnknownIdError: No schema of that name (the names are listed in the fix).
    """
    source = _sources().get(name)
    if source is None:
        raise UnknownIdError(f"no schema named {name!r}",
                             fix=f"Use one of: {', '.join(schema_names())}.")
    return source()


def schema_text(name: str) -> str:
    """The schema as the file ``docs/schemas/NAME.schema.json`` holds it (stable key order)."""
    return json.dumps(json_schema(name), indent=2, ensure_ascii=False) + "\n"


def _sources() -> dict[str, Callable[[], dict[str, Any]]]:
    """Each schema's name and how to make it (made only when asked: models are built lazily)."""
    sources: dict[str, Callable[[], dict[str, Any]]] = {"campaign-export": _export_schema}
    for name, ruleset in registered().items():
        hooks = scenario_files(ruleset)
        if hooks is not None:
            sources[f"{name}-scenario"] = _scenario_maker(name, ruleset, hooks.scenario_model)
        models: Mapping[str, type[BaseModel]] = getattr(rules_of(ruleset), "file_models", {})
        for file_name, model in models.items():
            sources[file_name] = _model_maker(file_name, model)
    return sources


def _scenario_maker(name: str, ruleset: ErasedRuleset,
                    model: type[BaseModel]) -> Callable[[], dict[str, Any]]:
    def make() -> dict[str, Any]:
        return _scenario_schema(name, ruleset, model)
    return make


def _model_maker(name: str, model: type[BaseModel]) -> Callable[[], dict[str, Any]]:
    def make() -> dict[str, Any]:
        return _headed(name, model.model_json_schema(mode="validation"))
    return make


def _headed(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with its dialect and a title naming it first."""
    body = {key: value for key, value in schema.items() if key != "title"}
    return {"$schema": DIALECT, "title": f"rallypoint {name}", **body}


def _scenario_schema(name: str, ruleset: ErasedRuleset, model: type[BaseModel]) -> dict[str, Any]:
    """A scenario file's schema: its model's, with ``ruleset = "NAME"`` required (``new``
    refuses a file without it) and ``[parameters]`` spelled out from the ruleset's data."""
    schema = _headed(f"{name}-scenario", model.model_json_schema(mode="validation"))
    properties = schema["properties"]
    properties["ruleset"] = {"const": name, "description": f'which ruleset the file is for: '
                                                           f'ruleset = "{name}", first line'}
    schema["required"] = ["ruleset", *(r for r in schema.get("required", []) if r != "ruleset")]
    parameters = _parameters(ruleset)
    if parameters:
        properties["parameters"] = {
            "type": "object", "additionalProperties": False, "properties": parameters,
            "description": "rule parameters to change from the ruleset's data.toml "
                           f"(docs/rules/{name}.md gives each one's clause and readings)"}
    return schema


def _parameters(ruleset: ErasedRuleset) -> dict[str, Any]:
    """Each parameter a scenario may set, with its choices, default and clause: the ruleset's
    own ``parameter_schemas()`` where it has one, else from the ``parameters`` table of its
    shipped data; none when neither lists them."""
    own = getattr(rules_of(ruleset), "parameter_schemas", None)
    if own is not None:
        return dict(own())
    listed = ruleset.rules_data({}).get("parameters")
    if not isinstance(listed, Mapping):
        return {}
    found = {}
    for key, spec in sorted(listed.items()):
        if not isinstance(spec, Mapping) or not isinstance(choices := spec.get("choices"), list):
            return {}
        words = " ".join(str(spec.get(part, "")) for part in ("clause", "note")).strip()
        found[key] = {"enum": list(choices), "default": spec.get("value"),
                      "description": words}
    return found


def _export_schema() -> dict[str, Any]:
    """The campaign export file (``rallypoint export``; docs/two-player.md)."""
    from rallypoint.store.exchange import ExportedCampaign

    return _headed("campaign-export", ExportedCampaign.model_json_schema(mode="validation"))
