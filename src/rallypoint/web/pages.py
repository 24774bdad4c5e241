"""The HTML pages. Each renders what the session API returns; forms post back here.

Every form works without JavaScript (post, then a 303 redirect to the page it came from); htmx
only adds the live preview of a decision. A refused form re-renders its page with the refusal
beside the form, with the library's status code, and nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from html import escape
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.datastructures import FormData, UploadFile

from rallypoint.core.due import Due, due_of
from rallypoint.core.errors import MalformedInputError, RallypointError, UnknownIdError
from rallypoint.core.ruleset import Decision
from rallypoint.core.visibility import EVERYTHING, Viewer
from rallypoint.session import Campaign, CampaignInfo
from rallypoint.web import deps, live, once
from rallypoint.web.auth import account_id, campaign_viewer, require_account
from rallypoint.web.due import NextStep, listed, next_steps
from rallypoint.web.errors import status_for
from rallypoint.web.forms import command_from_form, version_from_form
from rallypoint.web.refill import Refill, refill_page
from rallypoint.web.rulesets import RulesetView, view_of
from rallypoint.web.seat_preview import SeatPreview
from rallypoint.web.security import CSRF_FIELD, check_csrf
from rallypoint.web.words import field_of, partly_done, web_message

router = APIRouter(include_in_schema=False)

MAX_REPEAT = 50
"""Most commands one form may record in a row (``repeat``: advance N turns)."""


async def _form(request: Request) -> FormData:
    """The submitted form, after the CSRF check (403 and nothing done if it fails)."""
    limit = deps.settings(request).max_upload
    form = await request.form(max_part_size=limit, max_files=4, max_fields=2000)
    token = form.get(CSRF_FIELD)
    check_csrf(deps.settings(request).secret, request.scope.get("state", {}).get("csrf_cookie"),
               token if isinstance(token, str) else request.headers.get("x-csrf-token"))
    return form


def _text(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _pairs(form: FormData) -> list[tuple[str, str]]:
    return [(k, v) for k, v in form.multi_items() if isinstance(v, str)]


async def _pairs_with_files(form: FormData) -> list[tuple[str, str]]:
    """Form fields, with each uploaded file as its text (and ``NAME.filename``)."""
    pairs: list[tuple[str, str]] = []
    for key, value in form.multi_items():
        if isinstance(value, str):
            pairs.append((key, value))
        elif value.filename:
            try:
                text = (await value.read()).decode("utf-8")
            except UnicodeDecodeError:
                raise MalformedInputError(f"{value.filename!r} is not UTF-8 text", where=key,
                                          fix="Upload the JSON or TOML file itself.") from None
            pairs += [(key, text), (f"{key}.filename", value.filename)]
    return pairs


def _selection(form: FormData) -> dict[str, str]:
    """What the page had selected when the form was sent (its ``return`` field: a query)."""
    return dict(parse_qsl(_text(form, "return") or ""))


def _see(url: str) -> Response:
    return RedirectResponse(url, status_code=303)


@router.get("/api/docs", response_class=HTMLResponse)
def api_docs(request: Request) -> HTMLResponse:
    """The JSON API's OpenAPI page: Swagger UI vendored in ``static/swagger-ui`` and started by
    ``static/swagger-init.js``, so it loads under the pages' own CSP (no CDN, nothing inline)."""
    return deps.renderer(request).html(request, "api_docs.html", schema_url="/api/openapi.json")


# --- the campaigns list ----------------------------------------------------------------------


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    """The campaigns list, with the forms to create or import one (and, once, the notice a
    deletion's redirect carried)."""
    carried = once.take(request, "notice", account_id(request))
    page = _index(request, notice=carried.get("text") if carried else None)
    return once.clear(page, "/") if carried else page


def _index(request: Request, error: RallypointError | None = None, form: str | None = None,
           notice: str | None = None, sent: list[tuple[str, str]] | None = None) -> HTMLResponse:
    service, auth = deps.service(request), deps.auth(request)
    account = require_account(auth, request) if auth is not None else None
    field = field_of(error)
    campaigns = service.campaigns(account.id if account else None)
    page = deps.renderer(request).html(
        request, "index.html", status=status_for(error) if error else 200,
        campaigns=campaigns, news=live.list_news(request, campaigns),
        scenarios=service.scenarios(), error=error, error_form=form,
        notice=notice, allow_import=auth is None)
    return _refilled(page, form, sent, field, error)


