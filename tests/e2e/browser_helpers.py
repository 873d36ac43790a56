"""Shared helpers of the real-browser suite: ``AppSession`` (a page on the explorer and the waits a Streamlit app
needs), ``Grid`` (a dataframe read through its accessible table) and the reading and acting helpers the
tests/e2e/test_*.py modules share. The fixtures that start the server and chromium are in tests/e2e/conftest.py.

Waiting rules (a loaded two-core machine runs this suite beside other work):

- wait for a state, never for a time: a script run is over when ``data-test-script-state`` is ``notRunning``
  *and* every lazily loaded element has rendered (``SETTLED_JS``); an interaction waits for *its* rerun through
  a counter of the runs the server reports finished (``RERUN_COUNTER_JS``, read from the websocket), never for
  a state that was already there nor for a change of the state attribute (React may batch it away);
- one generous budget (``TIMEOUT_MS``) for everything that waits on the server: a timeout only costs time when
  something is really wrong, so it is set for a loaded machine, not for a quiet one.
"""

from __future__ import annotations

import csv
import math
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg as _FORWARD_MSG

from explorer import tables
from scoring import RADAR_AXES, check_weights

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "screenshots"
SAMPLE_PATH = ROOT / "sample_data" / "runs.csv"
FIXTURES = ROOT / "tests" / "fixtures"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1440, "height": 2600}
# Every context emulates a person who asked for reduced motion (prefers-reduced-motion): the app's animations (the
# running indicator, the skeletons' shimmer) then stay still. No check looks at them, and chromium draws them in
# software on every frame of every open page: five page loads and five in-app page changes took 72 to 95 s of
# chromium's CPU without it and 36 s with it (2026-12-02, load average 10 to 12).
CONTEXT_OPTIONS: dict[str, Any] = {"reduced_motion": "reduce"}
# Everything that waits on the server (a script run, a download, a page load) shares this budget. Three minutes:
# on a two-core machine shared with other suites one run of a heavy page has taken over a minute.
TIMEOUT_MS = int(os.environ.get("E2E_TIMEOUT_MS", "180000"))
# How long a download may take to start once the button has followed its file's link (download(), below).
LINK_GRACE_S = 30.0
STARTUP_TIMEOUT_S = TIMEOUT_MS / 1000
# How long the page must stay unchanged, once settled, to count as done drawing (a quiet period, not a delay:
# a page that is already quiet passes after it, a changing one waits until it stops).
QUIET_MS = 300
POLL_MS = 100

POLICY_VERSION = "2026-07-zero-success-v1"
AXIS_LABELS = [tables.AXIS_LABELS[axis] for axis in RADAR_AXES]
# Text that must never reach a person: Python/pandas reprs of missing values, tracebacks.
BAD_TEXT = re.compile(r"\bNaN\b|\bnan\b|\bNone\b|<NA>|\bTraceback\b")

READY = "[data-testid='stApp'][data-test-script-state='notRunning']"

