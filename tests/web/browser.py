"""Playwright helpers: Debian's chromium, headless, with every console error and failed request
collected so that a test fails on any of them."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit
from weakref import WeakKeyDictionary

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Frame,
    Page,
    Playwright,
    Request,
    Response,
    expect,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--no-first-run"]
LEFT_BEHIND = frozenset({"live", "news"})
"""The last path parts of the requests a page leaves running when it is left (web/live.py)."""
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SCREENSHOTS = Path(os.environ.get("RALLYPOINT_SCREENSHOTS", "")
                   or Path(tempfile.gettempdir()) / "rallypoint-screenshots")
"""Where the walks save their screenshots: ``RALLYPOINT_SCREENSHOTS`` (``.ci/run`` and the
README's refresh command give docs/screenshots), else a temporary folder, so that a test run
leaves the committed pictures alone."""


def need_chromium() -> None:
    """Skip when chromium is missing on a developer's machine; CI installs it, so fail there."""
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run should have installed chromium")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")


@dataclass
class _Aborted:
    """A request chromium reported ``net::ERR_ABORTED``: when it was sent and cancelled."""

    failure: str
    sent: int | None
    """None: the request's sending was not seen (then it is never excused)."""
    cancelled: int


@dataclass
class _Leaving:
    """The page's main-frame navigations, on a clock that counts the page's events, to tell a
    request cancelled because its page was left from one cancelled while its page stayed.

    Why: a walk that clicks a link as soon as a page has loaded leaves that page while the
    browser still fetches some of its parts (the favicon it asks for after the load, a lab
    plot): chromium cancels them (``net::ERR_ABORTED``) as the next page arrives. On a loaded
    machine (two pytest workers on two cores) the server answers later, so the same walk now
    and then leaves such a request behind. A player sees nothing of it: the page they left
    is gone, and the next page asks for its own favicon. So such a request is excused, and
    only it: a navigation had begun before the request was cancelled, and its new document
    arrived after the request was sent (so the request was the page's being left, not the
    next page's). An abort with no navigation under way, or of a request the new page sent,
    still fails the walk (tests/web/test_web_browser_problems.py).
    """

    clock: int = 0
    begun: list[int] = field(default_factory=list)
    """The tick each main-frame navigation's request was sent."""
    arrived: dict[int, int | None] = field(default_factory=dict)
    """For a navigation that ended (its index in ``begun``), the tick its new document
    arrived, or None: it ended with none (a download, a cancelled navigation)."""
    sent: dict[Request, int] = field(default_factory=dict)
    aborted: list[_Aborted] = field(default_factory=list)
    shots: list[tuple[int, int]] = field(default_factory=list)
    """The ticks each of the walk's screenshots began and ended (see :meth:`excused`)."""

    def tick(self) -> int:
        """The next tick of the page's event clock."""
        self.clock += 1
        return self.clock

    def on_request(self, request: Request) -> None:
        """Note when a request was sent, and whether it begins a main-frame navigation."""
        self.sent[request] = self.tick()
        if request.is_navigation_request() and request.frame.parent_frame is None:
            self.begun.append(self.clock)

    def on_main_frame_navigated(self) -> None:
        """A document arrived in the main frame: every navigation under way has ended in it."""
        self._end(self.tick())

    def on_failed(self, request: Request, failure: str) -> None:
        """A request failed: an aborted one is kept to be judged once the walk is over; a
        main-frame navigation's own (and its redirects') ended with no new document."""
        if request.is_navigation_request() and request.frame.parent_frame is None:
            self._end(None)
        if failure.endswith(": net::ERR_ABORTED"):
            self.aborted.append(_Aborted(failure, self.sent.get(request), self.tick()))

    def _end(self, arrived: int | None) -> None:
        for n in range(len(self.begun)):
            self.arrived.setdefault(n, arrived)

    @contextmanager
    def shooting(self) -> Iterator[None]:
        """Mark the ticks while the walk takes a screenshot of the page."""
        begun = self.tick()
        try:
            yield
        finally:
            self.shots.append((begun, self.tick()))

    def excused(self) -> list[str]:
        """The aborted requests whose page was being left when they were cancelled, and those
        a screenshot both sent and cancelled.

        Why the second: to capture a whole page chromium lays it out at other sizes for a
        moment (a window 1 px wide was seen), so a ``<picture>`` (the lab's plot) asks for its
        narrow source and drops it when the width is back; no player's window does that.
        """
        return [a.failure for a in self.aborted if a.sent is not None and (any(
            begun < a.cancelled and (self.arrived.get(n) or 0) > a.sent
            for n, begun in enumerate(self.begun)) or any(
            begun < a.sent and a.cancelled < ended for begun, ended in self.shots))]


@dataclass
class Problems:
    """Everything that went wrong in the page while a test drove it."""

    console: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    leaving: list[_Leaving] = field(default_factory=list)
    """Each page's navigations (a page's requests are judged by its own)."""

    def check(self) -> None:
        """Fail the test if the page logged an error or a request failed (one the browser
        cancelled because the page that sent it was left is no failure: :class:`_Leaving`)."""
        for page in self.leaving:
            for failure in page.excused():
                if failure in self.failed:
                    self.failed.remove(failure)
        assert not self.console, f"console errors: {self.console}"
        assert not self.failed, f"failed requests: {self.failed}"