async def _upload(form: FormData, name: str) -> tuple[str | None, bytes] | None:
    file = form.get(name)
    if isinstance(file, UploadFile) and file.filename:
        return file.filename, await file.read()
    return None


@router.post("/campaigns")
async def create(request: Request) -> Response:
    """Create a campaign from a shipped scenario or an uploaded scenario file."""
    form = await _form(request)
    service, auth = deps.service(request), deps.auth(request)
    if auth is not None:
        require_account(auth, request)
    try:
        upload = await _upload(form, "file")
        name, seed = _text(form, "name"), _text(form, "seed")
        if upload is not None:
            info = service.create_uploaded(upload[0], upload[1], name, seed)
        elif (scenario := _text(form, "scenario")) is not None:
            info = service.create_shipped(scenario, name, seed)
        else:
            raise MalformedInputError("no scenario chosen", where="scenario",
                                      fix="Pick a shipped scenario or upload a scenario file.")
    except RallypointError as exc:
        return _index(request, exc, "create", sent=_pairs(form))
    return created(request, info, referee=_text(form, "referee") == "yes")


def created(request: Request, info: CampaignInfo, referee: bool) -> Response:
    """The redirect after a campaign was created: to it, or on a shared server to its seats."""
    if deps.auth(request) is not None:
        # The invites exist only in this answer (the database keeps their hashes): carried
        # over the redirect to the seats page, shown there once.
        invites = deps.service(request).open_seats(info, account_id(request) or "",
                                                   referee=referee)
        seats_path = f"/c/{info.id}/seats"
        return once.carry(request, _see(seats_path), "invites", seats_path, invites,
                          account_id(request))
    return _see(f"/c/{info.id}")


@router.post("/import")
async def import_(request: Request) -> Response:
    """Import an export file (a new campaign, or the newer events of one already here)."""
    form = await _form(request)
    try:
        upload = await _upload(form, "file")
        if upload is None:
            raise MalformedInputError("no file chosen", where="file",
                                      fix="Choose an export file (from Export on a campaign).")
        info = deps.service(request).import_uploaded(upload[0], upload[1], _text(form, "name"))
    except RallypointError as exc:
        return _index(request, exc, "import", sent=_pairs(form))
    return _see(f"/c/{info.id}")


# --- one campaign ----------------------------------------------------------------------------


def _selection_for(view: RulesetView, given: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in given.items() if k in view.query and v}


def campaign_page(request: Request, campaign: Campaign, error: RallypointError | None = None,
                  form: str | None = None, done: int | None = None,
                  chosen: dict[str, str] | None = None,
                  sent: list[tuple[str, str]] | None = None) -> HTMLResponse:
    """A campaign's page: the ruleset's view, what was just recorded, undo and export.

    ``chosen``: what the page has selected (a view's ``QUERY`` names, e.g. a squares unit).
    ``sent``: a refused form's fields, put back into that form (``form``) as they were typed.
    """
    view = view_of(campaign.ruleset.name)
    viewer = campaign_viewer(request, campaign.campaign_id)
    selection = _selection_for(view, chosen if chosen is not None
                               else dict(request.query_params))
    recorded = [e for e in deps.service(request).log(campaign.campaign_id, viewer)
                if done is not None and e.seq >= done] if done else []
    name = deps.service(request).info(campaign.campaign_id).name
    field = field_of(error, view.field_for)
    context = view.context(campaign, viewer=viewer, **selection)
    page = deps.renderer(request).html(
        request, view.template, status=status_for(error) if error else 200, c=campaign, name=name,
        error=error, error_form=form, recorded=recorded,
        **live.page_news(request, campaign, viewer, context),
        commands=view.commands, fields=view.fields,
        next_steps=_next_steps(view, campaign, context), **context)
    return _refilled(page, form, sent, field, error, view.commands, view.fields)


def _next_steps(view: RulesetView, campaign: Campaign,
                context: Mapping[str, object]) -> list[NextStep]:
    """The page's "what next": the view's own filtered ``due_next`` (a ruleset with secrets
    filters it for the viewer), else what the rules say is due once no decision is pending."""
    pending = listed(context, "pending", Decision) or []
    due = listed(context, "due_next", Due)
    if due is None:
        due = [] if pending else list(due_of(campaign.ruleset, campaign.state))
    return next_steps(pending, due, view.due_actions, view.decision_link)



