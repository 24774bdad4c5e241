"""Jinja2 rendering: autoescaped templates, the CSRF token, and number formatting helpers.

All user text (campaign, unit and men's names come from imported files) reaches the page only
through autoescaped templates; nothing here marks a string safe except SVG the library drew.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    PrefixLoader,
    StrictUndefined,
    select_autoescape,
)

from rallypoint.core.errors import RallypointError
from rallypoint.core.registry import plugins
from rallypoint.web.security import csrf_token
from rallypoint.web.settings import WebSettings
from rallypoint.web.words import web_message


def percent(value: Any) -> str:
    """``Fraction(2, 9)`` (or ``"2/9"``) → ``"22.2 %"``; never rounds a chance to 0 or 100."""
    p = Fraction(str(value))
    text = f"{float(p) * 100:.1f} %"
    if 0 < p < 1 and text in ("0.0 %", "100.0 %"):
        return "<0.1 %" if p < Fraction(1, 2) else ">99.9 %"
    return text


READABLE_DENOMINATOR = 1296
"""Exact fractions up to this denominator (four dice) are shown; beyond it, only the percent."""


def fraction(value: Any) -> str:
    """An exact fraction as text: ``"2/9"``, ``"1"``, ``"0"``."""
    return str(Fraction(str(value)))


def chance(value: Any) -> str:
    """``"2/9 (22.2 %)"``; only the percent when the exact fraction is too long to read."""
    p = Fraction(str(value))
    if p.denominator > READABLE_DENOMINATOR:
        return percent(p)
    return f"{p} ({percent(p)})"


def signed(value: int) -> str:
    """A modifier with its sign: ``+2``, ``-3``, ``+0``."""
    return f"{value:+d}"


def _ruleset_templates() -> BaseLoader:
    """Each ruleset's own templates, under its name: ``"tcs/campaign.html"`` is found in the
    ``templates/`` folder of the package its plugin names (a ruleset is one folder, its pages
    included); the generic pages stay in the web's own folder."""
    return PrefixLoader({
        name: PackageLoader(found.templates, "templates")
        for name, found in plugins().items() if found.templates is not None})


class Renderer:
    """Renders page templates with what every page needs (CSRF token, version, title)."""

    def __init__(self, directory: Path, settings: WebSettings) -> None:
        self.settings = settings
        self._placeholder = threading.local()
        self.env = Environment(
            loader=ChoiceLoader([_ruleset_templates(), FileSystemLoader(directory)]),
            autoescape=select_autoescape(["html", "svg"], default_for_string=True),
            undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
            auto_reload=False, cache_size=400,
        )
        self.env.filters.update(percent=percent, fraction=fraction, chance=chance, signed=signed)

    PLACEHOLDER = "csrf-placeholder-0000000000000000000000000000000000000000000000000000000"
    """Stands for the CSRF token in a rendered page kept in memory (replaced per response)."""

    @contextmanager
    def placeholder_token(self) -> Iterator[None]:
        """Render with :attr:`PLACEHOLDER` as the token (for a page cached across browsers)."""
        self._placeholder.active = True
        try:
            yield
        finally:
            self._placeholder.active = False

    def token(self, request: Request) -> str:
        """The CSRF token for the browser making ``request`` (see :mod:`.security`)."""
        if getattr(self._placeholder, "active", False):
            return self.PLACEHOLDER
        cookie = request.scope.get("state", {}).get("csrf_cookie") or ""
        return csrf_token(self.settings.secret, cookie)

    def html(self, request: Request, template: str, status: int = 200, **context: Any
             ) -> HTMLResponse:
        """Render ``template`` as a full page or, for htmx, as the fragment it is."""
        context.setdefault("account", request.scope.get("state", {}).get("account"))
        error = context.get("error")
        if isinstance(error, RallypointError):
            context["error_text"] = web_message(error, context.get("commands"),
                                                context.get("fields"))
        text = self.env.get_template(template).render(
            request=request, csrf_token=self.token(request),
            htmx=request.headers.get("hx-request") == "true", shared=self.settings.shared,
            **context)
        return HTMLResponse(text, status_code=status)