# Counts the script runs the server reports finished, from the websocket frames the page receives: each
# ForwardMsg's ``script_finished`` field (its number read from Streamlit's own protocol), a run cut short by a
# newer rerun (FINISHED_EARLY_FOR_RERUN) not counted. An interaction waits for *its* run through this count.
#
# Not from the ``data-test-script-state`` attribute: Streamlit's React batches state updates, so a quick rerun
# whose "running" and "finished" messages are handled before the next render never changes the attribute
# (notRunning throughout); a counter of attribute changes then missed the run and waited until its timeout (the
# whole-view link test, after a sidebar click on a page the shared caches answer at once, in the full suite).
# The count is raised after the page's own handler of the message has run (a task queued behind it).
RERUN_COUNTER_JS = """
(() => {
  const FIELD = @FIELD@, EARLY = @EARLY@;
  window.__stRunsFinished = 0;
  const varint = (bytes, at) => {
    let value = 0, shift = 0, byte;
    do { byte = bytes[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
    return [value, at];
  };
  // The script_finished status of one ForwardMsg (a varint at the top level), or null for any other message.
  const finishedStatus = (bytes) => {
    let at = 0, key, value;
    while (at < bytes.length) {
      [key, at] = varint(bytes, at);
      const field = Math.floor(key / 8), wire = key & 7;
      if (wire === 0) { [value, at] = varint(bytes, at); if (field === FIELD) return value; }
      else if (wire === 2) { [value, at] = varint(bytes, at); at += value; }
      else if (wire === 1) at += 8;
      else if (wire === 5) at += 4;
      else return null;
    }
    return null;
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (!(event.data instanceof ArrayBuffer)) return;
        const status = finishedStatus(new Uint8Array(event.data));
        if (status !== null && status !== EARLY) setTimeout(() => { window.__stRunsFinished += 1; }, 0);
      });
    }
  };
})();
""".replace("@FIELD@", str(_FORWARD_MSG.DESCRIPTOR.fields_by_name["script_finished"].number)).replace(
    "@EARLY@", str(_FORWARD_MSG.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")))

# What a download button did with a click, for a download that never starts (seen in 2 of about 9 full suites,
# 2026-12-04, never alone): the clicks the document received (capture phase, so before React's handler) and the
# links Streamlit's handler followed (it makes an <a download> and calls its click()). Either the button never
# got the click, or it followed its file's link and the browser started no download of it.
DOWNLOAD_TRACE_JS = """
(() => {
  const trace = window.__explorerDownloadTrace = {clicks: [], links: []};
  const name = (el) => {
    const parts = [];
    for (let at = el; at && at.nodeType === 1 && parts.length < 4; at = at.parentElement) {
      const id = at.getAttribute('data-testid');
      parts.push(at.tagName.toLowerCase() + (id ? `[${id}]` : ''));
    }
    return parts.join(' < ');
  };
  document.addEventListener('click', (event) => {
    trace.clicks.push({at: performance.now(), target: name(event.target), trusted: event.isTrusted});
  }, true);
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () {
    trace.links.push({at: performance.now(), href: this.href, download: this.hasAttribute('download'),
                      target: this.getAttribute('target') || ''});
    return click.call(this);
  };
})();
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

# True once the page's signature differs from ``previous`` (the argument).
CHANGED_JS = f"previous => ({SIGNATURE_JS})() !== previous"

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


def new_context(browser: Any, **options: Any) -> Any:
    """A fresh browser context (``VIEWPORT`` and ``CONTEXT_OPTIONS`` unless ``options`` say otherwise) with the
    shared wait budget and the rerun counter every ``AppSession`` reads."""
    context = browser.new_context(**{"viewport": VIEWPORT, **CONTEXT_OPTIONS, **options})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RERUN_COUNTER_JS)
    context.add_init_script(DOWNLOAD_TRACE_JS)
    return context


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

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and (self.head, self.rows) == (other.head, other.rows)

    def __repr__(self) -> str:
        return f"Grid(\n{self.text()}\n)"


class AppSession:
    """A browser page on the explorer (one Streamlit session) and the waits it needs."""

    def __init__(self, page: Any, base_url: str):
        self.page = page
        self.base_url = base_url
        self.page_errors: list[str] = []
        self._on_error = lambda error: self.page_errors.append(str(error))
        page.on("pageerror", self._on_error)

    def detach(self) -> None:
        """Stop collecting the page's errors (the page goes on to another session)."""
        self.page.remove_listener("pageerror", self._on_error)

    # --- waiting -------------------------------------------------------------------------------------------
    def settle(self, timeout_ms: int = TIMEOUT_MS) -> None:
        """Wait until the script run is over, lazy elements have rendered and the page stays unchanged for
        ``QUIET_MS`` (a late element or a second rerun starts the wait again)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            self.page.wait_for_selector(READY, timeout=timeout_ms)
            self.page.wait_for_function(SETTLED_JS, timeout=timeout_ms, polling=POLL_MS)
            previous = self.page.evaluate(SIGNATURE_JS)
            try:
                self.page.wait_for_function(CHANGED_JS, arg=previous, timeout=QUIET_MS, polling=POLL_MS)
            except PlaywrightTimeout:  # no change for QUIET_MS: settled
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never stopped changing in {timeout_ms / 1000:.0f} s")

    def runs_finished(self) -> int:
        return self.page.evaluate("() => window.__stRunsFinished || 0")

    def wait_for_rerun(self, before: int, description: str) -> None:
        """Wait until a script run has finished since the count ``before`` was read, then settle."""
        try:
            self.page.wait_for_function("n => (window.__stRunsFinished || 0) > n", arg=before,
                                        timeout=TIMEOUT_MS, polling=50)
        except Exception as exc:  # a clearer message than Playwright's timeout
            raise AssertionError(f"no Streamlit rerun finished after {description} (page {self.page.url}, "
                                 f"{self.runs_finished()} run(s) finished in all)") from exc
        self.settle()

    def interact(self, action: Callable[[], object], *, description: str = "the interaction") -> None:
        """Do something that makes Streamlit rerun, wait for that rerun to finish, then settle."""
        before = self.runs_finished()
        action()
        self.wait_for_rerun(before, description)

    # --- navigation ----------------------------------------------------------------------------------------
    def goto(self, path: str = "") -> None:
        """A full load of a page (a new Streamlit session: the data source is back to the sample)."""
        self.page.goto(f"{self.base_url}/{path.lstrip('/')}", timeout=TIMEOUT_MS)
        self.settle()

    def open_from_sidebar(self, title: str) -> None:
        """Client-side navigation through st.navigation's sidebar links (keeps the session and its upload)."""
        link = self.page.locator("[data-testid='stSidebarNav'] a[data-testid='stSidebarNavLink']", has_text=title)
        self.interact(link.click, description=f"opening {title!r}")

    def open_in_app(self, path: str) -> None:
        """Open the page at url path ``path`` through its st.navigation link, as ``open_from_sidebar`` does, at any
        width: on a phone's the sidebar is collapsed, so the link's own click handler is run (a click event
        dispatched on it) rather than a pointer click. No page load: the frontend, the session and its state stay.
        """
        link = self.page.locator(f"[data-testid='stSidebarNav'] a[data-testid='stSidebarNavLink']"
                                 f"[href='{self.base_url}/{path.lstrip('/')}']")
        self.interact(lambda: link.dispatch_event("click"), description=f"opening /{path} in the app")

    # --- reading -------------------------------------------------------------------------------------------
    def grids(self) -> list[Grid]:
        raw = self.page.evaluate(GRIDS_JS)
        return [Grid(g["head"], g["rows"]) if g else Grid([], []) for g in raw]

    def grid(self, index: int = 0, *, timeout_s: float = TIMEOUT_MS / 1000,
             until: Callable[[Grid], bool] | None = None, complete: bool = True) -> Grid:
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
            self.page.wait_for_timeout(250)  # the poll interval of a check made in Python (``until``)

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


def score_file(path: Path) -> Any:
    """The scoring core's own report of a runs file, under the canonical policy."""
    from scoring import CANONICAL_POLICY, load_runs, score_runs

    loaded = load_runs(path.read_bytes(), name=path.name)
    return score_runs(loaded.runs, CANONICAL_POLICY)


# --- reading the page --------------------------------------------------------------------------------------

def assert_clean(app: AppSession, where: str) -> None:
    """No exception box, and no NaN/None/Traceback in the visible text outside the data grids."""
    exceptions = app.page.locator("[data-testid='stException']")
    assert exceptions.count() == 0, f"{where}: exception shown:\n{exceptions.first.inner_text()}"
    text = app.visible_text()
    bad = [line for line in text.splitlines() if BAD_TEXT.search(line)]
    assert not bad, f"{where}: visible text with a missing-value repr or a traceback: {bad}"


def metric(app: AppSession, label: str) -> str:
    box = app.page.locator("[data-testid='stMetric']").filter(
        has=app.page.locator("[data-testid='stMetricLabel']", has_text=label))
    return box.locator("[data-testid='stMetricValue']").inner_text().strip()


def selectbox_value(app: AppSession, label: str) -> str:
    """The shown value of a selectbox (a react-aria combobox whose input holds the chosen option)."""
    return app.page.locator("[data-testid='stSelectbox']").get_by_role("combobox", name=label).first.input_value()


def close(cell: str, value: float | None, tolerance: float = 0.006) -> bool:
    """A grid cell (raw value as text; empty when undefined) against the core's value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return cell.strip() == ""
    return cell.strip() != "" and abs(float(cell) - value) <= tolerance


def nav_links(app: AppSession) -> list[tuple[str, str]]:
    """(title, url path without the leading slash) of every page in the sidebar navigation, in order."""
    return [(title, path.strip("/")) for title, path in app.page.evaluate(
        """() => [...document.querySelectorAll("[data-testid='stSidebarNav'] a[data-testid='stSidebarNavLink']")]
                 .map(a => [a.querySelector('span[label]').getAttribute('label'), new URL(a.href).pathname])""")]


def slider(app: AppSession, label: str) -> Any:
    box = app.page.locator("[data-testid='stSlider']").filter(
        has=app.page.locator("[data-testid='stWidgetLabel']", has_text=re.compile(f"^{re.escape(label)}$")))
    return box.get_by_role("slider")


def profile_order(report: Any, weights: dict[str, float]) -> list[str]:
    return list(tables.profile_ranking(report, check_weights(weights, report.policy))["Agent"])


# --- acting on the page ------------------------------------------------------------------------------------

def sidebar_radio(app: AppSession, option: str) -> None:
    radio = app.page.locator("[data-testid='stSidebar'] [data-testid='stRadioOption']", has_text=option)
    app.interact(radio.click, description=f"choosing {option!r}")


def upload(app: AppSession, path: Path) -> None:
    sidebar_radio(app, "Upload a file")
    file_input = app.page.locator("[data-testid='stFileUploaderDropzone'] input[type='file']")
    if file_input.count() == 0:
        file_input = app.page.locator("[data-testid='stSidebar'] input[type='file']")
    app.interact(lambda: file_input.set_input_files(str(path)), description=f"uploading {path.name}")


def upload_many(app: AppSession, paths: list[Path]) -> None:
    sidebar_radio(app, "Upload a file")
    file_input = app.page.locator("[data-testid='stSidebar'] input[type='file']")
    app.interact(lambda: file_input.set_input_files([str(p) for p in paths]),
                 description=f"uploading {len(paths)} file(s)")


def write_csv(path: Path, rows: list[tuple[Any, ...]]) -> Path:
    header = ("run_id", "agent_id", "task_id", "status", "success", "latency_ms", "cost_usd", "steps", "finished_at")
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def press_on_slider(app: AppSession, label: str, key: str) -> None:
    thumb = slider(app, label)

    def press() -> None:
        thumb.focus()
        app.page.keyboard.press(key)

    app.interact(press, description=f"pressing {key} on the {label} slider")


def open_expander(app: AppSession, expander: Any) -> None:
    """Open an ``st.expander`` (drawn by the browser, no rerun) and wait until its content is shown."""
    expander.locator("summary").click()
    expander.locator("[data-testid='stExpanderDetails']:not([inert])").wait_for(state="visible", timeout=TIMEOUT_MS)


MAX_CLICKS, MISSED_CLICK_S = 3, 3.0


def _button_clicked(app: AppSession, since: int) -> bool:
    """Whether a click the document received after the first ``since`` was on a download button."""
    clicks = app.page.evaluate("n => window.__explorerDownloadTrace.clicks.slice(n)", since)
    return any("button" in c["target"].lower() for c in clicks)  # the button, or its label or icon inside it


def download(app: AppSession, label: str, *, reruns: bool = False) -> tuple[str, str]:
    """Click the download button ``label``; the file's suggested name and its text.

    The button must be shown and enabled before the click (its wait is not counted against the download's);
    a button made with the default ``on_click="rerun"`` also reruns the script: ``reruns=True`` waits for that
    rerun, so the next step never reads a page in the middle of it.

    The click must reach the button and the button must follow its file's link (``DOWNLOAD_TRACE_JS`` sees both).
    If the link was followed and the browser still started no download in ``LINK_GRACE_S`` (2 of about 9 full
    suites, 2026-12-04; never alone), the file is read from that link through the page's own context, as the
    browser would have, and a warning says so: the button did its part, the download manager is Chromium's.
    """
    from playwright.sync_api import Error as PlaywrightError

    button = app.page.locator("[data-testid='stDownloadButton']", has_text=label).locator("button, a").first
    button.wait_for(state="visible", timeout=TIMEOUT_MS)
    before = app.runs_finished()
    traced = app.page.evaluate("() => { const t = window.__explorerDownloadTrace;"
                               " return t ? [t.clicks.length, t.links.length] : null; }")
    assert traced is not None, "the page has no download trace: open it in a context made by new_context"
    started: list[Any] = []

    def note(download_: Any) -> None:
        started.append(download_)

    app.page.on("download", note)
    try:
        button.click(timeout=TIMEOUT_MS)
        clicked_at, clicks = time.monotonic(), 1
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        followed_at = None
        while not started:
            links = app.page.evaluate("n => window.__explorerDownloadTrace.links.slice(n)", traced[1])
            media = [link for link in links if "/media/" in link["href"]]
            if media and followed_at is None:
                followed_at = time.monotonic()
            now = time.monotonic()
            # A click the document received beside the button (the page moved under the pointer: a full suite of
            # 2026-12-06 recorded it on the expander around the button, and nothing followed): clicked again, at
            # most MAX_CLICKS times. What the file holds is checked as before.
            if not media and clicks < MAX_CLICKS and now - clicked_at > MISSED_CLICK_S and not _button_clicked(
                    app, traced[0]):
                button.click(timeout=TIMEOUT_MS)
                clicked_at, clicks = time.monotonic(), clicks + 1
            if followed_at is not None and now - followed_at > LINK_GRACE_S:
                name, text = _read_followed_link(app, media[-1]["href"], label)
                break
            if now > deadline:
                trace = app.page.evaluate("([c, l]) => { const t = window.__explorerDownloadTrace;"
                                          " return {clicks: t.clicks.slice(c), links: t.links.slice(l)}; }", traced)
                shot = app.screenshot(f"download-never-started-{re.sub(r'[^a-z0-9]+', '-', label.lower())}")
                raise AssertionError(
                    f"clicking {label!r} started no download in {TIMEOUT_MS / 1000:.0f} s; clicks the document "
                    f"received: {trace['clicks'] or 'none'}; links the page followed: {trace['links'] or 'none'}; "
                    f"button disabled: {button.is_disabled()}; page errors: {app.page_errors or 'none'}; script "
                    f"runs finished {before} -> {app.runs_finished()}; screenshot {shot}")
            app.page.wait_for_timeout(POLL_MS)
        else:
            result = started[0]
            name = result.suggested_filename
            try:
                text = Path(result.path()).read_text(encoding="utf-8")  # waits for the whole file
            except PlaywrightError as exc:
                raise AssertionError(f"the download of {label!r} failed: {result.failure()}") from exc
    finally:
        app.page.remove_listener("download", note)
    if reruns:
        app.wait_for_rerun(before, f"the download {label!r}")
    return name, text


def _read_followed_link(app: AppSession, href: str, label: str) -> tuple[str, str]:
    """The file behind a download link the page followed, read through the page's context (its cookies and
    origin); its name from the server's Content-Disposition, as the browser takes it."""
    import warnings
    from email.message import Message

    response = app.page.request.get(href, timeout=TIMEOUT_MS)
    assert response.ok, f"the link {label!r} followed answered {response.status}: {href}"
    header = Message()
    header["content-disposition"] = response.headers.get("content-disposition", "")
    name = header.get_filename()
    assert name, f"the link {label!r} followed names no file: {response.headers}"
    warnings.warn(f"{label!r}: the button followed its file's link ({href}) and Chromium started no download in "
                  f"{LINK_GRACE_S:.0f} s; the file was read from that link instead", stacklevel=3)
    return name, response.text()
