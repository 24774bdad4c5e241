"""The FastAPI application: guards, error mapping, static files, the pages and the JSON API."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from rallypoint.web import errors
from rallypoint.web.security import GuardMiddleware
from rallypoint.web.settings import WebSettings

HERE = Path(__file__).parent


def create_app(settings: WebSettings) -> FastAPI:
    """Build the web app for one database.

    Args:
        settings: Database, bind address and limits (see :class:`WebSettings`).
    """
    from rallypoint import __version__
    from rallypoint.web import accounts, api, builder, health, live, pages
    from rallypoint.web.render import Renderer
    from rallypoint.web.service import Service

    app = FastAPI(
        title="rallypoint",
        version=__version__,
        summary="Campaign keeper for wargame recovery: the session API over HTTP.",
        description=(
            "Every state-changing request takes the campaign version it was made against and is "
            "refused as `stale-version` (409) if the campaign has moved on. Refusals are 4xx "
            "with `{code, message}` using the library's error codes; nothing is written. "
            "Write requests must send `Content-Type: application/json`."),
        docs_url=None, redoc_url=None, openapi_url="/api/openapi.json",
        lifespan=_lifespan,
    )
    _start_pool(settings)
    service = Service(settings.db, shared=settings.shared, backups=settings.backups)
    app.state.auth = None
    if service.book is not None:
        from rallypoint.web.auth import Auth

        key = service.book.web_key()
        app.state.auth = Auth(service.book, key)
        # Every process on the database signs CSRF tokens with the same key.
        settings = replace(settings, secret=hmac.new(key, b"csrf", hashlib.sha256).digest())
    app.state.mailer = None
    if service.book is not None and settings.smtp_host:
        from rallypoint.web.mail import Mailer

        app.state.mailer = Mailer(settings, service)
        service.after_write = app.state.mailer.after_write
    app.state.settings = settings
    app.state.service = service
    app.state.renderer = Renderer(HERE / "templates", settings)
    errors.install(app)
    app.include_router(health.router)
    app.include_router(api.router)
    app.include_router(accounts.api_router)
    app.include_router(live.api_router)
    app.include_router(pages.router)
    app.include_router(builder.router)
    app.include_router(accounts.router)
    app.include_router(live.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    app.add_middleware(GuardMiddleware, settings=settings)
    if settings.access_log:
        from rallypoint.web.logs import AccessLogMiddleware

        app.add_middleware(AccessLogMiddleware)  # outermost: refused requests are logged too
    return app


def _start_pool(settings: WebSettings) -> None:
    """A server process pools its PostgreSQL connections (``settings.pool_size``)."""
    from rallypoint.session.hosting import start_pool

    start_pool(settings.db, settings.pool_size)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    from rallypoint.session.hosting import stop_pool

    stop_pool(app.state.settings.db)
