"""Fixtures for the real-browser suite: one Streamlit server and one chromium per session, a fresh page per test.

The explorer is started on a free localhost port with ``sys.executable -m streamlit run app.py`` from the repo
root, and driven through Playwright's sync API with Debian's chromium (Playwright cannot download its own
browser here). ``AppSession`` wraps a page with the waits a Streamlit app needs: the script run must be over
(``data-test-script-state='notRunning'``) *and* the lazily loaded elements (dataframes, plotly charts) must
have replaced their skeletons before anything is read.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "screenshots"
SAMPLE_PATH = ROOT / "sample_data" / "runs.csv"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1440, "height": 2600}
TIMEOUT_MS = 60_000
STARTUP_TIMEOUT_S = 60

READY = "[data-testid='stApp'][data-test-script-state='notRunning']"

# Counts finished script runs (any state -> notRunning) so an interaction can wait for *its* rerun,
# not for a notRunning state that was already there before the rerun started.
RERUN_COUNTER_JS = """
window.__stRunsFinished = 0;
new MutationObserver((mutations) => {
  for (const m of mutations) {
    if (m.target.getAttribute('data-test-script-state') === 'notRunning' && m.oldValue !== 'notRunning') {
      window.__stRunsFinished += 1;
    }
  }
}).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                      attributeFilter: ['data-test-script-state']});
"""

# The run is over and every lazily loaded element has rendered: no skeleton, no stale element,
# every dataframe has its accessible table and every plotly chart its SVG.
SETTLED_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const busy = "[data-testid='stSkeleton'], [data-stale='true'], [data-testid='stSpinner']";
  if (document.querySelector(busy)) return false;
  for (const df of document.querySelectorAll("[data-testid='stDataFrame']")) {
    if (!df.querySelector('table tbody')) return false;
  }
  for (const chart of document.querySelectorAll("[data-testid='stPlotlyChart']")) {
    if (!chart.querySelector('.js-plotly-plot .main-svg')) return false;
  }
  return true;
}"""

