"""Typed access to what the app holds (``request.app.state`` is untyped)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from fastapi import Request

if TYPE_CHECKING:
    from rallypoint.web.auth import Auth
    from rallypoint.web.render import Renderer
    from rallypoint.web.service import Service
    from rallypoint.web.settings import WebSettings


def service(request: Request) -> Service:
    """The app's session-API seam."""
    return cast("Service", request.app.state.service)


def renderer(request: Request) -> Renderer:
    """The app's template renderer."""
    return cast("Renderer", request.app.state.renderer)


def settings(request: Request) -> WebSettings:
    """The app's settings."""
    return cast("WebSettings", request.app.state.settings)


def auth(request: Request) -> Auth | None:
    """The shared server's accounts and seats (``None``: a server without accounts)."""
    return cast("Auth | None", request.app.state.auth)
