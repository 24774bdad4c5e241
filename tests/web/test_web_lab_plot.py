"""The lab page's plot reads in a browser at a desk and at 360 px: its smallest text, as shown.

matplotlib draws SVG text as glyph paths scaled from 100-unit outlines (``scale(0.1 -0.1)``
is 10 pt), so the smallest text of a picture is its smallest glyph scale; the browser shows the
picture ``shown width / SVG width`` times its size. Both are read here, not computed from the
layout the plot code chose.
"""

from __future__ import annotations

import re
import urllib.request

import pytest
from playwright.sync_api import expect

from web.browser import browser_page, shot
from web.conftest import LiveServer

LEAST_PX = 11.0
"""The smallest text a player should have to read, in CSS pixels."""


def _least_text_px(svg: str, shown_width: float) -> float:
    """The smallest glyph of ``svg`` in CSS pixels when shown ``shown_width`` px wide."""
    width_pt = float(re.search(r'<svg[^>]*\bwidth="([0-9.]+)pt"', svg).group(1))  # type: ignore[union-attr]
    scales = [float(s) for s in re.findall(r"scale\(([0-9.]+) -[0-9.]+\)", svg)]
    assert scales, "no text in the picture"
    # Points to CSS pixels: the SVG's width in pt is drawn across shown_width px.
    return min(scales) * 100 * shown_width / width_pt


@pytest.mark.slow
@pytest.mark.parametrize(("width", "name"), [(1100, "tcs-lab-wide"), (360, "tcs-lab-phone")])
def test_the_lab_plot_text_reads_at_desk_and_phone_width(live_server: LiveServer, width: int,
                                                        name: str) -> None:
    with browser_page(live_server.url, width=width, height=800) as (page, _):
        page.goto("/")
        page.select_option("#scenario", label="tcs: example1 tolvajarvi")
        page.fill("#name", "ex1")
        page.click("#create-button")
        page.click("nav >> text=lab")
        img = page.locator("#simulation img")
        expect(img).to_be_visible()
        page.wait_for_function("() => document.querySelector('#simulation img').complete "
                               "&& document.querySelector('#simulation img').naturalWidth > 0",
                               timeout=120_000)
        shown = img.evaluate("i => i.getBoundingClientRect().width")
        source = img.evaluate("i => i.currentSrc")
        with urllib.request.urlopen(source) as answer:
            svg = answer.read().decode()
        least = _least_text_px(svg, shown)
        assert least >= LEAST_PX, (width, source, shown, least)
        # Nothing wider than the screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # At a phone's width the browser picked the one-column picture.
        assert ("narrow=true" in source) == (width == 360), source
        img.scroll_into_view_if_needed()
        shot(page, name, full_page=True)


def test_least_text_px_reads_the_glyph_scale() -> None:
    svg = ('<svg width="460.8pt" height="10pt"><g transform="scale(0.1 -0.1)"/>'
           '<g transform="scale(0.0833 -0.0833)"/></svg>')
    # 8.33 pt drawn at 921.6 px for 460.8 pt: twice as large.
    assert _least_text_px(svg, 921.6) == pytest.approx(16.66)
