"""The HTML pages. Each renders what the session API returns; forms post back here."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from rallypoint.web import deps

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    """The campaigns list, with the forms to create or import one."""
    service = deps.service(request)
    return deps.renderer(request).html(
        request, "index.html", campaigns=service.campaigns(), scenarios=service.scenarios(),
        error=None, notice=None)
