"""Issue 22's web walks, as a new player would take them (Debian's chromium, headless), at desk
width and at 360 px: a refused form keeps what was typed and shows its error in view, the squares
board fits a phone without overprinted text, the API docs load under the app's own CSP.

Every walk fails on any console error or failed request (see ``browser.py``).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from web.browser import browser_page, shot
from web.conftest import LiveServer

WIDTHS = [pytest.param(1100, id="desk"), pytest.param(360, id="phone")]


def _create(page: Page, scenario: str, name: str, seed: str) -> None:
    page.goto("/")
    page.select_option("#scenario", label=scenario)
    page.fill("#name", name)
    page.fill("#seed", seed)
    page.click("#create-button")
    expect(page.locator("h1")).to_have_text(name)


@pytest.mark.parametrize("width", WIDTHS)
def test_api_docs_render_under_the_csp(live_server: LiveServer, width: int) -> None:
    with browser_page(live_server.url, width=width) as (page, problems):
        page.goto("/")
        page.click("nav >> text=API")
        # Swagger UI drew the schema: its title and an operation of ours.
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("rallypoint")
        expect(page.locator(".opblock-summary-path", has_text="/api/campaigns/{ref}/commands")
               .first).to_be_visible()
        page.wait_for_load_state("networkidle")
        assert not problems.console, problems.console
        shot(page, f"api-docs-{width}")
