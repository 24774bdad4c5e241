"""Shared play, live: whose move and what changed since you looked, and an open page that hears
when the campaign moves (issue 22).

- ``GET /c/ID/live``: server-sent events. The stream sends only ``changed`` (its data: the new
  version) when the campaign's head moves, never a state or a summary, so it carries nothing to
  filter; the page's htmx SSE extension then fetches the news fragment, filtered for the seat
  like every page. It is opened by the seat's own cookie (a stranger gets the 404 of an unknown
  campaign) and checks the seat again before each signal, so a logout ends it. Each stream
  polls the head through the service's change mark (two ``stat`` calls on SQLite, the WAL
  position on PostgreSQL; the campaign row only when that moved), which every worker process
  of a server sees alike; it ends after :attr:`WebSettings.live_seconds` and the browser
  reconnects (``retry``).
- ``GET /c/ID/news?since=V``: the fragment: whose move, and the events after version ``V`` as
  the seat's log shows them.
- ``GET /api/campaigns/{ref}/news``: the same as JSON.

The campaign page and the campaign list ask :func:`page_news` and :func:`list_news`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Mapping
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, StreamingResponse

from rallypoint.core.errors import RallypointError
from rallypoint.core.visibility import Viewer
from rallypoint.session import Campaign, CampaignInfo
from rallypoint.web import deps
from rallypoint.web.api import REFUSALS, Ref
from rallypoint.web.auth import campaign_viewer
from rallypoint.web.news import Move, News, news, whose_move
from rallypoint.web.rulesets import RulesetView, view_of

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api", tags=["campaigns"], responses=REFUSALS)

KEEP_ALIVE = 15.0
"""Seconds between comment lines on a quiet stream (a proxy keeps it open; a gone browser is
noticed)."""


def subject_fields(view: RulesetView) -> dict[str, str]:
    """Command kind → the field a due item's subject fills, from the page's ``due_actions``
    (``s:sheet`` → ``sheet``)."""
    return {kind: a.field.split(":", 1)[-1] for kind, a in view.due_actions.items() if a.field}


def move_of(campaign: Campaign, viewer: Viewer, context: Mapping[str, Any]) -> Move:
    """Whose move it is on the campaign's page as ``viewer`` sees it."""
    return whose_move(campaign, viewer, context,
                      subject_fields(view_of(campaign.ruleset.name)))


def _account(request: Request) -> str | None:
    auth = deps.auth(request)
    account = auth.account_of(request) if auth is not None else None
    return None if account is None else account.id


def seen_mark(request: Request, ref: str) -> int | None:
    """The seq the request's account last saw of the campaign ``ref`` names (``None``: never,
    an unknown campaign, or a server without accounts)."""
    service, account = deps.service(request), _account(request)
    if service.book is None or account is None:
        return None
    try:
        return service.book.seen(service.info(ref).id, account)
    except RallypointError:
        return None


def page_news(request: Request, campaign: Campaign, viewer: Viewer,
              context: Mapping[str, Any]) -> dict[str, Any]:
    """The campaign page's "whose move / since you last looked" (shared servers), then the
    account's mark moved to the version the page shows."""
    service, account = deps.service(request), _account(request)
    if service.book is None or account is None:
        return {}
    since = service.book.seen(campaign.campaign_id, account)
    found = news(service.log(campaign.campaign_id, viewer), since, campaign.version)
    service.book.mark_seen(campaign.campaign_id, account, campaign.version)
    return {"move": move_of(campaign, viewer, context), "news": found}


def list_news(request: Request, campaigns: list[CampaignInfo]) -> dict[str, dict[str, Any]]:
    """Campaign id → whose move and how many events came since the account last looked, for
    the campaign list (shared servers; each read as that account's seat sees it)."""
    service, auth, account = deps.service(request), deps.auth(request), _account(request)
    if service.book is None or auth is None or account is None:
        return {}
    seen = service.book.seen_by(account)
    found: dict[str, dict[str, Any]] = {}
    for info in campaigns:
        viewer = service.book.viewer(info.id, account)
        if viewer is None:
            continue
        move = service.cached(("move", info.id, viewer), functools.partial(
            _move, request, info.id, viewer))
        since = seen.get(info.id)
        found[info.id] = {"move": move, "new": None if since is None else info.version - since}
    return found


