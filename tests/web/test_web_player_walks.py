"""Issue 22's web walks, as a new player would take them (Debian's chromium, headless), at desk
width and at 360 px: a refused form keeps what was typed and shows its error in view, the squares
board fits a phone without overprinted text, the API docs load under the app's own CSP.

Every walk fails on any console error or failed request (see ``browser.py``).
"""

from __future__ import annotations

from pathlib import Path

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


def _in_view(page: Page, selector: str) -> None:
    """The element is drawn whole inside the window (not merely somewhere on the page), once
    the page has settled as a player's browser draws it.

    Why waiting: the browser scrolls the field it focuses (``autofocus``) into view as it
    lays the page out. Asked once, at one instant, the check failed once at the phone size in
    a whole run on two workers (two cores, loaded), never alone; a player looks at the page
    once it has settled. ``to_be_in_viewport`` asks the browser's own intersection observer,
    again until the timeout, so an error never brought into view still fails.
    """
    element = page.locator(selector)
    expect(element).to_be_visible()
    expect(element).to_be_in_viewport(ratio=1)


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
        _in_view(page, "#field-error")
        shot(page, f"platoon-refused-{width}")
        # Fixed in place, the same report is recorded.
        page.fill("#t-3-o", "3")
        page.click("#report-submit")
        expect(page.locator("#recorded")).to_contain_text("battle report for day 1")
        expect(page.locator("#recorded")).to_contain_text("Kowalski killed")


TWO_SIDES = Path(__file__).resolve().parents[1] / "data" / "tcs_two_sides.toml"


@pytest.mark.parametrize("width", WIDTHS)
def test_refused_tcs_forms_keep_input_and_say_what_was_written(live_server: LiveServer,
                                                               width: int) -> None:
    with browser_page(live_server.url, width=width, height=800,
                      allowed_statuses=frozenset({400, 409})) as (page, _):
        page.goto("/")
        page.set_input_files("#scenario-file", str(TWO_SIDES))
        page.fill("#name", "both")
        page.fill("#seed", "walk")
        page.click("#create-button")
        expect(page.locator("h1")).to_have_text("both")
        # A sheet typed in whole, but its centers not attested: refused, nothing lost.
        page.fill("#sheet-id", "F-hideout")
        page.check("input[name='l:members'][value='ErP112']")
        page.fill("input[name='ms:centers.1/ErP112']", "22.15")
        page.fill("#sheet-size", "0")
        page.click("text=Write up the sheet")
        expect(page.locator("#error-top")).to_be_visible()
        expect(page.locator("#version")).to_have_text("version 1")
        expect(page.locator("#sheet-id")).to_have_value("F-hideout")
        expect(page.locator("input[name='l:members'][value='ErP112']")).to_be_checked()
        expect(page.locator("input[name='l:members'][value='1/609']")).not_to_be_checked()
        expect(page.locator("input[name='ms:centers.1/ErP112']")).to_have_value("22.15")
        expect(page.locator("#sheet-size")).to_have_value("0")
        # In web words, beside the box to tick, which has the focus.
        expect(page.locator("#field-error")).to_contain_text("tick the box that attests them")
        assert "--attest" not in page.locator("#error-top").inner_text()
        expect(page.locator("#attest")).to_be_focused()
        _in_view(page, "#field-error")
        shot(page, f"tcs-refused-{width}")
        page.check("#attest")
        page.click("text=Write up the sheet")
        expect(page.locator("#recorded")).to_contain_text("F-hideout")
        # 08:00: the dead Soviet FO's roll is due. The web words it (no CLI option), and the
        # box to let it pass is there.
        page.fill("#repeat", "4")
        page.click("#advance")
        error = page.locator("#error-top")
        expect(error).to_contain_text("the dead FOs' roll of 08:00 is due")
        expect(error).to_contain_text("skip this hour's FO roll")
        assert "--skip-fo" not in error.inner_text() and "`" not in error.inner_text()
        expect(page.locator("#repeat")).to_have_value("4")
        page.check("#skip-fo")
        page.fill("#repeat", "1")
        page.click("#advance")
        expect(page.locator("#recorded")).to_contain_text("08:20")
        # Four turns asked at 08:20: 08:40 and 09:00 are written, then 09:00's roll is due.
        page.fill("#repeat", "4")
        page.click("#advance")
        error = page.locator("#error-top")
        expect(error).to_contain_text("2 of 4 recorded")
        expect(error).to_contain_text("the dead FOs' roll of 09:00 is due")
        expect(page.locator("#recorded li")).to_have_count(2)
        expect(page.locator("#version")).to_have_text("version 5")


@pytest.mark.parametrize("width", WIDTHS)
def test_every_ruleset_says_what_next_with_its_button(live_server: LiveServer,
                                                      width: int) -> None:
    with browser_page(live_server.url, width=width, height=800) as (page, _):
        _create(page, "platoon: italy 1944", "italy", "italy-1944")
        due = page.locator("#due")
        expect(due).to_contain_text("day 1 holds an action: report its battle")
        due.locator("text=Fill in the battle report").click()
        assert page.url.endswith("#report")
        page.click("#report-submit")     # nothing happened in this battle
        expect(page.locator("#recorded")).to_contain_text("battle report for day 1")
        expect(page.locator("#due")).to_contain_text("day 2 holds an action")
        shot(page, f"platoon-next-{width}")
        _create(page, "squares: farm below the ridge", "ridge", "ridge")
        due = page.locator("#due")
        expect(due).to_contain_text("start turn 2")
        expect(due).not_to_contain_text("`")
        page.click("#next-turn")
        expect(page.locator("#recorded")).to_contain_text("turn 2")
        expect(page.locator("#due")).to_contain_text("start turn 3")
        page.select_option("#act-who", "79th")
        page.click("#activate button:has-text('Activate')")
        rally = page.locator("#due li", has_text="28th Foot may be rallied by")
        rally.locator("text=Who may rally it").click()
        expect(page.locator("#unit-panel")).to_contain_text("Kempt rallies for disorder")
        shot(page, f"squares-next-{width}")


OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll('#board .piece, #board .terrain-name, #board th')]
    .map(e => ({text: e.innerText.trim(), r: e.getBoundingClientRect(),
                clipped: e.scrollWidth > e.clientWidth + 1}));
  const found = [];
  for (const b of boxes) if (b.clipped) found.push('clipped: ' + b.text);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (x > 1 && y > 1) found.push(boxes[i].text + ' / ' + boxes[j].text);
  }
  return found;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_squares_board_has_no_overlapping_text(live_server: LiveServer, width: int) -> None:
    with browser_page(live_server.url, width=width, height=800) as (page, _):
        _create(page, "squares: farm below the ridge", "ridge", "ridge")
        # Wellington attaches to a unit: the longest label the board draws.
        page.select_option("#act-who", "79th")
        page.click("#activate button:has-text('Activate')")
        expect(page.locator("#recorded")).to_be_visible()
        shot(page, f"squares-board-{width}", part="#board")
        assert page.evaluate(OVERLAPS) == []
        # The page never scrolls sideways; only the board may, inside its panel.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # Sides are told apart without colour: a letter on each piece and a border style.
        pieces = page.locator("#board .piece")
        styles = {pieces.nth(i).evaluate("e => getComputedStyle(e).borderTopStyle")
                  for i in range(pieces.count())}
        assert styles == {"solid", "dashed"}