@contextmanager
def browser_page(base_url: str, width: int = 1100, height: int = 900,
                 allowed_statuses: frozenset[int] = frozenset()
                 ) -> Iterator[tuple[Page, Problems]]:
    """A fresh headless chromium page; yields (page, problems) and checks problems at the end.

    ``allowed_statuses``: HTTP error statuses the test provokes on purpose (a refused form).
    """
    with browser_pages(base_url, 1, width, height, allowed_statuses) as (pages, problems):
        yield pages[0], problems


@contextmanager
def browser_pages(base_url: str, count: int, width: int = 1100, height: int = 900,
                  allowed_statuses: frozenset[int] = frozenset()
                  ) -> Iterator[tuple[list[Page], Problems]]:
    """``count`` pages of one headless chromium, each in its own context (its own cookies:
    one player each); problems of any page fail the test."""
    need_chromium()
    problems = Problems()
    browser = _chromium()
    contexts = [browser.new_context(base_url=base_url,
                                    viewport={"width": width, "height": height})
                for _ in range(count)]
    pages = [context.new_page() for context in contexts]
    # Generous: CI runs the whole suite on two shared cores.
    expect.set_options(timeout=20_000)
    for page in pages:
        _watch(page, problems, allowed_statuses)
    try:
        yield pages, problems
    finally:
        for context in contexts:
            context.close()
    problems.check()


@dataclass
class _Running:
    """The Playwright driver and the chromium that a test module's walks share."""

    playwright: Playwright
    browser: Browser


_RUNNING: list[_Running] = []
"""The shared chromium, once a walk has started it (at most one)."""


def _chromium() -> Browser:
    """The module's chromium: started by its first walk, shared by the walks after it.

    Why shared: starting the Playwright driver and chromium costs about four seconds on two
    loaded cores, a walk's context about one. Each walk still gets contexts of its own (no
    cookie, storage or cache of another walk), and a browser that died is started anew.
    """
    if _RUNNING and not _RUNNING[0].browser.is_connected():
        close_chromium()
    if not _RUNNING:
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS,
                                             headless=True)
        _RUNNING.append(_Running(playwright, browser))
    return _RUNNING[0].browser


def close_chromium() -> None:
    """Stop the shared chromium and its driver (tests/web/conftest.py: after each module).

    Not kept for the whole run: while the driver runs, its event loop counts as running in
    this thread, which would refuse any later test's ``asyncio.run``.
    """
    while _RUNNING:
        running = _RUNNING.pop()
        try:
            running.browser.close()
        finally:
            running.playwright.stop()


_WATCHED: WeakKeyDictionary[Page, _Leaving] = WeakKeyDictionary()
"""Each watched page's navigations and screenshots (``shot`` is given the page only)."""


def _watch(page: Page, problems: Problems, allowed_statuses: frozenset[int]) -> None:
    """Collect the page's console errors and failed requests into ``problems``."""
    page.set_default_timeout(30_000)

    provoked = tuple(f"the server responded with a status of {status} "
                     for status in allowed_statuses)

    def on_console(msg: ConsoleMessage) -> None:
        # Chromium logs every 4xx page it loads; one the test provokes on purpose is no fault.
        if msg.type == "error" and not (provoked and msg.text.startswith(
                "Failed to load resource") and any(p in msg.text for p in provoked)):
            problems.console.append(msg.text)

    def on_response(response: Response) -> None:
        if response.status >= 400 and response.status not in allowed_statuses:
            problems.failed.append(f"{response.status} {response.url}")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: problems.console.append(f"page error: {exc}"))
    def on_failed(request: Request) -> None:
        # A campaign page's live stream (``/c/ID/live``), and the news fragment it may be
        # fetching, are cancelled by the browser when the page is left: that is no fault (an
        # error status still is, in on_response).
        path = urlsplit(request.url).path
        if request.failure == "net::ERR_ABORTED" and path.rsplit("/", 1)[-1] in LEFT_BEHIND:
            return
        failure = f"failed {request.url}: {request.failure}"
        problems.failed.append(failure)
        leaving.on_failed(request, failure)

    def on_navigated(frame: Frame) -> None:
        if frame.parent_frame is None:
            leaving.on_main_frame_navigated()

    leaving = _Leaving()
    problems.leaving.append(leaving)
    _WATCHED[page] = leaving
    page.on("request", leaving.on_request)
    page.on("framenavigated", on_navigated)
    page.on("requestfailed", on_failed)
    page.on("response", on_response)


def shot(page: Page, name: str, full_page: bool = False, part: str | None = None) -> Path:
    """Save a screenshot to docs/screenshots/NAME.png: the window, the whole page, or the
    element ``part`` (a CSS selector)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    # Chromium on a loaded two-core CI machine now and then answers "Unable to capture
    # screenshot" (a compositor frame not ready); the picture is not what is tested, so a
    # short wait and another try is honest. A third failure is real and fails the walk.
    for attempt in range(3):
        try:
            with _WATCHED[page].shooting():
                if part is not None:
                    page.locator(part).screenshot(path=str(path))
                else:
                    page.screenshot(path=str(path), full_page=full_page)
            return path
        except PlaywrightError:
            if attempt == 2:
                raise
            page.wait_for_timeout(500)
    return path
