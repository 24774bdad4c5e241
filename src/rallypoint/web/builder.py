"""The scenario builder: write a scenario in the browser, checked as it is typed, then save it
as a TOML file or create the campaign from it.

The whole scenario travels in the form (nothing is kept on the server until the campaign is
created), so every button works without JavaScript: "add", "add another like this one",
"remove" and a grid square post the form and get it back edited. With JavaScript, htmx posts the
form to ``/build/{ruleset}/check`` as the player types and swaps in the problems. The problems
are :func:`~rallypoint.session.scenarios.check_scenario`'s, the same words as ``rallypoint
new``; the form itself is :mod:`.scenario_form`, generic over the ruleset's scenario model; a
ruleset may add a part (its plugin's ``builder``: :mod:`rallypoint.web.builder_part`).
"""

from __future__ import annotations

import tomllib
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import FormData

from rallypoint.core.errors import (
    DataFileError,
    MalformedInputError,
    RallypointError,
    UnknownIdError,
)
from rallypoint.core.problems import Problem
from rallypoint.core.registry import get_ruleset, plugin, registered, ruleset_line_fix
from rallypoint.core.scenario_check import scenario_files
from rallypoint.core.tomlwrite import dumps
from rallypoint.session.scenarios import check_scenario
from rallypoint.web import deps, pages
from rallypoint.web.auth import require_account
from rallypoint.web.builder_part import BuilderPart, is_builder_part
from rallypoint.web.errors import status_for
from rallypoint.web.scenario_form import (
    Field,
    Kind,
    at,
    data_from_form,
    edit,
    form_fields,
    problem_path,
    shown,
    starter,
)

router = APIRouter(include_in_schema=False)

FILE = "scenario.toml"
"""The file name problems name until the player gives one (and the download's default)."""


def _logged_in(request: Request) -> None:
    """On a shared server the builder is for players with an account (it creates campaigns)."""
    auth = deps.auth(request)
    if auth is not None:
        require_account(auth, request)


def _fields(ruleset: str) -> tuple[Field, ...]:
    """The form of a ruleset's scenario model (404 for a ruleset without one)."""
    try:
        hooks = scenario_files(get_ruleset(ruleset))
    except RallypointError:
        hooks = None
    if hooks is None:
        raise UnknownIdError(f"no scenario builder for ruleset {ruleset!r}", where="ruleset",
                             fix=f"Use one of: {', '.join(_buildable())}.")
    return form_fields(hooks.scenario_model)


def _buildable() -> list[str]:
    return [name for name, rules in sorted(registered().items()) if scenario_files(rules)]


def part_of(ruleset: str) -> BuilderPart:
    """The ruleset's additions to the builder (its plugin's ``builder`` part), else none."""
    found = plugin(ruleset)
    if found.builder is None:
        return NO_PART
    part = found.load("builder", is_builder_part)
    return part


NO_PART = BuilderPart()
"""The builder of a ruleset whose plugin names no ``builder`` part: the form alone."""


def _file_name(form: FormData) -> str:
    return _safe(pages._text(form, "file_name"))


def _safe(name: str | None) -> str:
    """A file name fit for a download header: letters, digits, ``-_. `` and ``.toml``."""
    name = name or FILE
    safe = "".join(c for c in name if c.isalnum() or c in "-_. ")[:80].strip(" .")
    return safe if safe.endswith(".toml") else f"{safe or 'scenario'}.toml"


def _problems(ruleset: str, data: dict[str, Any], file: str) -> tuple[str, list[Problem]]:
    """The scenario's TOML text and every problem in it (line numbers are the text's)."""
    try:
        text = dumps(data)
    except (TypeError, ValueError) as exc:  # nan or inf typed into an inline table
        return "", [Problem(f"cannot be saved as TOML: {exc}", "Use finite numbers.",
                            file=file)]
    return text, check_scenario(ruleset, text, file=file)


def builder_page(request: Request, ruleset: str, data: dict[str, Any], *, file: str = FILE,
                 error: RallypointError | None = None, name: str = "", seed: str = "",
                 brush: str = "") -> HTMLResponse:
    """The builder with ``data`` in its form, its problems, and (after a refusal) the error."""
    fields = _fields(ruleset)
    text, problems = _problems(ruleset, data, file)
    part = part_of(ruleset)
    return deps.renderer(request).html(
        request, "build/page.html", status=status_for(error) if error else 200, ruleset=ruleset,
        scenario_fields=fields, data=data, problems=problems, toml=text, file=file, error=error,
        error_form="build" if error else None, name=name, seed=seed,
        # Marked only on a refusal: after that, the live check's list is the truth (a mark
        # drawn by an edit would stay on a field the player has since put right).
        bad={problem_path(p.field) for p in problems if p.field} if error else set(),
        part=part.context(data) if part.context is not None else None,
        part_template=part.template, brush=brush, hints=part.hints, at=at, shown=shown, Kind=Kind)


@router.get("/build", response_class=HTMLResponse)
def choose(request: Request) -> HTMLResponse:
    """Which ruleset to build a scenario for, a shipped one to start from, or a file to open."""
    _logged_in(request)
    return _choose(request)


def _choose(request: Request, error: RallypointError | None = None) -> HTMLResponse:
    service = deps.service(request)
    return deps.renderer(request).html(
        request, "build/choose.html", status=status_for(error) if error else 200,
        rulesets=[(n, registered()[n].title) for n in _buildable()],
        scenarios=[(r, p.stem) for r, _, p in service.scenarios() if r in _buildable()],
        error=error, error_form="open" if error else None)


