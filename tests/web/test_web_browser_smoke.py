"""The browser sees the campaigns page with its stylesheet and htmx, and no console error."""

from __future__ import annotations

from web.browser import browser_page
from web.conftest import LiveServer


def test_index_loads_in_chromium(live_server: LiveServer) -> None:
    with browser_page(live_server.url) as (page, _):
        page.goto("/")
        assert page.locator("h1").inner_text() == "Campaigns"
        assert page.evaluate("typeof htmx") == "object"