def _refilled(page: HTMLResponse, form: str | None, sent: list[tuple[str, str]] | None,
              field: tuple[str, ...], error: RallypointError | None,
              commands: Mapping[str, str] | None = None,
              fields: Mapping[str, str] | None = None) -> HTMLResponse:
    """``page`` with the refused form as the player left it (see :mod:`.refill`)."""
    if error is None or form is None or sent is None:
        return page
    text = refill_page(bytes(page.body).decode(), Refill(
        form, tuple(sent), field, escape(web_message(error, commands, fields))))
    return HTMLResponse(text, status_code=page.status_code)


@router.get("/c/{cid}", response_class=HTMLResponse)
async def campaign(request: Request, cid: str, done: int | None = None) -> HTMLResponse:
    """The campaign's page (``done``: show what the events from this seq on did).

    The page as it stands (no ``done``, no error) is rendered once per state of the database and
    served from memory until anything is written; only the CSRF token differs per browser.
    """
    viewer = await _viewer(request, cid)
    if done is not None or request.headers.get("hx-request"):
        return await run_in_threadpool(
            lambda: campaign_page(request, deps.service(request).load(cid), done=done))
    # Per viewer (each seat's page shows its own secrets) and per mark of what it last saw.
    seen = await run_in_threadpool(live.seen_mark, request, cid) \
        if deps.auth(request) is not None else None
    key = ("page", cid, viewer, seen, tuple(sorted(request.query_params.items())))
    return await _cached_html(request, key,
                              lambda: campaign_page(request, deps.service(request).load(cid)))


@router.get("/c/{cid}/part/{name}", response_class=HTMLResponse)
async def part(request: Request, cid: str, name: str) -> HTMLResponse:
    """One part of the campaign's page alone (htmx swaps it in): the TCS sheets with their odds,
    the squares unit panel with who may rally it."""
    viewer = await _viewer(request, cid)

    def build() -> HTMLResponse:
        campaign = deps.service(request).load(cid)
        view = view_of(campaign.ruleset.name)
        parts = view.parts
        if name not in parts:
            raise UnknownIdError(f"this page has no part {name!r}",
                                 fix=f"Use one of: {', '.join(parts) or 'none'}.")
        selection = _selection_for(view, dict(request.query_params))
        # ``status`` named: the view's context (any names, any values) is spread after it.
        return deps.renderer(request).html(
            request, parts[name], status=200, c=campaign, error=None, error_form=None,
            **view.context(campaign, viewer=viewer, **selection))

    key = ("part", cid, name, viewer, tuple(sorted(request.query_params.items())))
    return await _cached_html(request, key, build)


async def _viewer(request: Request, cid: str) -> Viewer:
    """The request's viewer of the campaign (no database read, nor thread, without accounts)."""
    if deps.auth(request) is None:
        return EVERYTHING
    return await run_in_threadpool(campaign_viewer, request, cid)


async def _cached_html(request: Request, key: tuple[Any, ...],
                       build: Callable[[], HTMLResponse]) -> HTMLResponse:
    """A page rendered with a placeholder token, kept until the database changes; each response
    carries the browser's own CSRF token."""
    service, renderer = deps.service(request), deps.renderer(request)

    def render() -> tuple[int, str]:
        with renderer.placeholder_token():
            response = build()
        return response.status_code, bytes(response.body).decode()

    token = service.token()  # once: on PostgreSQL it is a round trip
    status, text = service.cached(key, render, token) if service.has_cached(key, token) \
        else await run_in_threadpool(service.cached, key, render, token)
    return HTMLResponse(text.replace(renderer.PLACEHOLDER, renderer.token(request)),
                        status_code=status)


