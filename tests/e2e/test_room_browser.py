"""The room (scripts/serve_room.py) in a real browser: two Streamlit processes behind HAProxy.

A browser is kept on one process by HAProxy's cookie, so its session, its upload and its downloads meet on the
same process; a second browser is given the other process; a process that dies is started again and its
browsers are served by the other one meanwhile.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bench import bench_load
from tests.e2e.browser_helpers import (
    ROOT,
    SAMPLE_PATH,
    TIMEOUT_MS,
    AppSession,
    assert_clean,
    new_context,
    score_file,
    upload,
    write_csv,
)

pytestmark = pytest.mark.browser
COOKIE = "explorer_worker"


def _worker_ports(log_path: Path) -> list[int]:
    found = re.search(r"processes on ports ([\d, ]+) behind HAProxy", log_path.read_text(errors="replace"))
    assert found, log_path.read_text(errors="replace")[-2000:]
    return [int(p) for p in found.group(1).split(",")]


def _worker_pid(launcher: int, port: int) -> int | None:
    """The pid of the launcher's process serving ``port`` (None while there is none)."""
    for pid in bench_load.children(launcher):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in argv and str(port).encode() in argv:
            return pid
    return None


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def _worker_of(context) -> str:
    values = [c["value"] for c in context.cookies() if c["name"] == COOKIE]
    assert len(values) == 1, context.cookies()
    return values[0]


def _agents(app: AppSession) -> list[str]:
    return app.grid(0).column("Agent")


def _room_rows() -> list[tuple]:
    return [(f"room-{i}", "room-agent" if i % 2 else "room-other", f"task-{i % 3}", "completed",
             str(i % 4 != 0).lower(), 900 + 40 * i, 0.004, 4, f"2026-06-03T00:{i:02d}:00Z") for i in range(12)]


@pytest.fixture(scope="module")
def two_browsers(browser):
    """Two browsers (contexts: a cookie jar each) with a tab each, for the module's tests in turn."""
    contexts = [new_context(browser), new_context(browser)]
    for context in contexts:
        context.new_page()
    yield contexts
    for context in contexts:
        context.close()


def test_each_browser_stays_on_its_process_with_its_upload(two_browsers, room, tmp_path):
    url, _, _ = room
    sample_agents = [a.agent_id for a in score_file(SAMPLE_PATH).agents]
    first, second = two_browsers
    a, b = AppSession(first.pages[0], url), AppSession(second.pages[0], url)
    a.goto("")
    b.goto("")  # a's stream is still open, so b is given the other process
    assert {_worker_of(first), _worker_of(second)} == {"w1", "w2"}
    assert _agents(a) == _agents(b) == sample_agents

    # b's upload travels over HTTP and its scores over b's websocket: both reach b's process.
    upload(b, write_csv(tmp_path / "room-runs.csv", _room_rows()))
    assert "Uploaded: room-runs.csv" in b.sidebar_text()
    assert sorted(_agents(b)) == ["room-agent", "room-other"]
    a.goto("")  # a new session for a: the sample, whichever process serves it
    assert _agents(a) == sample_agents
    assert_clean(a, "the room's leaderboard")
    assert not a.page_errors and not b.page_errors, (a.page_errors, b.page_errors)


def test_a_process_that_dies_is_started_again_and_its_browser_served_meanwhile(two_browsers, room):
    url, launcher, log_path = room
    ports = _worker_ports(log_path)
    context = two_browsers[0]
    app = AppSession(context.pages[0], url)
    app.goto("")
    port = ports[int(_worker_of(context)[1:]) - 1]
    victim = _worker_pid(launcher.pid, port)
    assert victim is not None, f"no worker of {launcher.pid} on port {port}"
    os.kill(victim, signal.SIGKILL)

    app.goto("")  # HAProxy sends the browser to a process that answers (the other one, or the new one)
    assert _agents(app) == [a.agent_id for a in score_file(SAMPLE_PATH).agents]
    assert_clean(app, "the leaderboard after its process died")

    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not (_answers(port) and _worker_pid(launcher.pid, port) not in (None, victim)):
        assert launcher.poll() is None, log_path.read_text(errors="replace")[-2000:]
        assert time.monotonic() < deadline, "the worker was not started again"
        time.sleep(0.25)
    assert f"the worker on port {port} exited with -9; starting it again" in log_path.read_text()
    assert not app.page_errors, app.page_errors


def test_a_room_whose_port_is_taken_says_so(room):
    url, _, _ = room
    port = url.rsplit(":", 1)[1]
    out = subprocess.run([sys.executable, "scripts/serve_room.py", "--workers", "1", "--port", port,
                          "--address", "127.0.0.1"], cwd=ROOT, capture_output=True, text=True, timeout=180,
                         env={**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/sbin"})
    assert out.returncode == 1, out
    assert f"serve_room: port {port} on 127.0.0.1 is taken (Address already in use)" in out.stderr, out.stderr[-2000:]
    assert "Uvicorn server started" not in out.stderr  # refused before any process started
    assert _answers(int(port))  # the room that holds the port goes on


def test_a_launcher_killed_outright_takes_its_processes_with_it(tmp_path):
    """SIGKILL reaches no handler of the launcher's: the kernel's parent-death signal must stop its Streamlit
    process and HAProxy, or they would go on holding the room's port with nobody to supervise them."""
    port = bench_load.free_port()
    log_path, kids = tmp_path / "room.log", []
    with open(log_path, "wb") as log:
        launcher = subprocess.Popen([sys.executable, "scripts/serve_room.py", "--workers", "1", "--port", str(port),
                                     "--address", "127.0.0.1"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                    env={**os.environ, "PYTHONUNBUFFERED": "1",
                                         "PATH": os.environ.get("PATH", "") + ":/usr/sbin"})
    try:
        deadline = time.monotonic() + 180
        while b"the room is open" not in log_path.read_bytes():
            assert launcher.poll() is None and time.monotonic() < deadline, log_path.read_text(errors="replace")
            time.sleep(0.25)
        kids.extend(bench_load.children(launcher.pid))
        names = sorted(Path(f"/proc/{pid}/comm").read_text().strip() for pid in kids)
        assert len(kids) == 2 and "haproxy" in names, names  # one Streamlit process and HAProxy
        assert _answers(port)
        launcher.send_signal(signal.SIGKILL)
        launcher.wait(10)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() and "Z" not in _state(pid) for pid in kids):
            assert time.monotonic() < deadline, [(pid, _state(pid)) for pid in kids]
            time.sleep(0.25)
        assert not _answers(port)
    finally:
        if launcher.poll() is None:
            launcher.kill()
        for pid in kids + bench_load.children(launcher.pid):  # what a failure left running
            if _state(pid) not in ("", "Z"):
                os.kill(pid, signal.SIGKILL)


def _state(pid: int) -> str:
    """The process's state letter from /proc (Z: exited, not yet reaped); empty once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""