def _move(request: Request, campaign_id: str, viewer: Viewer) -> Move:
    campaign = deps.service(request).load(campaign_id)
    context = view_of(campaign.ruleset.name).context(campaign, viewer=viewer)
    return move_of(campaign, viewer, context)


def _news_now(request: Request, ref: str, since: int | None) -> tuple[Campaign, Move, News]:
    """Whose move and the news after ``since`` (``None``: the account's mark), for ``ref``."""
    viewer = campaign_viewer(request, ref)
    service = deps.service(request)
    campaign = service.load(service.info(ref).id)
    context = view_of(campaign.ruleset.name).context(campaign, viewer=viewer)
    if since is None:
        since = seen_mark(request, campaign.campaign_id)
    found = news(service.log(campaign.campaign_id, viewer), since, campaign.version)
    return campaign, move_of(campaign, viewer, context), found


@router.get("/c/{cid}/news", response_class=HTMLResponse)
def news_fragment(request: Request, cid: str,
                  since: int = Query(0, ge=0, description="the version the page shows")
                  ) -> HTMLResponse:
    """Whose move and what changed after version ``since`` (the live page swaps it in)."""
    campaign, move, found = _news_now(request, cid, since)
    service, account = deps.service(request), _account(request)
    if service.book is not None and account is not None:
        service.book.mark_seen(campaign.campaign_id, account, campaign.version)
    return deps.renderer(request).html(request, "news.html", c=campaign, move=move,
                                       news=found, page_version=since)


@api_router.get("/campaigns/{ref}/news")
def news_json(request: Request, ref: Ref,
              since: int | None = Query(None, ge=0, description="a version (default: the "
                                        "one you last saw)")) -> dict[str, Any]:
    """Whose move, and the events after ``since`` (newest first, as your log shows them).
    Reading it does not move your mark: the campaign page does."""
    campaign, move, found = _news_now(request, ref, since)
    return {"campaign": campaign.campaign_id, "move": move.to_json(), **found.to_json()}


@router.get("/c/{cid}/live")
async def live(request: Request, cid: str,
               v: int | None = Query(None, ge=0, description="the version the page shows")
               ) -> StreamingResponse:
    """Server-sent events: ``changed`` each time the campaign's version moves (see above)."""
    viewer = await run_in_threadpool(campaign_viewer, request, cid)
    service = deps.service(request)
    info = await run_in_threadpool(service.info, cid)
    settings = deps.settings(request)
    return StreamingResponse(
        _signals(request, info.id, info.version if v is None else v, viewer,
                 settings.live_poll, settings.live_seconds),
        media_type="text/event-stream", headers={"x-accel-buffering": "no"})


async def _signals(request: Request, campaign_id: str, shown: int, viewer: Viewer,
                   poll: float, lasting: float) -> AsyncIterator[str]:
    """The stream: a ``changed`` event whenever the version differs from the last one sent
    (the first: from the page's), a comment now and then; it ends when the browser goes, the
    seat no longer sees the campaign, or after ``lasting`` seconds."""
    loop = asyncio.get_running_loop()
    end, quiet = loop.time() + lasting, loop.time()
    yield f"retry: {int(max(poll, 1.0) * 2000)}\n\n"
    while loop.time() < end and not await request.is_disconnected():
        version = await run_in_threadpool(_version, request, campaign_id, viewer)
        if version is None:
            yield "event: gone\ndata: \n\n"
            return
        if version != shown:
            shown, quiet = version, loop.time()
            yield f"event: changed\ndata: {version}\n\n"
        elif loop.time() - quiet >= KEEP_ALIVE:
            quiet = loop.time()
            yield ": still here\n\n"
        await asyncio.sleep(poll)


def _version(request: Request, campaign_id: str, viewer: Viewer) -> int | None:
    """The campaign's version now, if the request's seat still sees it as ``viewer`` (``None``:
    deleted, logged out, or the seat changed)."""
    try:
        version = deps.service(request).info(campaign_id).version
        if deps.auth(request) is not None and campaign_viewer(request, campaign_id) != viewer:
            return None
    except RallypointError:
        return None
    return version
