"""Checking a scenario for every problem at once (python-chess's ``Status``: all, not the first).

``rallypoint new`` stops at the first problem; ``rallypoint scenario check`` and the web
builder's live validation want them all, in the same words. The steps are ``new``'s own, each
collecting instead of raising:

1. the TOML parses (else that is the one problem: nothing after it can be read);
2. it names its ruleset (else nothing else can be judged);
3. every field the ruleset's scenario model refuses (pydantic reports them all), and every
   ``[parameters]`` entry the ruleset's data refuses, each judged on its own;
4. once every field is valid: every cross-reference problem (an unknown side, an id used twice);
5. once those are clear: the rest of ``new``'s path (the stored form, the ruleset's data with the
   scenario's overrides, the starting state), whose first refusal is the last problem.

The core knows no ruleset: a ruleset opts in with the three members of :class:`ScenarioFiles`.
One without them is checked by ``new``'s own path, and so reports its first problem only.
"""

from __future__ import annotations

import copy
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, Generic, Protocol, TypeVar, cast

from pydantic import BaseModel, ValidationError

from rallypoint.core.erased import ErasedRuleset, rules_of
from rallypoint.core.errors import DataFileError, RallypointError
from rallypoint.core.json_types import JsonObject
from rallypoint.core.problems import FIELD_FIX, Problem
from rallypoint.core.registry import get_ruleset, ruleset_line_fix
from rallypoint.core.tomlfile import line_naming, line_of, parse_toml, validation_problems

COLLECTING: Final = "rallypoint.collect_problems"
"""Validation context key: set, a scenario model skips its cross-reference validator (which
raises the first problem) so that :meth:`ScenarioFiles.scenario_problems` can report them all."""

_FIELD_PART = re.compile(r"([A-Za-z_][\w-]*)|\[(\d+)\]")


M = TypeVar("M", bound=BaseModel)
"""A ruleset's scenario model."""


class ScenarioFiles(Protocol, Generic[M]):
    """What a ruleset adds so that its scenarios can be checked whole and given a schema.

    Optional; the core looks each member up by name.
    """

    scenario_model: type[M]
    """The pydantic model of a whole scenario file (its JSON Schema is the file's schema)."""

    def scenario_problems(self, scenario: M) -> Sequence[str | Problem]:
        """Every problem of a scenario whose fields are each valid: what its model's
        cross-reference validator would raise, all of them. A plain text gets the fix of any
        refused field; a :class:`Problem` carries its own fix and field (file and line are
        filled in here)."""
        ...

    def scenario_json(self, scenario: M) -> JsonObject:
        """The JSON-ready form a campaign stores (``load_scenario`` of a file gives the same).

        Raises:
            DataFileError: What the model alone cannot judge (TCS: an unknown nationality).
        """
        ...


def scenario_files(ruleset: ErasedRuleset) -> ScenarioFiles[BaseModel] | None:
    """The ruleset's :class:`ScenarioFiles` members, or ``None`` when it lacks one."""
    members = ("scenario_model", "scenario_problems", "scenario_json")
    rules = rules_of(ruleset)  # optional members: found on the rules behind the erased ruleset
    if all(hasattr(rules, name) for name in members):
        return cast(ScenarioFiles[BaseModel], rules)
    return None


def check_text(text: str, file: str = "", ruleset: str | None = None) -> list[Problem]:
    """Every problem of a scenario file's text (``[]``: ``rallypoint new`` accepts it).

    Args:
        text: The TOML text.
        file: Its file name, for messages (``""``: none).
        ruleset: The ruleset it must be for; ``None``: the one its ``ruleset`` line names.
    """
    try:
        data = parse_toml(text, file or "scenario")
    except DataFileError as exc:
        return [_from_error(exc, text, file or "scenario")]
    return check_data(data, text=text, file=file, ruleset=ruleset)


def check_data(data: Mapping[str, Any], *, text: str = "", file: str = "",
               ruleset: str | None = None) -> list[Problem]:
    """Every problem of a parsed scenario (``text`` is its TOML, for line numbers, if any)."""
    named = data.get("ruleset", ruleset)
    if named is None:
        return [Problem("the scenario does not say which ruleset it is for",
                        ruleset_line_fix(), file=file, line=1)]
    if ruleset is not None and named != ruleset:
        return [Problem(f"scenario is for ruleset {named!r}, not {ruleset!r}",
                        f'Use the command of that ruleset, or set ruleset = "{ruleset}".',
                        file=file, line=line_of(text, ["ruleset"]), field="ruleset")]
    try:
        rules = get_ruleset(str(named))
    except RallypointError as exc:
        return [Problem(exc.what, exc.fix or "", file=file, line=line_of(text, ["ruleset"]),
                        field="ruleset")]
    hooks = scenario_files(rules)
    if hooks is None:
        return _check_by_loading(rules, text, file)
    return _check_whole(rules, hooks, data, text, file)


def _check_whole(rules: ErasedRuleset, hooks: ScenarioFiles[BaseModel], data: Mapping[str, Any],
                 text: str, file: str) -> list[Problem]:
    """Steps 3 to 5 of the module docstring for a ruleset with :class:`ScenarioFiles`."""
    parameters = _parameter_problems(rules, data.get("parameters"), text, file)
    try:
        scenario = hooks.scenario_model.model_validate(dict(data), context={COLLECTING: True})
    except ValidationError as exc:
        return [*validation_problems(exc, text, file),
                *_crossed_despite(exc, hooks, data, text, file), *parameters]
    crossed = [_placed(found, text, file) for found in hooks.scenario_problems(scenario)]
    if crossed or parameters:
        return [*crossed, *parameters]
    try:
        stored = hooks.scenario_json(scenario)
        rules.initial_state(stored, rules.rules_data(stored))
    except RallypointError as exc:
        return [_from_error(exc, text, file)]
    return []


