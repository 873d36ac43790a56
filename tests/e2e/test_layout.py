"""Every page at a phone's, a laptop's and a meeting screen's width, in light and dark: nothing overflows the
main area sideways, and the dark theme is really dark (screenshots are kept under screenshots/)."""

from __future__ import annotations

import pytest

from explorer import pages
from tests.e2e.browser_helpers import RERUN_COUNTER_JS, SCREENSHOTS, TIMEOUT_MS, AppSession

pytestmark = pytest.mark.browser

WIDTHS = (390, 1400, 1920)
SCHEMES = ("light", "dark")

# The main area's own width against what it holds (a wide table scrolls inside its own frame, which is fine);
# and the luminance of the app's background, to tell the dark theme from the light one.
MEASURE_JS = """() => {
  const main = document.querySelector("[data-testid='stMain']");
  const block = document.querySelector("[data-testid='stMainBlockContainer']") || main;
  const bg = getComputedStyle(document.querySelector("[data-testid='stApp']")).backgroundColor;
  const [r, g, b] = bg.match(/[\\d.]+/g).map(Number);
  return {page: document.documentElement.scrollWidth, viewport: window.innerWidth,
          main: main.scrollWidth, mainClient: main.clientWidth, block: block.scrollWidth,
          blockClient: block.clientWidth, luminance: (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255};
}"""


@pytest.fixture(scope="module", params=SCHEMES)
def scheme_context(request, browser):
    contexts = {}

    def session(width: int, base_url: str) -> AppSession:
        if width not in contexts:
            context = browser.new_context(viewport={"width": width, "height": 1200}, color_scheme=request.param)
            context.set_default_timeout(TIMEOUT_MS)
            context.add_init_script(RERUN_COUNTER_JS)
            contexts[width] = AppSession(context.new_page(), base_url)
        return contexts[width]

    yield request.param, session
    for s in contexts.values():
        s.page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("spec", [p for p in pages.PAGES if p.name != "mapping"], ids=lambda p: p.name)
def test_no_page_overflows_sideways(scheme_context, app_url, spec, width):
    scheme, session = scheme_context
    app = session(width, app_url)
    app.goto(spec.url_path)
    m = app.page.evaluate(MEASURE_JS)
    SCREENSHOTS.mkdir(exist_ok=True)
    app.page.screenshot(path=SCREENSHOTS / f"layout-{spec.name}-{width}-{scheme}.png", full_page=True)
    assert m["page"] <= m["viewport"] + 1, m
    assert m["main"] <= m["mainClient"] + 1 and m["block"] <= m["blockClient"] + 1, m
    assert (m["luminance"] < 0.2) if scheme == "dark" else (m["luminance"] > 0.8), m
    assert "Traceback" not in app.main_text()
    assert not app.page_errors, app.page_errors
