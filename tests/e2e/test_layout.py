"""Every page at a phone's, a laptop's and a meeting screen's width (and dark at a phone's): nothing overflows the
main area sideways, and the dark theme is really dark (screenshots are kept under screenshots/)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from explorer import pages
from tests.e2e.browser_helpers import SCREENSHOTS, AppSession, new_context

pytestmark = pytest.mark.browser

WIDTHS = (390, 1400, 1920)
# Every width in the light scheme; the dark scheme at a phone's width, where dark mode is most used. A colour
# scheme changes colours, not sizes: the layout checks are the light pass's, the dark pass checks that every page
# is really dark and draws without errors (at three widths it cost 84 s of the machine's CPU, 2026-12-02).
LOOKS = [("light", width) for width in WIDTHS] + [("dark", 390)]

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


class Viewer:
    """One session that only looks at pages, in a context of its own width and colour scheme, kept across tests.

    These tests check how a page is drawn, not how it loads (the deep links are test_browser.py's), so a page is
    opened through the app's own navigation when it can be: no page load, the same page drawn in the same
    session. A page is loaded afresh when nothing is loaded yet, when it is the page shown, and when its path
    names settings (a query): a link's settings are read on a session's first load only. The page after such a
    link is loaded afresh too, so every page opened in the app is the default view a deep link to it shows.
    """

    def __init__(self, app: AppSession):
        self.app = app
        self.default_view = False  # a page is loaded and the session's settings are the defaults

    def open(self, path: str) -> AppSession:
        shown = urlsplit(self.app.page.url).path.strip("/")
        if "?" in path or not self.default_view or shown == path.strip("/"):
            self.app.goto(path)
        else:
            self.app.open_in_app(path)
        self.default_view = "?" not in path
        return self.app


def viewer(browser, base_url: str, width: int, color_scheme: str = "light") -> Viewer:
    context = new_context(browser, viewport={"width": width, "height": 1200}, color_scheme=color_scheme)
    return Viewer(AppSession(context.new_page(), base_url))


@pytest.fixture(scope="module")
def viewers(browser, app_url):
    """One viewer per colour scheme and width, made when first asked for and kept for the module."""
    made: dict[tuple[str, int], Viewer] = {}

    def session(scheme: str, width: int) -> Viewer:
        if (scheme, width) not in made:
            made[scheme, width] = viewer(browser, app_url, width, scheme)
        return made[scheme, width]

    yield session
    for v in made.values():
        v.app.page.context.close()


@pytest.mark.parametrize("scheme, width", LOOKS, ids=[f"{scheme}-{width}" for scheme, width in LOOKS])
@pytest.mark.parametrize("spec", [p for p in pages.PAGES if p.name != "mapping"], ids=lambda p: p.name)
def test_no_page_overflows_sideways(viewers, spec, scheme, width):
    app = viewers(scheme, width).open(spec.url_path)
    m = app.page.evaluate(MEASURE_JS)
    SCREENSHOTS.mkdir(exist_ok=True)
    app.page.screenshot(path=SCREENSHOTS / f"layout-{spec.name}-{width}-{scheme}.png", full_page=True)
    assert m["page"] <= m["viewport"] + 1, m
    assert m["main"] <= m["mainClient"] + 1 and m["block"] <= m["blockClient"] + 1, m
    assert (m["luminance"] < 0.2) if scheme == "dark" else (m["luminance"] > 0.8), m
    assert "Traceback" not in app.main_text()
    assert not app.page_errors, app.page_errors


# --------------------------------------------------------------------------- what stays in view (issue 24)

# Each grid's frame, its sideways scroller and the column names glide-data-grid mirrors for the columns in view.
GRID_BOXES_JS = """() => [...document.querySelectorAll("[data-testid='stDataFrame']")].map(df => {
  const box = df.getBoundingClientRect();
  const scroller = df.querySelector('.dvn-scroller');
  return {x: box.x, y: box.y, width: box.width, height: box.height,
          scrollWidth: scroller ? scroller.scrollWidth : 0, clientWidth: scroller ? scroller.clientWidth : 0,
          head: [...df.querySelectorAll('thead th')].map(th => th.textContent)};
})"""
SCROLL_GRID_JS = """([index, left]) => {
  const scroller = document.querySelectorAll("[data-testid='stDataFrame']")[index].querySelector('.dvn-scroller');
  scroller.scrollLeft = left;
  return scroller.scrollLeft;
}"""


def header_row(app: AppSession, index: int):
    """The header row of grid ``index`` as an image, and the x of every column separator drawn in it (the grid
    is a canvas: separators are read from its pixels, in the colour of the grid's left border)."""
    from io import BytesIO

    from PIL import Image

    grid = app.page.locator("[data-testid='stDataFrame']").nth(index)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    image = Image.open(BytesIO(app.page.screenshot(clip={"x": box["x"], "y": box["y"], "width": box["width"],
                                                            "height": 30}))).convert("RGB")
    border = image.getpixel((0, 18))
    edges = [x for x in range(1, image.width - 2) if image.getpixel((x, 18)) == border]
    return image, [x for i, x in enumerate(edges) if i == 0 or x - edges[i - 1] > 1]


def scrolled_head(app: AppSession, index: int, left: int) -> list[str]:
    """Scroll grid ``index`` sideways to ``left`` and read its mirrored column names once they stop changing."""
    app.page.evaluate(SCROLL_GRID_JS, [index, left])
    previous = None
    for _ in range(40):
        app.page.wait_for_timeout(150)
        head = app.page.evaluate(GRID_BOXES_JS)[index]["head"]
        if head == previous:
            return head
        previous = head
    raise AssertionError(f"grid {index}'s columns never settled after scrolling to {left}")


def all_columns(app: AppSession, index: int, info: dict) -> list[str]:
    """Every column of grid ``index`` in display order (glide mirrors only the columns in view: scroll across)."""
    seen = list(info["head"])
    step = max(info["clientWidth"] // 2, 50)
    for left in range(0, info["scrollWidth"] + step, step):
        seen += [c for c in scrolled_head(app, index, left) if c not in seen]
    scrolled_head(app, index, 0)
    return seen


def must_show(columns: list[str]) -> list[str]:
    from explorer.ui import IDENTITY, SCORES

    return [c for c in columns if c in IDENTITY] + [c for c in SCORES if c in columns][:1]


@pytest.fixture(scope="module")
def phone(browser, app_url):
    session = viewer(browser, app_url, 390)
    yield session
    session.app.page.context.close()


PHONE_PAGES = ("", "headline?agent=crashy-runner", "radar", "uncertainty", "repeatability", "compare",
               "runs?agent=crashy-runner", "sandbox", "tasks")


@pytest.mark.parametrize("path", PHONE_PAGES)
def test_at_390_px_every_tables_rank_agent_and_score_stay_in_view(phone, path):
    # A page load per table page (not the app's navigation): a grid opened in the app after another page's grids
    # were scrolled once drew the same header after its sideways scroll (1 of 2 full runs, 2026-12-02).
    app = phone.app
    app.goto(path)
    grids = app.page.evaluate(GRID_BOXES_JS)
    checked = 0
    for index, info in enumerate(grids):
        columns = all_columns(app, index, info)
        wanted = must_show(columns)
        if not wanted:
            continue
        checked += 1
        assert columns[:len(wanted)] == wanted, (path, index, columns)  # pinned: they lead
        image, edges = header_row(app, index)
        if info["scrollWidth"] <= info["clientWidth"] + 1:
            continue  # the whole table is in view
        marker = 1 if edges and edges[0] <= 36 else 0  # the selection boxes' column of a selectable grid
        shown = marker + len(wanted)
        # The right edge of the last wanted column is a separator inside the grid's frame: whole, not cut.
        assert len(edges) >= shown, (path, index, wanted, edges, image.width)
        if edges[shown - 1] - (edges[marker - 1] if marker else 0) > 0.6 * image.width:
            continue  # Streamlit freezes pinned columns only while they take at most 60% of the table's width
        scrolled_head(app, index, info["scrollWidth"])
        after, _ = header_row(app, index)
        # Scrolled to the far right, the pinned columns are drawn where they were, pixel for pixel (up to their
        # right edge, where glide draws a shadow once the columns beside them scroll).
        pinned = (0, 0, edges[shown - 1] - 2, image.height)
        assert after.crop(pinned).tobytes() == image.crop(pinned).tobytes(), (path, index, "pinned columns moved")
        assert after.tobytes() != image.tobytes(), (path, index, "the grid did not scroll")
        scrolled_head(app, index, 0)
    SCREENSHOTS.mkdir(exist_ok=True)
    app.page.screenshot(path=SCREENSHOTS / f"phone-{path.split('?')[0] or 'leaderboard'}.png", full_page=True)
    if path in ("", "headline?agent=crashy-runner", "radar"):
        assert checked, f"{path}: no table with a rank, an agent or a score"


def test_at_390_px_every_heatmap_column_is_labelled(phone, sample_report):
    app = phone.open("tasks")
    labels = app.page.evaluate("""() => {
      const chart = document.querySelector("[data-testid='stPlotlyChart']");
      const box = chart.getBoundingClientRect();
      return [...chart.querySelectorAll('.xtick text')].map(t => {
        const r = t.getBoundingClientRect();
        return {text: t.textContent, left: r.left, right: r.right, top: r.top, inside: r.left >= box.left - 1 &&
                r.right <= box.right + 1};
      });
    }""")
    assert [label["text"] for label in labels] == [a.agent_id for a in sample_report.agents]
    assert all(label["inside"] for label in labels), labels
    ordered = sorted(labels, key=lambda label: label["left"])
    assert all(a["right"] <= b["left"] + 0.5 for a, b in zip(ordered, ordered[1:])), ordered  # none overlap


def test_at_1400_px_the_leaderboard_shows_every_headline_component(browser, app_url):
    context = new_context(browser, viewport={"width": 1400, "height": 1000})
    try:
        app = AppSession(context.new_page(), app_url)
        app.goto("")
        board = app.page.evaluate(GRID_BOXES_JS)[0]
        assert board["head"] == ["Rank", "Agent", "Score", "Flags", "Success", "Execution", "Avg latency",
                                 "Consistency", "Cost score", "Avg cost", "Completed"]
        assert board["scrollWidth"] <= board["clientWidth"] + 1, board  # nothing to scroll sideways
        image, edges = header_row(app, 0)
        assert len(edges) >= len(board["head"]), (edges, image.width)  # the selection boxes, n - 1 separators
        app.screenshot("projector-leaderboard-1400")
    finally:
        context.close()