@router.post("/build")
async def open_file(request: Request) -> Response:
    """Open a scenario file (uploaded) in the builder."""
    form = await pages._form(request)
    _logged_in(request)
    try:
        upload = await pages._upload(form, "file")
        if upload is None:
            raise MalformedInputError("no file chosen", where="file",
                                      fix="Choose a scenario file (TOML) to open.")
        filename, content = upload
        data = _parsed(content, filename or FILE)
        ruleset = str(data.get("ruleset", ""))
        _fields(ruleset)
    except RallypointError as exc:
        return _choose(request, exc)
    return builder_page(request, ruleset, data, file=_safe(filename))


def _parsed(content: bytes, filename: str) -> dict[str, Any]:
    """An uploaded scenario's data (refused: not UTF-8, not TOML, no ruleset line)."""
    from rallypoint.core.tomlfile import parse_toml

    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedInputError(f"{filename!r} is not UTF-8 text", where="file",
                                  fix="Open the scenario's TOML file itself.") from None
    data = parse_toml(text, filename)
    if not isinstance(data.get("ruleset"), str):
        raise MalformedInputError(f"{filename!r} does not say which ruleset it is for",
                                  where="file", fix=ruleset_line_fix("first"))
    return data


@router.get("/build/{ruleset}", response_class=HTMLResponse)
def start(request: Request, ruleset: str, start: str | None = None) -> HTMLResponse:
    """A new scenario for ``ruleset``: empty, or a copy of a shipped one (``start``: its name)."""
    _logged_in(request)
    fields = _fields(ruleset)
    if start is None:
        return builder_page(request, ruleset, {"ruleset": ruleset, **starter(fields)})
    shipped = {p.stem: p for r, _, p in deps.service(request).scenarios() if r == ruleset}
    if start not in shipped:
        raise UnknownIdError(f"no shipped {ruleset} scenario {start!r}", where="start",
                             fix=f"Use one of: {', '.join(sorted(shipped))}.")
    with shipped[start].open("rb") as f:
        data = tomllib.load(f)
    return builder_page(request, ruleset, data, file=f"{start}.toml")


@router.post("/build/{ruleset}")
async def build(request: Request, ruleset: str) -> Response:
    """A button of the builder: an edit (the form back, edited), ``download`` (the TOML file)
    or ``create`` (the campaign; a scenario with problems is refused, the form kept)."""
    form = await pages._form(request)
    _logged_in(request)
    fields = _fields(ruleset)
    data = data_from_form(fields, pages._pairs(form), ruleset)
    file = _file_name(form)
    action = pages._text(form, "action") or "check"
    name, seed = pages._text(form, "name") or "", pages._text(form, "seed") or ""
    if action.startswith("place:") and (place := part_of(ruleset).place) is not None:
        data = place(data, action.partition(":")[2], pages._text(form, "brush") or "")
    elif action == "download":
        return _download(request, ruleset, data, file, name, seed)
    elif action == "create":
        return _create(request, ruleset, data, file, name, seed, form)
    else:
        data = edit(fields, data, action)
    return builder_page(request, ruleset, data, file=file, name=name, seed=seed,
                        brush=pages._text(form, "brush") or "")


def _download(request: Request, ruleset: str, data: dict[str, Any], file: str, name: str,
              seed: str) -> Response:
    text, problems = _problems(ruleset, data, file)
    if not text:
        return builder_page(request, ruleset, data, file=file, name=name, seed=seed,
                            error=_refusal(problems, "not saved"))
    return Response(text, media_type="application/toml", headers={
        "content-disposition": f'attachment; filename="{file}"'})


def _create(request: Request, ruleset: str, data: dict[str, Any], file: str, name: str,
            seed: str, form: FormData) -> Response:
    """Create the campaign (303 to it), or the builder again with the first problem."""
    service = deps.service(request)
    try:
        text, problems = _problems(ruleset, data, file)
        if problems:
            raise _refusal(problems, "not created")
        info = service.create_uploaded(file, text.encode("utf-8"), name or None, seed or None)
    except RallypointError as exc:
        return builder_page(request, ruleset, data, file=file, error=exc, name=name, seed=seed)
    return pages.created(request, info, referee=pages._text(form, "referee") == "yes")


def _refusal(problems: list[Problem], undone: str) -> DataFileError:
    """``undone`` (``not created``), the first problem, where it is, and how many more the
    list shows."""
    first, more = problems[0], len(problems) - 1
    tail = f"; {more} more problem{'s' if more > 1 else ''} listed below" if more else ""
    return DataFileError(f"{undone}: {first.what} (at {first.where}){tail}",
                         where=first.where or None, fix=first.fix)


@router.post("/build/{ruleset}/check", response_class=HTMLResponse)
async def check(request: Request, ruleset: str) -> HTMLResponse:
    """The problems of the scenario the form describes (htmx swaps them in as one types)."""
    form = await pages._form(request)
    _logged_in(request)
    data = data_from_form(_fields(ruleset), pages._pairs(form), ruleset)
    file = _file_name(form)
    _, problems = _problems(ruleset, data, file)
    return deps.renderer(request).html(request, "build/problems.html", problems=problems,
                                       file=file)