def _crossed_despite(exc: ValidationError, hooks: ScenarioFiles[BaseModel],
                     data: Mapping[str, Any], text: str, file: str) -> list[Problem]:
    """The cross-reference problems of the rest of a file some of whose entries are refused.

    Each refused entry of a list (a unit with ``stamina = 0``) is left out and the rest checked,
    so a bad value does not hide an unknown side elsewhere. A problem naming an id of an entry
    left out is not reported (that entry was not read); a refused value outside any list entry
    (``[grid]``) leaves nothing sound to check against.
    """
    pruned = _without_refused(data, exc)
    if pruned is None:
        return []
    rest, dropped = pruned
    try:
        scenario = hooks.scenario_model.model_validate(rest, context={COLLECTING: True})
    except ValidationError:
        return []
    found = [_placed(problem, text, file) for problem in hooks.scenario_problems(scenario)]
    return [p for p in found if not any(f"'{ident}'" in p.what for ident in dropped)]


def _without_refused(data: Mapping[str, Any], exc: ValidationError
                     ) -> tuple[dict[str, Any], set[str]] | None:
    """A copy of ``data`` without the list entries validation refused, and their ids; ``None``
    when a refused value is in no list entry."""
    cuts: set[tuple[tuple[Any, ...], int]] = set()
    for error in exc.errors():
        loc = tuple(error["loc"])
        last = max((n for n, part in enumerate(loc) if isinstance(part, int)), default=None)
        if last is None:
            return None
        cuts.add((loc[:last], int(loc[last])))
    rest: dict[str, Any] = copy.deepcopy(dict(data))
    dropped: set[str] = set()
    # Deepest lists first and, within a list, the highest index first: a cut never moves the
    # index of another still to make.
    for path, index in sorted(cuts, key=lambda cut: (-len(cut[0]), -cut[1])):
        entries: Any = rest
        for part in path:
            try:
                entries = entries[part]
            except (KeyError, IndexError, TypeError):
                return None
        if not isinstance(entries, list) or index >= len(entries):
            return None
        entry = entries.pop(index)
        if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
            dropped.add(entry["id"])
    return rest, dropped


def _placed(found: str | Problem, text: str, file: str) -> Problem:
    """A ruleset's problem with its file and line: the line of its field, else of the first id
    it quotes."""
    if isinstance(found, str):
        return Problem(found, FIELD_FIX, file=file, line=line_naming(text, found))
    loc: list[str | int] = [int(index) if index else name
                            for name, index in _FIELD_PART.findall(found.field)]
    line = (line_of(text, loc) if loc else None) or line_naming(text, found.what)
    return replace(found, file=file, line=line)


def _parameter_problems(rules: ErasedRuleset, parameters: Any, text: str,
                        file: str) -> list[Problem]:
    """Each ``[parameters]`` entry the ruleset's data refuses, judged alone (so one bad entry
    does not hide another)."""
    if not isinstance(parameters, Mapping):
        return []  # not a table: the model says so
    problems = []
    for name, value in parameters.items():
        try:
            rules.rules_data({"parameters": {name: value}})
        except RallypointError as exc:
            problems.append(Problem(exc.what, exc.fix or "", file=file,
                                    line=line_of(text, ["parameters", str(name)]),
                                    field=f"parameters.{name}"))
    return problems


def _check_by_loading(rules: ErasedRuleset, text: str, file: str) -> list[Problem]:
    """``new``'s own path for a ruleset without :class:`ScenarioFiles` (its first problem)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "scenario.toml")
        path.write_text(text, encoding="utf-8")
        try:
            stored = rules.load_scenario(path)
            rules.initial_state(stored, rules.rules_data(stored))
        except RallypointError as exc:
            label = file or "scenario"
            where = (exc.where or "").replace(str(path), label)
            return [_from_error(DataFileError(exc.what, fix=exc.fix, where=where), text, label)]
    return []


def _from_error(exc: RallypointError, text: str, file: str) -> Problem:
    """A problem from an error ``new``'s path raised (its ``where`` kept, with the line of a
    ``[parameters].name`` it names)."""
    where = exc.where or ""
    if where.startswith("[parameters]."):
        name = where.removeprefix("[parameters].")
        return Problem(exc.what, exc.fix or "", file=file,
                       line=line_of(text, ["parameters", name]), field=f"parameters.{name}")
    if file and where.startswith(file):
        line_text, _, field = where.removeprefix(file).removeprefix(":").partition(" ")
        return Problem(exc.what, exc.fix or "", file=file,
                       line=int(line_text) if line_text.isdigit() else None, field=field)
    return Problem(exc.what, exc.fix or "", file=file, field=where)


def scenario_from(data: Mapping[str, Any], *, ruleset: str, text: str = "",
                  file: str = "") -> dict[str, Any]:
    """The JSON-ready scenario a campaign stores, from parsed data (the web builder's form).

    Raises:
        DataFileError: Its first problem, as :func:`check_data` words it.
    """
    problems = check_data(data, text=text, file=file, ruleset=ruleset)
    if problems:
        raise problems[0].error()
    rules = get_ruleset(ruleset)
    hooks = scenario_files(rules)
    if hooks is None:
        raise DataFileError(f"the {ruleset} ruleset cannot read a scenario given as data",
                            fix="Give it as a TOML file.")
    return hooks.scenario_json(hooks.scenario_model.model_validate(dict(data)))
