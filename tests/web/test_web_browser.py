"""Each ruleset played through a real browser (Debian's chromium, headless), as a player would.

Every walk fails on any console error or failed request (see ``browser.py``) and saves the
screenshots shown in the README (docs/screenshots/).
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from web.browser import browser_page, shot
from web.conftest import LiveServer


def _create(page: Page, scenario: str, name: str, seed: str) -> None:
    page.goto("/")
    page.select_option("#scenario", label=scenario)
    page.fill("#name", name)
    page.fill("#seed", seed)
    page.click("#create-button")
    expect(page.locator("h1")).to_have_text(name)


def _company_row(page: Page, company: str) -> str:
    return page.locator(f"[id='company-{company}']").inner_text()


def test_tcs_recovery_example1(live_server: LiveServer) -> None:
    with browser_page(live_server.url) as (page, _):
        _create(page, "tcs: example1 tolvajarvi", "Tolvajärvi", "browser")
        expect(page.locator("#version")).to_have_text("version 1")
        # The seed's Recovery Op Sheet: the battalion, its companies' centers, size 1.
        page.check("input[name='l:members'][value='ErP112']")
        for member, hex_ in (("ErP112", "8.21"), ("1/ErP112", "23.15"), ("2/ErP112", "17.21")):
            page.fill(f"input[name='ms:centers.{member}']", hex_)
        page.check("#attest")
        page.click("text=Write up the sheet")
        expect(page.locator("#recorded")).to_contain_text("row 3 (prep 2 + size 1)")
        page.fill("#repeat", "6")
        page.click("#advance")
        expect(page.locator("#recorded")).to_contain_text("rest +3 (unassigned) = 18")
        # The exact odds of the next check: 18 weighted turns, row 3, needs 55+ on d66 = 2/9.
        odds = page.locator("#sheets table").inner_text()
        assert re.search(r"now \(turn 7\)\s+10:00\s+18\s+55\+\s+2/9 \(22\.2 %\)", odds), odds
        page.select_option("#morale-f", "ErP112")
        page.fill("#morale-v", "2")
        page.fill("#morale-r", "dropped to 2 while resting")
        page.click("text=Record morale")
        shot(page, "tcs-sheet")
        # Implementation with the player's own dice: d66 6,6, then recovery dice 5, 1, 4.
        page.fill("#dice-rest", "6,6,5,1,4")
        page.click("text=Check implementation of rest")
        recorded = page.locator("#recorded")
        expect(recorded).to_contain_text("IMPLEMENTS")
        expect(recorded).to_contain_text("d66 6,6→66 = 66 → implements")
        expect(page.locator("#due")).to_contain_text("1/ErP 112th recovered 3 step(s)")
        # Distribute 1/ErP 112th's 3 steps, watching the live preview.
        first = page.locator("#distribute-1")
        first.locator("input[name='mi:resurrect.1/ErP112-d-1']").fill("4")
        expect(first.locator(".preview")).to_contain_text("spends 4 steps but 1/ErP112 "
                                                          "recovered 3")
        first.locator("input[name='mi:resurrect.1/ErP112-d-1']").fill("3")
        first.locator("input[name='l:very_dead'][value='1/ErP112-d-2']").check()
        preview = first.locator(".preview")
        expect(preview).to_contain_text("Legal")
        expect(preview.locator("tr", has_text="1/ErP112-d-1")).to_contain_text("map 3/5 @23.15")
        expect(preview.locator("tr", has_text="1/ErP112-d-2")).to_contain_text("very dead")
        shot(page, "tcs-distribute", part="#distribute-1")
        assert "1/ErP112-d-2" in _company_row(page, "1/ErP112").split("\t")[2]  # still Dead
        first.locator("text=Record this distribution").click()
        expect(page.locator("#recorded")).to_contain_text("1/ErP112 distributes 3 step(s)")
        # The piles changed: d-1 is back on the map, d-2 is Very Dead, d-3 still Dead.
        cells = _company_row(page, "1/ErP112").split("\t")
        assert "1/ErP112-d-1" in cells[1] and "3/5 @23.15" in cells[1]
        assert "1/ErP112-d-3" in cells[2] and "1/ErP112-d-2" not in cells[2]
        assert "1/ErP112-d-2" in cells[3]
        # The other two companies by the default policy; the last rolls battalion morale.
        for _ in range(2):
            page.locator("#distribute-1 >> text=Policy: rebuild").click()
            expect(page.locator("#recorded")).to_contain_text("distributes")
        expect(page.locator("#recorded")).to_contain_text("battalion morale recovery")
        assert page.locator("#due").count() == 0
        shot(page, "tcs-after", part="#companies")
        page.click("nav >> text=log")
        expect(page.locator("#e10")).to_contain_text("needs 55+: P(implements) = 2/9")
        shot(page, "tcs-log")
        # The lab: the sheet's odds and a small simulated rest, drawn by the lab's own plots.
        page.click("nav >> text=lab")
        page.wait_for_load_state("networkidle", timeout=60_000)
        assert page.locator("#simulation img").evaluate("img => img.naturalWidth") > 0
        shot(page, "tcs-lab", full_page=True)
        # On paper: the forms and the navigation are left out.
        page.click("nav >> text=Tolvajärvi")
        page.emulate_media(media="print")
        assert not page.locator("#turn").is_visible() and page.locator("#companies").is_visible()
        shot(page, "tcs-print", full_page=True)


def test_tcs_page_at_phone_width(live_server: LiveServer) -> None:
    with browser_page(live_server.url, width=360, height=740) as (page, _):
        _create(page, "tcs: example1 tolvajarvi", "ex1", "phone")
        # Nothing wider than the screen but the tables, which scroll inside their panel.
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= 360, overflow
        shot(page, "tcs-phone")


def test_platoon_week(live_server: LiveServer) -> None:
    with browser_page(live_server.url) as (page, _):
        _create(page, "platoon: italy 1944", "italy", "italy-1944")
        expect(page.locator("#calendar")).to_contain_text("year 1, day 1")
        with page.expect_download() as download:
            page.click("#roster-download")
        assert download.value.suggested_filename == "roster-v1.json"
        # Day 1's battle report, only what happened: crew 3 knocked out, two men hit.
        page.select_option("#t-3-r", "knocked_out")
        page.fill("#t-3-o", "3")
        page.check("input[name='tank.3.bailed_out']")
        page.fill("#t-3-c", "45")
        page.select_option("#m-m011", "killed")
        page.select_option("#m-m014", "light")
        page.fill("#report-dice", "2,1")
        page.click("#report-submit")
        recorded = page.locator("#recorded")
        expect(recorded).to_contain_text("battle report for day 1")
        expect(recorded).to_contain_text("Kowalski killed")
        expect(recorded).to_contain_text("Novak lightly wounded, fit on day 4")
        # 14.8: crew 3 has lost its commander; the lieutenant gives the seat to its gunner.
        decision = page.locator("#decision-1")
        expect(decision).to_contain_text("crew 3 has no commander")
        decision.locator("select").select_option("m012")
        shot(page, "platoon-decision")
        decision.locator("text=Give him the seat").click()
        roster = page.locator("#roster tbody tr", has_text="Lopez")
        expect(roster).to_contain_text("commander")
        # The rest of the week: STAND-IN battles on action days, rest otherwise, decisions by
        # policy.
        for _ in range(6):
            if page.locator("[id^='decision-'] >> text=Policy: by_trade").count():
                page.locator("[id^='decision-'] >> text=Policy: by_trade").first.click()
            elif page.locator("text=Fight with the STAND-IN battle").count():
                page.click("text=Fight with the STAND-IN battle")
            else:
                page.click("#rest-day")
            expect(page.locator("#recorded")).to_be_visible()
        found = re.search(r"day (\d+)", page.locator("#calendar").inner_text())
        assert found is not None
        day = int(found.group(1))
        assert day >= 5
        shot(page, "platoon-roster", part="#roster")


def test_squares_rally(live_server: LiveServer) -> None:
    with browser_page(live_server.url, width=1000) as (page, _):
        _create(page, "squares: farm below the ridge", "ridge", "ridge")
        page.select_option("#act-who", "79th")
        page.click("#activate button:has-text('Activate')")
        expect(page.locator("#recorded")).to_contain_text("recovers from disorder automatically")
        # Click the 28th Foot on the board: who may rally it, every modifier named, exact odds.
        page.click("#sq-C2 >> text=28th")
        panel = page.locator("#unit-panel")
        kempt = panel.locator(".panel", has_text="Kempt rallies for disorder")
        expect(kempt).to_contain_text("+1 friendly fortification (walled_farm at C2)")
        expect(kempt).to_contain_text("-3 SP lost from starting stamina (6→3)")
        expect(kempt).to_contain_text("pass 1/3 (33.3 %) · no effect 2/3 (66.7 %) · break 0")
        shot(page, "squares-odds")
        kempt.locator("input[name='dice']").fill("5")
        kempt.locator("text=Kempt rallies 28th (disorder)").click()
        expect(page.locator("#recorded")).to_contain_text("PASSES — disorder removed")
        expect(page.locator("#sq-C2")).to_contain_text("kempt")  # he moved in and attached
        assert " D" not in page.locator("#sq-C2 .piece").first.inner_text()
        # The 44th has an enemy adjacent: no leader may rally it, and the page says why.
        page.click("#sq-F3 >> text=44th")
        expect(page.locator("#unit-panel")).to_contain_text("No leader may rally it now")
        expect(page.locator("#unit-panel")).to_contain_text("enemy adjacent")
        shot(page, "squares-board", part="#board")
