"""Shared play in two real browsers (issue 22): the join page names what it opens, each seat's
forms offer its own units, and an open page hears when the other seat acts (server-sent events
through the vendored htmx SSE extension, under the app's CSP; any console error fails the walk).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from web.browser import browser_pages, shot
from web.conftest import LiveServer
from web.test_web_seats_browser import SCENARIO, _sign_up, _write_sheet


@pytest.fixture
def shared_server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "shared.db", shared=True) as server:
        yield server


@pytest.mark.parametrize("width", [1100, 360])
def test_an_open_page_hears_the_other_seat(shared_server: LiveServer, width: int) -> None:
    with browser_pages(shared_server.url, 2, width=width) as ((ann, bob), _):
        _sign_up(ann, "ann")
        ann.set_input_files("#scenario-file", str(SCENARIO))
        ann.fill("#name", "Tolvajarvi")
        ann.click("#create-button")
        links = {a.get_attribute("data-seat"): a.get_attribute("href")
                 for a in ann.locator("a.invite").all()}
        ann.goto(str(links["finland"]))
        expect(ann.locator("#join-campaign")).to_have_text("Tolvajarvi")
        expect(ann.locator("#join-seat")).to_have_text("Finland (finland)")
        ann.click("#join-button")
        campaign = ann.url

        _sign_up(bob, "bob", then=str(links["soviet"]))
        expect(bob.locator("#join-seat")).to_have_text("Soviet Union (soviet)")
        expect(bob.locator("#join-others")).to_contain_text("finland: ann")
        shot(bob, f"live-join-{width}")
        bob.click("#join-button")
        # Bob's forms offer the Soviet counters only.
        assert bob.locator("#loss-counter option").all_inner_texts() == ["1/609-1"]
        assert "1/ErP112-1" not in bob.locator("#sheet-form").inner_text()

        # Bob's page stays open; Ann writes her (secret) sheet in her own browser.
        expect(bob.locator("#news")).not_to_contain_text("moved on")
        _write_sheet(ann, "F-hideout", "1/ErP112", "22.15", "0")
        stale = bob.locator("#stale")
        expect(stale).to_be_visible()
        expect(stale).to_contain_text("this page shows version 1, it is at version 2")
        expect(bob.locator("#news-events")).to_contain_text(
            "#2a Recovery Op Sheet was written (withheld)")
        assert "F-hideout" not in bob.content() and "22.15" not in bob.content()
        shot(bob, f"live-news-{width}", part="#live")
        bob.click("#show-now")
        expect(bob.locator("#version")).to_have_text("version 2")

        # Ann's list (her campaign page closed) says Bob's sheet came after she last looked,
        # and that the Soviets' FO roll is what the table waits for.
        ann.goto("/")
        _write_sheet(bob, "S-lair", "1/609", "31.10", "1")
        ann.reload()
        row = ann.locator("tr", has_text="Tolvajarvi")
        expect(row).to_contain_text("waiting for soviet")
        assert row.locator("td").nth(2).inner_text().strip() == "1"
        shot(ann, f"live-list-{width}")
        ann.goto(campaign)
        expect(ann.locator("#news-events")).to_contain_text("written (withheld)")
