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


def _in_view(page: Page, selector: str) -> bool:
    """Whether the element's box lies inside the window (not merely on the page)."""
    return bool(page.locator(selector).evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }"))


@pytest.mark.parametrize("width", WIDTHS)
def test_refused_platoon_report_keeps_every_value(live_server: LiveServer, width: int) -> None:
    with browser_page(live_server.url, width=width, height=800,
                      allowed_statuses=frozenset({400})) as (page, _):
        _create(page, "platoon: italy 1944", "italy", "italy-1944")
        # A whole report typed in, but crew 3 knocked out with no days at ordnance.
        page.select_option("#t-3-r", "knocked_out")
        page.check("input[name='tank.3.bailed_out']")
        page.fill("#t-3-c", "45")
        page.select_option("#t-1-r", "hit")
        page.fill("#t-1-c", "51")
        page.select_option("#m-m011", "killed")
        page.select_option("#m-m014", "light")
        page.check("input[name='objective']")
        page.fill("#report-dice", "2,1")
        page.click("#report-submit")
        # Refused: nothing written, and every value is as the player left it.
        expect(page.locator("#error-top")).to_contain_text("ordnance_days goes with knocked_out")
        expect(page.locator("#version")).to_have_text("version 1")
        expect(page.locator("#t-3-r")).to_have_value("knocked_out")
        expect(page.locator("#t-1-r")).to_have_value("hit")
        expect(page.locator("#t-2-r")).to_have_value("unhit")
        expect(page.locator("#t-3-c")).to_have_value("45")
        expect(page.locator("#t-1-c")).to_have_value("51")
        expect(page.locator("#m-m011")).to_have_value("killed")
        expect(page.locator("#m-m014")).to_have_value("light")
        expect(page.locator("input[name='tank.3.bailed_out']")).to_be_checked()
        expect(page.locator("input[name='tank.1.bailed_out']")).not_to_be_checked()
        expect(page.locator("input[name='objective']")).to_be_checked()
        expect(page.locator("#report-dice")).to_have_value("2,1")
        # The error sits beside the field, in view, and the field has the focus.
        expect(page.locator("#t-3-o")).to_be_focused()
        expect(page.locator("#t-3-o")).to_have_attribute("aria-invalid", "true")
        assert _in_view(page, "#field-error"), "the error beside the field is out of view"
        shot(page, f"platoon-refused-{width}")
        # Fixed in place, the same report is recorded.
        page.fill("#t-3-o", "3")
        page.click("#report-submit")
        expect(page.locator("#recorded")).to_contain_text("battle report for day 1")
        expect(page.locator("#recorded")).to_contain_text("Kowalski killed")
