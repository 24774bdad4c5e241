"""A two-player game in real browsers on a shared server: from invite to each side's own view.

Ann signs up, creates the two-sided campaign from its file, and gets one invite link per seat;
she takes Finland's and writes her Recovery Op Sheet with the page's form. Bob, in another
browser, signs up, opens the Soviet invite, writes his sheet and advances three turns. Each sees
their own sheet with its exact odds and nothing of the other's (screenshots for the docs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from web.browser import browser_pages, shot
from web.conftest import LiveServer

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "tcs_two_sides.toml"
PASSWORD = "correct horse battery"


@pytest.fixture
def shared_server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "shared.db", shared=True) as server:
        yield server


def _sign_up(page: Page, login: str, then: str = "/") -> None:
    page.goto(then)
    expect(page).to_have_url(re.compile(r"/login"))
    page.fill("#signup-name", login)
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-button")


def _write_sheet(page: Page, sheet: str, member: str, center: str, size: str) -> None:
    page.fill("#sheet-id", sheet)
    page.check(f"input[name='l:members'][value='{member}']")
    page.fill(f"input[name='ms:centers.{member}']", center)
    page.fill("#sheet-size", size)
    page.check("#attest")
    page.click("text=Write up the sheet")
    expect(page.locator("#recorded")).to_contain_text(f"Recovery Op Sheet {sheet} written")


def test_each_side_sees_only_its_own_sheet(shared_server: LiveServer) -> None:
    with browser_pages(shared_server.url, 2) as ((ann, bob), _):
        _sign_up(ann, "ann")
        expect(ann.locator(".who")).to_have_text("ann")
        ann.set_input_files("#scenario-file", str(SCENARIO))
        ann.fill("#name", "Tolvajarvi")
        ann.click("#create-button")
        expect(ann.locator("#invites")).to_contain_text("soviet")
        shot(ann, "seats-invites")
        links = {a.get_attribute("data-seat"): a.get_attribute("href")
                 for a in ann.locator("a.invite").all()}
        assert set(links) == {"finland", "soviet"}  # no referee seat unless opened
        ann.goto(str(links["finland"]))
        ann.click("#join-button")
        expect(ann.locator("h1")).to_have_text("Tolvajarvi")
        campaign = ann.url
        _write_sheet(ann, "F-hideout", "1/ErP112", "22.15", "0")

        # Bob, in his own browser context (his own cookies).
        _sign_up(bob, "bob", then=str(links["soviet"]))
        bob.click("#join-button")
        _write_sheet(bob, "S-lair", "1/609", "31.10", "1")
        # The dead Soviet FO rolls at 08:00 before the turn may leave the hour.
        bob.click("text=Roll for the dead FOs")
        expect(bob.locator("#recorded")).to_contain_text("FO")
        bob.fill("#repeat", "3")
        bob.click("#advance")
        expect(bob.locator("#recorded")).to_contain_text("sheet S-lair +3 (9 weighted turns)")
        bob.goto(campaign)
        sheets = bob.locator("#sheets").inner_text()
        assert "S-lair" in sheets and "F-hideout" not in sheets
        assert "F-hideout" not in bob.content() and "22.15" not in bob.content()
        shot(bob, "seats-soviet-sheets", part="#sheets")
        bob.goto(campaign + "/log")
        expect(bob.locator("main")).to_contain_text("a Recovery Op Sheet was written "
                                                    "(withheld)")
        assert "F-hideout" not in bob.content()
        shot(bob, "seats-soviet-log")

        ann.goto(campaign)
        sheets = ann.locator("#sheets").inner_text()
        assert "F-hideout" in sheets and "S-lair" not in sheets
        assert re.search(r"now \(turn 4\)\s+09:00\s+9\s+", sheets), sheets
        assert "31.10" not in ann.content()
        shot(ann, "seats-finland-sheets", part="#sheets")
        ann.goto(campaign + "/seats")
        expect(ann.locator("#seats")).to_contain_text("bob")
        shot(ann, "seats-page")