SIGNATURE_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  const tables = [...document.querySelectorAll("[data-testid='stDataFrame'] table")].map(t => t.textContent);
  return JSON.stringify([app && app.getAttribute('data-test-script-state'), app && app.innerText, tables]);
}"""

# Every glide-data-grid mirrors its cells in an accessible <table role="grid"> (td text = the cell's raw value).
GRIDS_JS = """() => [...document.querySelectorAll("[data-testid='stDataFrame']")].map(df => {
  const t = df.querySelector('table');
  if (!t) return null;
  return {
    rowcount: Number(t.getAttribute('aria-rowcount')),
    head: [...t.querySelectorAll('thead th')].map(th => th.textContent),
    rows: [...t.querySelectorAll('tbody tr')].map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent)),
  };
})"""

# The text a person can see outside the data grids (plotly SVG text included).
VISIBLE_TEXT_JS = """() => {
  const root = document.querySelector("[data-testid='stApp']");
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const el = node.parentElement;
    if (!el || el.closest("[data-testid='stDataFrame'], script, style, noscript")) continue;
    if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true})) continue;
    const text = node.textContent.trim();
    if (text) out.push(text);
  }
  return out.join('\\n');
}"""


class Grid:
    """One dataframe read through its accessible table: headers and rows of cell text."""

    def __init__(self, head: list[str], rows: list[list[str]]):
        self.head = head
        self.rows = rows

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.head, row)) for row in self.rows]

    def column(self, name: str) -> list[str]:
        index = self.head.index(name)
        return [row[index] for row in self.rows]

    def text(self) -> str:
        return "\n".join(["\t".join(self.head)] + ["\t".join(row) for row in self.rows])

    def __eq__(self, other) -> bool:
        return isinstance(other, Grid) and (self.head, self.rows) == (other.head, other.rows)

    def __repr__(self) -> str:
        return f"Grid(\n{self.text()}\n)"


class AppSession:
    """A browser page on the explorer (one Streamlit session) and the waits it needs."""

    def __init__(self, page, base_url: str):
        self.page = page
        self.base_url = base_url
        self.page_errors: list[str] = []
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    # --- waiting -------------------------------------------------------------------------------------------
    def settle(self, timeout_ms: int = TIMEOUT_MS) -> None:
        """Wait until the script run is over, lazy elements have rendered and the page stops changing."""
        self.page.wait_for_selector(READY, timeout=timeout_ms)
        self.page.wait_for_function(SETTLED_JS, timeout=timeout_ms, polling=100)
        deadline = time.monotonic() + timeout_ms / 1000
        previous = self.page.evaluate(SIGNATURE_JS)
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(300)
            self.page.wait_for_function(SETTLED_JS, timeout=timeout_ms, polling=100)
            current = self.page.evaluate(SIGNATURE_JS)
            if current == previous:
                return
            previous = current
        raise AssertionError("the page never stopped changing")

    def runs_finished(self) -> int:
        return self.page.evaluate("() => window.__stRunsFinished || 0")

    def interact(self, action, *, description: str = "the interaction") -> None:
        """Do something that makes Streamlit rerun, wait for that rerun to finish, then settle."""
        before = self.runs_finished()
        action()
        try:
            self.page.wait_for_function("n => (window.__stRunsFinished || 0) > n", arg=before,
                                        timeout=TIMEOUT_MS, polling=50)
        except Exception as exc:  # a clearer message than Playwright's timeout
            raise AssertionError(f"no Streamlit rerun finished after {description}") from exc
        self.settle()

    # --- navigation ----------------------------------------------------------------------------------------
    def goto(self, path: str = "") -> None:
        """A full load of a page (a new Streamlit session: the data source is back to the sample)."""
        self.page.goto(f"{self.base_url}/{path.lstrip('/')}", timeout=TIMEOUT_MS)
        self.settle()

    def open_from_sidebar(self, title: str) -> None:
        """Client-side navigation through st.navigation's sidebar links (keeps the session and its upload)."""
        link = self.page.locator("[data-testid='stSidebarNav'] a[data-testid='stSidebarNavLink']", has_text=title)
        self.interact(link.click, description=f"opening {title!r}")

    # --- reading -------------------------------------------------------------------------------------------
    def grids(self) -> list[Grid]:
        raw = self.page.evaluate(GRIDS_JS)
        return [Grid(g["head"], g["rows"]) if g else Grid([], []) for g in raw]

    def grid(self, index: int = 0, *, timeout_s: float = 30, until=None, complete: bool = True) -> Grid:
        """The ``index``-th dataframe, read twice alike and complete (every row present); ``until`` a predicate.

        glide-data-grid updates its accessible table a little after a rerun and not always in one go, so a
        single read can mix old and new rows: only a stable, complete read that satisfies ``until`` counts.
        A grid taller than its frame only mirrors the rows it has drawn: read it with ``complete=False``.
        """
        deadline = time.monotonic() + timeout_s
        last = None
        while True:
            raw = self.page.evaluate(GRIDS_JS)
            current = None
            if index < len(raw) and raw[index] and raw[index]["rows"] and (
                    not complete or len(raw[index]["rows"]) == raw[index]["rowcount"] - 1):
                current = Grid(raw[index]["head"], raw[index]["rows"])
            if current is not None and current == last and (until is None or until(current)):
                return current
            if time.monotonic() > deadline:
                raise AssertionError(f"dataframe #{index} never settled{' into the expected state' if until else ''}; "
                                     f"last read: {current!r}")
            last = current
            self.page.wait_for_timeout(250)

    def visible_text(self) -> str:
        return self.page.evaluate(VISIBLE_TEXT_JS)

    def main_text(self) -> str:
        return self.page.locator("[data-testid='stMain']").inner_text()

    def sidebar_text(self) -> str:
        return self.page.locator("[data-testid='stSidebar']").inner_text()

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=path, full_page=True)
        return path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _unavailable(message: str):
    """Missing browser tooling: a failure in CI (CI set and non-empty), a skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def chromium_executable() -> Path:
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing: run `bash scripts/ensure-test-deps` to install Debian's chromium")
    return CHROMIUM


@pytest.fixture(scope="session")
def app_url(chromium_executable, tmp_path_factory) -> str:
    """Start the explorer on a free port and yield its base URL; stop it after the session."""
    port = _free_port()
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
               "--server.headless", "true", "--server.address", "127.0.0.1"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"streamlit exited with code {process.returncode} before it was healthy:\n"
                            + log_path.read_text(errors="replace")[-4000:], pytrace=False)
            try:
                with urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=2) as response:
                    if response.read().decode().strip() == "ok":
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit was not healthy after {STARTUP_TIMEOUT_S} s:\n"
                            + log_path.read_text(errors="replace")[-4000:], pytrace=False)
            time.sleep(0.25)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser(chromium_executable):
    """One Chromium per test module. Not per session: Playwright's sync API keeps its asyncio loop
    marked as running on the main thread while it is open, and later tests that run an event loop
    of their own (Inspect AI's log reader, the websocket load bench) would fail with "Cannot run
    the event loop while another loop is running"."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed in this environment (pip install -r requirements.txt)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium_executable), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def app(browser, app_url):
    """A fresh browser context and page (so a fresh Streamlit session) per test."""
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RERUN_COUNTER_JS)
    page = context.new_page()
    session = AppSession(page, app_url)
    yield session
    context.close()
    assert not session.page_errors, f"uncaught errors in the page: {session.page_errors}"


@pytest.fixture(scope="session")
def sample_report():
    """The scoring core's own report of the sample data: what the pages must agree with."""
    return score_file(SAMPLE_PATH)


def score_file(path: Path):
    from scoring import CANONICAL_POLICY, load_runs, score_runs

    loaded = load_runs(path.read_bytes(), name=path.name)
    return score_runs(loaded.runs, CANONICAL_POLICY)