@router.post("/c/{cid}/do")
async def do(request: Request, cid: str) -> Response:
    """Record the command a page's form describes (``repeat`` times, each at the next version)."""
    form = await _form(request)
    service = deps.service(request)
    viewer = campaign_viewer(request, cid)
    try:
        campaign = service.load(cid)
        command = view_of(campaign.ruleset.name).translate(await _pairs_with_files(form))
        version = version_from_form(_text(form, "expected_version"))
        repeat = int(_text(form, "repeat") or 1)
        if not 1 <= repeat <= MAX_REPEAT:
            raise MalformedInputError(f"repeat {repeat} is out of range", where="repeat",
                                      fix=f"Repeat 1 to {MAX_REPEAT} times.")
        first, written = None, 0
        for n in range(repeat):
            done = service.execute(cid, {**command, "expected_version": version + n},
                                   dice=_text(form, "dice"), viewer=viewer)
            first, written = first or done.record.seq, n + 1
    except (RallypointError, ValueError) as exc:
        error = exc if isinstance(exc, RallypointError) else MalformedInputError(
            f"repeat: {exc}", where="repeat", fix="Type a whole number.")
        if written:
            error = partly_done(error, written, repeat)
        return campaign_page(request, service.load(cid), error, _text(form, "form"),
                             done=first, chosen=_selection(form), sent=_pairs(form))
    keep = urlencode(_selection(form))
    return _see(f"/c/{done.campaign.campaign_id}?done={first}{'&' + keep if keep else ''}"
                "#recorded")


@router.post("/c/{cid}/preview", response_class=HTMLResponse)
async def preview_fragment(request: Request, cid: str) -> HTMLResponse:
    """The live preview (htmx) of the command a form describes: its result or its refusal."""
    form = await _form(request)
    viewer = campaign_viewer(request, cid)
    campaign = deps.service(request).load(cid)
    result: SeatPreview | None = None
    try:
        result = deps.service(request).preview(cid, command_from_form(_pairs(form)), viewer)
        error = result.error
    except RallypointError as exc:
        error = exc
    view = view_of(campaign.ruleset.name)
    extra = view.preview_context(campaign, result) if result else {}
    return deps.renderer(request).html(
        request, view.preview_template, status=200, c=campaign, result=result,
        error=error, **extra)


@router.post("/c/{cid}/answer")
async def answer(request: Request, cid: str) -> Response:
    """Answer a pending decision with a named policy."""
    form = await _form(request)
    service = deps.service(request)
    try:
        done = service.answer(cid, _text(form, "decision"), _text(form, "policy"),
                              version_from_form(_text(form, "expected_version")),
                              campaign_viewer(request, cid))
    except RallypointError as exc:
        return campaign_page(request, service.load(cid), exc, _text(form, "form"))
    return _see(f"/c/{done.campaign.campaign_id}?done={done.record.seq}#recorded")


@router.post("/c/{cid}/undo")
async def undo(request: Request, cid: str) -> Response:
    """Undo the latest effective event (history is kept: an ``undone`` event is appended)."""
    form = await _form(request)
    service = deps.service(request)
    try:
        done = service.undo(cid, version_from_form(_text(form, "expected_version")),
                            campaign_viewer(request, cid))
    except RallypointError as exc:
        return campaign_page(request, service.load(cid), exc, "undo")
    return _see(f"/c/{done.campaign.campaign_id}?done={done.record.seq}#recorded")


@router.post("/c/{cid}/rename")
async def rename(request: Request, cid: str) -> Response:
    """Give the campaign a new name."""
    form = await _form(request)
    service = deps.service(request)
    campaign_viewer(request, cid)  # a stranger to the campaign learns nothing of it
    try:
        info = service.rename(cid, _text(form, "name") or "",
                              version_from_form(_text(form, "expected_version")),
                              account_id(request))
    except RallypointError as exc:
        return campaign_page(request, service.load(cid), exc, "rename", sent=_pairs(form))
    return _see(f"/c/{info.id}")


@router.post("/c/{cid}/delete")
async def delete(request: Request, cid: str) -> Response:
    """Delete the campaign (a backup export is written first, beside the database)."""
    form = await _form(request)
    service = deps.service(request)
    try:
        if form.get("confirm") != "yes":
            raise MalformedInputError("deleting needs the confirmation box ticked",
                                      where="confirm", fix="Tick the box, then delete.")
        name = service.info(cid).name
        campaign_viewer(request, cid)
        count, backup = service.delete(cid, version_from_form(_text(form, "expected_version")),
                                       account_id(request))
    except RallypointError as exc:
        return campaign_page(request, service.load(cid), exc, "delete", sent=_pairs(form))
    notice = (f"deleted {name!r} ({count} events); its backup is {backup}: import it to have "
              "the campaign back")
    return once.carry(request, _see("/"), "notice", "/", {"text": notice}, account_id(request))


