"""The browser walks' watch (``browser.py``): a request chromium cancels because the walk left
its page is no failure; every other cancelled request still fails the walk.

The cancellations are made here on purpose (Playwright's routing holds or aborts a request),
so each case happens on every run, not only when a loaded machine is slow to answer. The
screenshot's passing resize cannot be made on purpose, so its rule is held to events fed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pytest
from playwright.sync_api import Page, Request, Route, expect

from web.browser import _Leaving, browser_page, browser_pages
from web.conftest import LiveServer

FAVICON = "**/static/favicon.svg"


def _is_favicon(request: Request) -> bool:
    return request.url.endswith("/static/favicon.svg")


def _held(page: Page) -> list[Route]:
    """Hold every favicon request unanswered (as a server too slow to answer would)."""
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route(FAVICON, hold)
    return held


def _leave_for_the_api_docs(page: Page) -> None:
    page.click("nav >> text=API")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("rallypoint")


def test_a_request_of_the_page_left_is_no_failure(live_server: LiveServer) -> None:
    with browser_page(live_server.url) as (page, problems):
        held = _held(page)
        with page.expect_request(_is_favicon):
            page.goto("/")
        with page.expect_event("requestfailed", _is_favicon) as cancelled:
            _leave_for_the_api_docs(page)
        assert cancelled.value.failure == "net::ERR_ABORTED"
        assert len(held) >= 1
        # Seen as a failure when it happened, excused when the walk is judged.
        assert problems.failed == [f"failed {cancelled.value.url}: net::ERR_ABORTED"]


def test_a_request_cancelled_while_its_page_stays_fails_the_walk(
        live_server: LiveServer) -> None:
    with pytest.raises(AssertionError, match=r"favicon\.svg: net::ERR_ABORTED"), \
            browser_page(live_server.url) as (page, _):
        page.route(FAVICON, lambda route: route.abort("aborted"))
        with page.expect_event("requestfailed", _is_favicon):
            page.goto("/")


def test_a_request_cancelled_before_the_walk_leaves_its_page_fails_the_walk(
        live_server: LiveServer) -> None:
    # The page is left, but only after the request was cancelled: leaving did not cancel it.
    with pytest.raises(AssertionError, match=r"favicon\.svg: net::ERR_ABORTED"), \
            browser_page(live_server.url) as (page, _):
        page.route(FAVICON, lambda route: route.abort("aborted"))
        with page.expect_event("requestfailed", _is_favicon):
            page.goto("/")
        page.unroute(FAVICON)
        _leave_for_the_api_docs(page)


def test_a_request_of_the_page_arrived_cancelled_fails_the_walk(
        live_server: LiveServer) -> None:
    # A navigation came, but the cancelled request was the new page's own.
    with pytest.raises(AssertionError, match=r"favicon\.svg: net::ERR_ABORTED") as failed, \
            browser_page(live_server.url) as (page, _):
        with page.expect_request_finished(_is_favicon):
            page.goto("/")
        page.route(FAVICON, lambda route: route.abort("aborted"))
        with page.expect_event("requestfailed", _is_favicon):
            _leave_for_the_api_docs(page)
    assert str(failed.value).count("favicon.svg") == 1


def test_one_page_leaving_excuses_no_other_pages_request(live_server: LiveServer) -> None:
    # Two players' pages: the second's request, sent before the first left its page and
    # cancelled after, is judged by the second page's navigations alone (it made none).
    with pytest.raises(AssertionError, match=r"favicon\.svg: net::ERR_ABORTED") as failed, \
            browser_pages(live_server.url, 2) as ([first, second], _):
        held = _held(second)
        with second.expect_request(_is_favicon):
            second.goto("/")
        first.goto("/")
        _leave_for_the_api_docs(first)
        with second.expect_event("requestfailed", _is_favicon):
            held[0].abort("aborted")
    assert str(failed.value).count("favicon.svg") == 1


def test_a_navigation_cancelled_fails_the_walk_though_a_later_one_arrives(
        live_server: LiveServer) -> None:
    # The API page's own request cancelled: the page was not left, whatever comes after.
    with pytest.raises(AssertionError, match=r"/api/docs: net::ERR_ABORTED") as failed, \
            browser_page(live_server.url) as (page, _):
        page.goto("/")
        page.route("**/api/docs", lambda route: route.abort("aborted"))
        with page.expect_event("requestfailed", lambda r: r.url.endswith("/api/docs")):
            page.click("nav >> text=API")
        page.unroute("**/api/docs")
        _leave_for_the_api_docs(page)
    assert str(failed.value).count("ERR_ABORTED") == 1


@dataclass
class _Frame:
    parent_frame: None = None


@dataclass(eq=False)
class _Request:
    """Just what the watch asks of a request: a sub-resource of the main frame."""

    frame: _Frame

    def is_navigation_request(self) -> bool:
        return False


def _shot_then(sent: str, cancelled: str) -> list[str]:
    """What the watch excuses of a request sent and cancelled "before", "during" or "after"
    a screenshot (no navigation at all)."""
    leaving = _Leaving()
    request = cast(Request, _Request(_Frame()))

    def at(moment: str) -> None:
        if sent == moment:
            leaving.on_request(request)
        if cancelled == moment:
            leaving.on_failed(request, "failed /plot.svg?narrow=true: net::ERR_ABORTED")

    at("before")
    with leaving.shooting():
        at("during")
    at("after")
    return leaving.excused()


def test_a_request_a_screenshot_sent_and_dropped_is_no_failure() -> None:
    assert _shot_then("during", "during") == ["failed /plot.svg?narrow=true: net::ERR_ABORTED"]


@pytest.mark.parametrize(("sent", "cancelled"), [("before", "during"), ("during", "after"),
                                                 ("before", "before"), ("after", "after")])
def test_a_request_not_both_sent_and_dropped_in_a_screenshot_fails(sent: str,
                                                                    cancelled: str) -> None:
    assert _shot_then(sent, cancelled) == []
