"""``GET /healthz``: for a load balancer, a container runtime or an operator's probe.

200 with ``{"status": "ok", …}`` when the database answers and its migrations are current; 503
with the problem otherwise. It needs no login (a probe has none) and says nothing about any
campaign, account or seat.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from rallypoint import __version__

router = APIRouter()


@router.get("/healthz", include_in_schema=False)
async def healthz(request: Request) -> JSONResponse:
    """The database is reachable and its schema current (200), or what is wrong (503)."""
    from rallypoint.session.hosting import health

    settings = request.app.state.settings
    found = await run_in_threadpool(health, settings.db)
    body = {"status": "ok" if found.ok else "unavailable", "version": __version__,
            "backend": found.backend, "database": "reachable" if found.reachable else
            "unreachable", "migrations": "current" if found.migrations_current else "behind"}
    if found.problem is not None:
        body["problem"] = found.problem
    return JSONResponse(body, status_code=200 if found.ok else 503,
                        headers={"Cache-Control": "no-store"})
