"""Fixtures for the real-browser suite: one Streamlit server per session, one chromium and one tab per module, a new
Streamlit session per test.

The explorer is started on a free localhost port with ``sys.executable -m streamlit run app.py`` from the repo
root, and driven through Playwright's sync API with Debian's chromium (Playwright cannot download its own
browser here). ``AppSession`` (tests/e2e/browser_helpers.py) wraps a page with the waits a Streamlit app needs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    SAMPLE_PATH,
    STARTUP_TIMEOUT_S,
    TIMEOUT_MS,
    VIEWPORT,
    AppSession,
    new_context,
    score_file,
)
from tests.helpers import free_port


def _stop(process: subprocess.Popen, grace_s: float) -> None:
    """SIGTERM, then SIGKILL after ``grace_s`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


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


@contextlib.contextmanager
def served_app(log_path: Path, extra_env: dict[str, str] | None = None):
    """``streamlit run app.py`` on a free port (with ``extra_env``) until healthy; yields its base URL, then
    stops it."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
               "--server.headless", "true", "--server.address", "127.0.0.1"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1", **(extra_env or {})})
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
        _stop(process, 10)


@pytest.fixture(scope="session")
def app_url(chromium_executable, tmp_path_factory) -> str:
    """Start the explorer on a free port and yield its base URL; stop it after the session."""
    with served_app(tmp_path_factory.mktemp("streamlit") / "server.log") as base_url:
        yield base_url


@pytest.fixture(scope="module")
def small_budget(chromium_executable, tmp_path_factory) -> str:
    """The explorer with an upload budget of 1.5 times the sample's size (EXPLORER_UPLOAD_MEMORY); its URL."""
    budget = SAMPLE_PATH.stat().st_size * 3 // 2
    with served_app(tmp_path_factory.mktemp("budget") / "server.log",
                    {"EXPLORER_UPLOAD_MEMORY": str(budget)}) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def room(chromium_executable, tmp_path_factory):
    """The room (scripts/serve_room.py): two Streamlit processes behind HAProxy on a free port; yields
    ``(base_url, launcher process)`` and stops every process after the module."""
    haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None)
    if haproxy is None:
        _unavailable("haproxy is missing: run `bash scripts/ensure-test-deps` to install Debian's haproxy")
    port = free_port()
    log_path = tmp_path_factory.mktemp("room") / "room.log"
    command = [sys.executable, "scripts/serve_room.py", "--workers", "2", "--port", str(port),
               "--address", "127.0.0.1"]
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1",
                                        "PATH": os.environ.get("PATH", "") + ":/usr/sbin"})
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while b"the room is open" not in log_path.read_bytes():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the room did not open:\n" + log_path.read_text(errors="replace")[-4000:],
                            pytrace=False)
            time.sleep(0.25)
        yield f"http://127.0.0.1:{port}", process, log_path
    finally:
        _stop(process, 30)


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


@pytest.fixture(scope="module")
def tab(browser):
    """One browser tab per module, lent to each test's ``app`` in turn and left on about:blank between them.

    A tab of its own per test cost chromium a new renderer process and a cold start of the app's JavaScript: a page
    load 6.4-6.5 s of chromium's CPU in a new context against 2.8 s as the next load in the same tab (five loads
    each, 2026-12-03); the suite is bound by the machine's CPU. Each test still starts a new Streamlit session (its
    first ``goto`` is a page load); the tests that need a browser that has seen nothing open a new context."""
    tabs: list[Any] = []

    def lend() -> Any:
        if not tabs or tabs[-1].is_closed():
            tabs.append(new_context(browser, accept_downloads=True).new_page())
        return tabs[-1]

    yield lend
    for page in tabs:
        page.context.close()


@pytest.fixture
def app(tab, app_url):
    """A Streamlit session on the module's tab (``tab``): a new session at the test's first ``goto``; afterwards
    the tab is put back as it was lent (no routes, the default viewport, about:blank), or closed if it cannot be."""
    page = tab()
    session = AppSession(page, app_url)
    yield session
    session.detach()
    try:
        page.unroute_all()
        page.set_viewport_size(VIEWPORT)
        page.goto("about:blank", timeout=TIMEOUT_MS)
    except Exception:  # a tab left unusable: the next test gets a new one
        page.context.close()
    assert not session.page_errors, f"uncaught errors in the page: {session.page_errors}"


@pytest.fixture(scope="session")
def sample_report():
    """The scoring core's own report of the sample data: what the pages must agree with."""
    return score_file(SAMPLE_PATH)