@router.get("/c/{cid}/lab", response_class=HTMLResponse)
def lab_page(request: Request, cid: str) -> HTMLResponse:
    """The campaign's exact odds, and a small simulation drawn by the lab's plots."""
    from rallypoint.core.parts import odds_tables
    from rallypoint.core.registry import plugin
    from rallypoint.web import lab

    service = deps.service(request)
    viewer = campaign_viewer(request, cid)
    c = service.load(cid)
    view = view_of(c.ruleset.name)
    panel = view.lab_context(c, viewer=viewer) if view.lab_template else {}
    tables = [(t.title, t.rows) for t in odds_tables(plugin(c.ruleset.name), c.state)]
    simulation = lab.page_simulation(c)
    return deps.renderer(request).html(
        request, "lab.html", status=200, c=c, name=service.info(cid).name, error=None,
        error_form=None,
        lab_panel=view.lab_template, odds_tables=tables, simulation=simulation is not None,
        simulation_sentence=simulation.sentence.format(runs=lab.RUNS, entropy=lab.ENTROPY)
        if simulation else "", simulation_alt=simulation.alt.format(runs=lab.RUNS)
        if simulation else "",
        plot_note="The lab's simulations of this ruleset run from the command line: "
        "`rallypoint simulate --help`.", **panel)


@router.get("/c/{cid}/lab/rest.svg")
def lab_plot(request: Request, cid: str, narrow: bool = False) -> Response:
    """The lab part's simulation as histograms (SVG; ``?narrow=true``: one panel a row, for a
    phone), simulated and drawn once per database state. (The path keeps the name of the first
    simulation it drew, TCS's rest, so links stay good.)"""
    from rallypoint.web import lab

    service = deps.service(request)
    campaign_viewer(request, cid)
    run = service.cached(("lab-run", cid), lambda: lab.simulation_run(service.load(cid)))
    svg = service.cached(("lab-svg", cid, narrow),
                         lambda: lab.simulation_plot(service.load(cid), run, narrow))
    return Response(svg, media_type="image/svg+xml")


@router.get("/c/{cid}/log", response_class=HTMLResponse)
def log(request: Request, cid: str) -> HTMLResponse:
    """Every event with its rolls; undone events struck through."""
    service = deps.service(request)
    viewer = campaign_viewer(request, cid)
    c = service.load(cid)
    return deps.renderer(request).html(request, "log.html", c=c, name=service.info(cid).name,
                                       entries=service.log(cid, viewer))


@router.get("/c/{cid}/readings", response_class=HTMLResponse)
def readings(request: Request, cid: str) -> HTMLResponse:
    """The clauses the campaign's seed leaves open: each reading, why, its switch and the
    setting this campaign was created with (the same list as `rallypoint rules readings`)."""
    from rallypoint.core.readings import readings_of

    service = deps.service(request)
    campaign_viewer(request, cid)
    c = service.load(cid)
    return deps.renderer(request).html(
        request, "readings.html", c=c, name=service.info(cid).name,
        readings=readings_of(c.ruleset.name, c.created.rules_data))


@router.get("/c/{cid}/download/{name}.json")
def download(request: Request, cid: str, name: str) -> Response:
    """A file the ruleset's page offers (the platoon's battle roster)."""
    campaign_viewer(request, cid)
    campaign = deps.service(request).load(cid)
    offered = view_of(campaign.ruleset.name).downloads
    if name not in offered:
        raise UnknownIdError(f"this page offers no file {name!r}",
                             fix="Use the download links on the campaign's page.")
    text = json.dumps(offered[name](campaign), indent=2, ensure_ascii=False) + "\n"
    return Response(text, media_type="application/json", headers={
        "content-disposition": f'attachment; filename="{name}-v{campaign.version}.json"'})


@router.get("/c/{cid}/export")
def export(request: Request, cid: str) -> Response:
    """The campaign's export file, as a download."""
    name, text = deps.service(request).export_text(cid, campaign_viewer(request, cid))
    return Response(text, media_type="application/json",
                    headers={"content-disposition": f'attachment; filename="{name}"'})
