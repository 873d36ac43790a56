"""Benchmark: N concurrent sessions driving the running app through Streamlit's own websocket protocol.

Starts the app (``python -m streamlit run app.py``) on a free port of 127.0.0.1, waits for
``/_stcore/health``, then for each level of N concurrent sessions opens N websocket sessions on
``/_stcore/stream`` at once. Each session runs the default page (the leaderboard), then a bounded
script of rounds: switch to the radar page, move a weight slider, switch to the headline page,
switch back to the leaderboard. The latency of a rerun is the time from sending its BackMsg to
receiving its ``script_finished`` ForwardMsg. The server's resident memory (VmRSS of the server
and any child process) is sampled during and after each level. Nothing is asserted about the
figures (these machines are shared and noisy); the script does fail loudly (exit 3) if a page
switch lands on the wrong page, and exits 2 if the server does not start.

    python bench/bench_load.py [--sessions 5,10,20,40] [--rounds 10] [--run-timeout 60]
                               [--level-timeout 900] [--think-ms 0] [--server-arg=--server.x=y ...]

The protocol, as Streamlit 1.67's server and frontend speak it:

* connect to ``ws://127.0.0.1:<port>/_stcore/stream`` with subprotocol ``streamlit``; the server
  sends nothing until the client asks for a run;
* every run is a ``BackMsg.rerun_script`` (a ``ClientState``). The first one carries
  ``page_name`` = the URL path ("" for the default page, "radar" for a deep link) and no page
  hash. The server answers ``new_session``, ``page_config_changed``, ``navigation`` (every page
  with its ``page_script_hash`` and ``url_pathname``, and the hash of the page it ran), the
  deltas (elements; ``metadata.delta_path[0]`` is 0 for the main area, 1 for the sidebar) and
  finally ``script_finished``; a ``session_status_changed`` may follow it;
* a page switch (a click in the navigation) sends the target's ``page_script_hash`` with an
  empty ``page_name``, and only the widget states of the entry script (the sidebar);
* a widget change reruns the current page (its hash) with the changed value in
  ``widget_states``; a slider's value is a ``double_array_value`` (an ``int_value`` makes the
  script fail), and its widget id (``$$ID-<hash>-<key>``) comes from the slider's delta;
* large elements arrive once; afterwards the client lists their hashes in
  ``cached_message_hashes`` and the server sends a ``ref_hash`` instead (the browser's cache,
  mirrored here; with Streamlit's default 10 KB threshold no element of these pages on the
  sample data is large enough, so "cached/rerun" stays 0).

"KB/rerun" counts protobuf bytes after permessage-deflate is undone; the client runs in this
process with asyncio and shares the machine's cores with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import DoubleArray
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # the only host this benchmark ever contacts
RADAR_WEIGHT_KEYS = ("weight_correctness", "weight_latency", "weight_cost", "weight_tool_efficiency",
                     "weight_robustness")
SLIDER_VALUES = (10, 25, 40, 55, 70, 85)  # a move always picks one that differs from the current value
MAX_CACHED_MESSAGE_AGE = 2  # Streamlit's global.maxCachedMessageAge: runs a cached message survives unused
ACTIONS = ("open", "radar", "slider", "headline", "leaderboard")


class ServerStartError(RuntimeError):
    """The app did not answer its health check."""


class WrongPage(AssertionError):
    """A run rendered another page than the one asked for: the protocol helpers are wrong."""


class RunFailed(RuntimeError):
    """A run could not complete (timeout, closed connection)."""


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def children(pid: int) -> list[int]:
    """A process's direct children."""
    return _children().get(pid, [])


def _tree(pid: int) -> list[int]:
    """A process and all its descendants."""
    tree, todo, found = _children(), [pid], []
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(tree.get(p, ()))
    return found


def rss_bytes(pid: int) -> int:
    """VmRSS of a process and all its descendants (0 for any that vanished)."""
    total = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            pass
    return total


def machine_ticks() -> tuple[int, int]:
    """(all, steal) clock ticks of the machine's CPUs so far, from /proc/stat: steal is the time the hypervisor gave
    this virtual machine's CPUs to someone else (a shared machine's cores are not always all ours)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return sum(fields[:8]), fields[7] if len(fields) > 7 else 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and all its descendants, in seconds (0 for any that vanished)."""
    ticks = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


class AppServer:
    """``streamlit run app.py`` (or the room of ``workers`` of them behind HAProxy) on 127.0.0.1 as a subprocess
    of its own process group; always stopped. Its CPU and memory are the whole process tree's."""

    def __init__(self, port: int | None = None, root: Path = ROOT, start_timeout: float = 90.0,
                 extra_args: Sequence[str] = (), env: dict[str, str] | None = None, workers: int = 1):
        self.port = port or free_port()
        self.workers = workers  # more than one: scripts/serve_room.py (that many Streamlit processes, HAProxy)
        self.extra_args = list(extra_args)
        self.env = {**os.environ, **(env or {})}
        self.root = root
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen | None = None
        self.log_path: Path | None = None
        self._log: BinaryIO | None = None

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}/_stcore/stream"

    def start(self) -> None:
        fd, name = tempfile.mkstemp(prefix="bench_load_server_", suffix=".log")
        os.close(fd)
        self.log_path = Path(name)
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by stop(), which always runs
        if self.workers > 1:
            cmd = [sys.executable, "scripts/serve_room.py", "--workers", str(self.workers), "--port",
                   str(self.port), "--address", HOST, "--", *self.extra_args]
        else:
            cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(self.port),
                   "--server.headless", "true", "--server.address", HOST, *self.extra_args]
        self.proc = subprocess.Popen(cmd, cwd=self.root, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, env=self.env)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never a proxy
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerStartError(f"the app exited with status {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with opener.open(f"http://{HOST}:{self.port}/_stcore/health", timeout=2) as response:
                    if response.status == 200 and response.read().strip() == b"ok":
                        return
            except OSError:
                pass
            time.sleep(0.25)
        raise ServerStartError(f"no answer from /_stcore/health within {self.start_timeout:.0f} s:\n"
                               f"{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        if self._log:
            self._log.flush()
        if not self.log_path or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def rss(self) -> int:
        return rss_bytes(self.proc.pid) if self.proc and self.proc.poll() is None else 0

    def cpu(self) -> float:
        """CPU seconds the server has used so far (user + system)."""
        return cpu_seconds(self.proc.pid) if self.proc and self.proc.poll() is None else 0.0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.proc.pid, sig)  # our own process group (start_new_session)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self._log:
            self._log.close()
            self._log = None
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> AppServer:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class RssSampler:
    """Samples the server's resident memory every ``interval`` seconds on a thread; keeps the peak."""

    def __init__(self, server: AppServer, interval: float = 0.2):
        self.server, self.interval = server, interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.server.rss())
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.server.rss())


# --------------------------------------------------------------------------------------------
# One session
# --------------------------------------------------------------------------------------------

@dataclass
class RunResult:
    """What one rerun sent back."""

    latency: float
    messages: int = 0
    deltas: int = 0
    bytes: int = 0  # protobuf bytes received (after permessage-deflate)
    cached: int = 0  # elements sent as a ref_hash to a message the client had cached
    page_hash: str = ""  # the page the server ran (navigation.page_script_hash)
    title: str | None = None  # the first h1 of the main area
    texts: list[str] = field(default_factory=list)  # heading, markdown and alert bodies of the run
    codes: list[str] = field(default_factory=list)  # st.code bodies (the sidebar's link)
    kinds: list[str] = field(default_factory=list)  # the kind of every new element, in order
    sliders: dict[str, tuple[float, bool]] = field(default_factory=dict)  # widget id -> (value, set by server)
    slider_fragments: dict[str, str] = field(default_factory=dict)  # widget id -> the fragment that drew it
    buttons: dict[str, tuple[str, str]] = field(default_factory=dict)  # label -> (widget id, fragment that drew it)
    fragment_run: bool = False  # the run reran fragments only (FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
    errors: list[str] = field(default_factory=list)  # exception elements, page not found, bad status


class Session:
    """One browser tab, as far as the server can tell: a websocket and the client state the frontend keeps."""

    def __init__(self, url: str, run_timeout: float = 60.0):
        self.url = url
        self.run_timeout = run_timeout
        self.ws: ClientConnection | None = None
        self.pages: dict[str, tuple[str, str]] = {}  # url path -> (page hash, title); "" is the default page
        self.page_hash = ""
        self.sliders: dict[str, float] = {}  # slider widget id -> value the client holds (current page only)
        self.slider_fragments: dict[str, str] = {}  # slider widget id -> the fragment that drew it ("" for none)
        self._cache: dict[str, list] = {}  # message hash -> [ForwardMsg, age in finished runs]
        self.last: RunResult | None = None

    def _socket(self) -> ClientConnection:
        if self.ws is None:
            raise RunFailed("the session is not connected")
        return self.ws

    async def __aenter__(self) -> Session:
        # No Origin header (allowed for non-browser clients), no proxy, no keepalive pings (a browser
        # sends none); permessage-deflate is negotiated as a browser does. Messages can be large.
        self.ws = await connect(self.url, subprotocols=[Subprotocol("streamlit")], proxy=None,
                                ping_interval=None,
                                max_size=None, open_timeout=self.run_timeout)
        return self

    async def __aexit__(self, *exc) -> None:
        if self.ws is not None:
            await self.ws.close()

    # ---- the protocol ----------------------------------------------------------------------

    async def rerun(self, page_hash: str = "", page_name: str = "", widgets: Sequence[WidgetState] = (),
                    timeout: float | None = None, fragment_id: str = "", query: str = "") -> RunResult:
        """Send one rerun_script and read until its script_finished."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = query
        state.page_script_hash = page_hash
        state.page_name = page_name
        state.fragment_id = fragment_id
        state.widget_states.widgets.extend(widgets)
        state.cached_message_hashes.extend(self._cache)
        payload = msg.SerializeToString()
        started = time.perf_counter()
        try:
            await self._socket().send(payload)
            result = await asyncio.wait_for(self._read_run(started), timeout or self.run_timeout)
        except TimeoutError as error:
            raise RunFailed(f"no script_finished within {timeout or self.run_timeout:.0f} s") from error
        except ConnectionClosed as error:
            raise RunFailed(f"connection closed: {error}") from error
        self.last = result
        return result

    async def _read_run(self, started: float) -> RunResult:
        result = RunResult(latency=0.0)
        seen_new_session = False
        used: set[str] = set()
        while True:
            data = await self._socket().recv(decode=False)
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if not seen_new_session:
                # A session_status_changed of the previous run may still be in flight.
                if kind != "new_session":
                    continue
                seen_new_session = True
            if kind == "new_session" and not result.page_hash:
                result.page_hash = fwd.new_session.page_script_hash  # a fragment run sends no navigation
            result.messages += 1
            result.bytes += len(data)
            if kind == "ref_hash":
                cached = self._cache.get(fwd.ref_hash)
                if cached is None:
                    result.errors.append(f"ref_hash {fwd.ref_hash} not in the client cache")
                    continue
                used.add(fwd.ref_hash)
                result.cached += 1
                metadata = fwd.metadata
                fwd = ForwardMsg()
                fwd.CopyFrom(cached[0])
                fwd.metadata.CopyFrom(metadata)
                kind = "delta"
            elif fwd.metadata.cacheable and fwd.hash:
                self._cache[fwd.hash] = [fwd, 0]
                used.add(fwd.hash)
            if kind == "delta":
                result.deltas += 1
                self._read_delta(fwd, result)
            elif kind == "navigation":
                result.page_hash = fwd.navigation.page_script_hash
                self.pages = {p.url_pathname: (p.page_script_hash, p.page_name) for p in fwd.navigation.app_pages}
            elif kind == "page_not_found":
                result.errors.append(f"page not found: {fwd.page_not_found.page_name!r}")
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    # A callback asked for another run (e.g. only some fragments): the frontend waits for it too.
                    result.page_hash = ""
                    seen_new_session = False
                    continue
                result.latency = time.perf_counter() - started
                result.fragment_run = fwd.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
                if fwd.script_finished not in (ForwardMsg.FINISHED_SUCCESSFULLY,
                                               ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                    result.errors.append(f"script_finished status {fwd.script_finished}")
                self._age_cache(used)
                return result

    @staticmethod
    def _read_delta(fwd: ForwardMsg, result: RunResult) -> None:
        if fwd.delta.WhichOneof("type") != "new_element":
            return
        element = fwd.delta.new_element
        kind = element.WhichOneof("type")
        main_area = bool(fwd.metadata.delta_path) and fwd.metadata.delta_path[0] == 0
        result.kinds.append(str(kind))
        if kind == "heading":
            result.texts.append(element.heading.body)
            if main_area and element.heading.tag == "h1" and result.title is None:
                result.title = element.heading.body
        elif kind in ("markdown", "alert"):
            result.texts.append(getattr(element, kind).body)
        elif kind == "code":
            result.codes.append(element.code.code_text)
        elif kind == "exception":
            result.errors.append(f"exception: {element.exception.type} {element.exception.message}"[:300])
        elif kind == "slider":
            slider = element.slider
            values = slider.value if slider.set_value else slider.default
            result.sliders[slider.id] = (values[0] if len(values) else float("nan"), slider.set_value)
            result.slider_fragments[slider.id] = fwd.delta.fragment_id
        elif kind == "button":
            result.buttons[element.button.label] = (element.button.id, fwd.delta.fragment_id)

    def _age_cache(self, used: set[str]) -> None:
        for key in list(self._cache):
            entry = self._cache[key]
            entry[1] = 0 if key in used else entry[1] + 1
            if entry[1] > MAX_CACHED_MESSAGE_AGE:
                del self._cache[key]

    def _check_page(self, result: RunResult, url_path: str) -> None:
        expected_hash, expected_title = self.pages[url_path]
        if result.page_hash != expected_hash or result.title != expected_title:
            raise WrongPage(f"asked for page {url_path or '(default)'!r} ({expected_title!r}, {expected_hash}); "
                            f"the server ran {result.page_hash!r} and rendered the title {result.title!r}")

    def _remember_sliders(self, result: RunResult, fresh: bool) -> None:
        # The frontend keeps a widget's value once it has one (the server overrides it only with
        # set_value) and forgets the page's widgets on a page switch.
        old = {} if fresh else self.sliders
        self.sliders = {wid: value if set_value or wid not in old else old[wid]
                        for wid, (value, set_value) in result.sliders.items()}
        self.slider_fragments = dict(result.slider_fragments)

    def _slider_states(self) -> list[WidgetState]:
        """Every slider's value as the frontend holds it (a slider's value is a double array)."""
        return [WidgetState(id=w, double_array_value=DoubleArray(data=[v])) for w, v in self.sliders.items()]

    # ---- user actions ------------------------------------------------------------------------

    async def click(self, label: str, timeout: float | None = None) -> RunResult:
        """Click the button ``label`` drawn by the last run (a trigger value, with the sliders' values and the
        fragment that drew the button, as the frontend sends them)."""
        if self.last is None or label not in self.last.buttons:
            raise WrongPage(f"no button {label!r} in the last run")
        wid, fragment_id = self.last.buttons[label]
        widgets = [*self._slider_states(), WidgetState(id=wid, trigger_value=True)]
        result = await self.rerun(page_hash=self.page_hash, widgets=widgets, timeout=timeout, fragment_id=fragment_id)
        self._remember_sliders(result, fresh=False)
        return result

    async def open(self, url_path: str = "", timeout: float | None = None, query: str = "") -> RunResult:
        """A browser opening http://host/<url_path>[?query]: the first run names the page by its URL path."""
        result = await self.rerun(page_name=url_path, timeout=timeout, query=query)
        if url_path not in self.pages:
            raise WrongPage(f"no page with URL path {url_path!r}; the app has {sorted(self.pages)}")
        self._check_page(result, url_path)
        self.page_hash = result.page_hash
        self._remember_sliders(result, fresh=True)
        return result

    async def switch(self, url_path: str, timeout: float | None = None) -> RunResult:
        """A click in the navigation: the target's page hash; page widget states are dropped."""
        page_hash = self.pages[url_path][0]
        result = await self.rerun(page_hash=page_hash, timeout=timeout)
        self._check_page(result, url_path)
        self.page_hash = page_hash
        self._remember_sliders(result, fresh=True)
        return result

    def slider_id(self, key: str) -> str:
        ids = [wid for wid in self.sliders if wid.endswith(f"-{key}")]
        if len(ids) != 1:
            raise WrongPage(f"no single slider with key {key!r} on this page (sliders: {sorted(self.sliders)})")
        return ids[0]

    async def move_slider(self, key: str, value: float, timeout: float | None = None) -> RunResult:
        """Drag one slider: rerun the current page with every slider's value, the moved one changed (a slider
        drawn by a fragment reruns that fragment, as the frontend asks; the server may rerun others with it)."""
        wid = self.slider_id(key)
        self.sliders[wid] = float(value)
        result = await self.rerun(page_hash=self.page_hash, widgets=self._slider_states(), timeout=timeout,
                                  fragment_id=self.slider_fragments.get(wid, ""))
        if result.fragment_run:  # no title drawn: the page it ran and the slider redrawn say where it landed
            if result.page_hash != self.page_hash or wid not in result.sliders:
                raise WrongPage(f"a move of slider {key!r} reran page {result.page_hash!r} (expected "
                                f"{self.page_hash!r}) and redrew sliders {sorted(result.sliders)}")
        else:
            url_path = next(path for path, (h, _) in self.pages.items() if h == self.page_hash)
            self._check_page(result, url_path)
        self._remember_sliders(result, fresh=False)
        return result


# --------------------------------------------------------------------------------------------
# The action script and a level of concurrent sessions
# --------------------------------------------------------------------------------------------

@dataclass
class SessionStats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {a: [] for a in ACTIONS})
    reruns: int = 0
    errors: int = 0  # runs that finished with an exception element, page not found or a bad status
    timeouts: int = 0  # runs that did not finish (per-run timeout, closed connection, level deadline)
    deltas: int = 0
    bytes: int = 0
    cached: int = 0
    error_samples: list[str] = field(default_factory=list)
    radar_titles: int = 0  # radar runs whose title was "Fitness radar"

    def add(self, action: str, result: RunResult) -> None:
        self.latencies[action].append(result.latency)
        self.reruns += 1
        self.deltas += result.deltas
        self.bytes += result.bytes
        self.cached += result.cached
        if result.errors:
            self.errors += 1
            if len(self.error_samples) < 3:
                self.error_samples.append(f"{action}: {result.errors[0]}")
        if action == "radar" and result.title == "Fitness radar":
            self.radar_titles += 1

    def merge(self, other: SessionStats) -> None:
        for action, values in other.latencies.items():
            self.latencies[action].extend(values)
        for name in ("reruns", "errors", "timeouts", "deltas", "bytes", "cached", "radar_titles"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.error_samples.extend(other.error_samples[: max(0, 3 - len(self.error_samples))])

    @property
    def all_latencies(self) -> list[float]:
        return [v for values in self.latencies.values() for v in values]


async def run_session(url: str, rounds: int, index: int = 0, run_timeout: float = 60.0,
                      deadline: float | None = None, think: float = 0.0) -> SessionStats:
    """One user: open the default page, then ``rounds`` x (radar, a slider move, headline, leaderboard).

    Bounded: at most 1 + 4 x rounds reruns, each within ``run_timeout`` and before ``deadline``
    (time.monotonic()). A run that does not finish ends the session (its state is unknown);
    a run that lands on the wrong page raises WrongPage.
    """
    stats = SessionStats()
    deadline = deadline if deadline is not None else time.monotonic() + run_timeout * (1 + 4 * rounds)

    def budget() -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise RunFailed("level deadline reached")
        return min(run_timeout, left)

    steps = [("open", 0)] + [(action, r) for r in range(rounds)
                             for action in ("radar", "slider", "headline", "leaderboard")]
    try:
        async with Session(url, run_timeout) as session:
            for action, r in steps:
                if think and action != "open":
                    await asyncio.sleep(think)
                if action == "open":
                    result = await session.open("", timeout=budget())
                elif action == "radar":
                    result = await session.switch("radar", timeout=budget())
                elif action == "slider":
                    key = RADAR_WEIGHT_KEYS[(index + r) % len(RADAR_WEIGHT_KEYS)]
                    current = session.sliders[session.slider_id(key)]  # the value the client shows
                    choices = [v for v in SLIDER_VALUES if v != current]
                    value = choices[(index + r) % len(choices)]
                    result = await session.move_slider(key, value, timeout=budget())
                else:
                    result = await session.switch("headline" if action == "headline" else "", timeout=budget())
                stats.add(action, result)
    except (RunFailed, OSError, ConnectionClosed, TimeoutError) as error:
        stats.timeouts += 1
        if len(stats.error_samples) < 3:
            stats.error_samples.append(f"session {index}: {type(error).__name__}: {error}")
    return stats


async def warm_up(url: str, sessions: int, run_timeout: float) -> SessionStats:
    """One round for ``sessions`` sessions at once: in a room, one lands on each process (HAProxy gives a new
    connection to the process with the fewest), so every process has scored the sample before the levels."""
    stats = SessionStats()
    for one in await asyncio.gather(*(run_session(url, 1, i, run_timeout) for i in range(sessions))):
        stats.merge(one)
    return stats


@dataclass
class LevelResult:
    sessions: int
    stats: SessionStats
    wall: float
    peak_rss: int
    after_rss: int
    cpu: float = 0.0  # server CPU seconds (user + system) during the level
    client_cpu: float = 0.0  # this benchmark's own CPU seconds during the level (it shares the machine's cores)
    steal: float = 0.0  # share of the machine's CPU time the hypervisor took during the level (0..1)


async def _run_level(url: str, sessions: int, rounds: int, run_timeout: float, level_timeout: float,
                     think: float) -> SessionStats:
    deadline = time.monotonic() + level_timeout
    tasks: list[asyncio.Task] = []
    try:
        async with asyncio.timeout(level_timeout + 30):  # a hard stop beyond the sessions' own deadline
            async with asyncio.TaskGroup() as group:  # a WrongPage in one session cancels the others
                tasks = [group.create_task(run_session(url, rounds, i, run_timeout, deadline, think))
                         for i in range(sessions)]
    except BaseExceptionGroup as group:
        wrong, _ = group.split(WrongPage)
        if wrong is not None:
            raise wrong.exceptions[0] from group
        raise
    except TimeoutError:
        pass  # sessions still running were cancelled: each counts as a timeout below
    total = SessionStats()
    for task in tasks:
        if task.done() and not task.cancelled():
            total.merge(task.result())
        else:
            total.timeouts += 1
    return total


def run_level(server: AppServer, sessions: int, rounds: int, run_timeout: float, level_timeout: float,
              think: float = 0.0, settle: float = 3.0) -> LevelResult:
    with RssSampler(server) as sampler:
        started, cpu, client, ticks = time.perf_counter(), server.cpu(), time.process_time(), machine_ticks()
        stats = asyncio.run(_run_level(server.url, sessions, rounds, run_timeout, level_timeout, think))
        wall, cpu = time.perf_counter() - started, server.cpu() - cpu
        client = time.process_time() - client
        (all_end, steal_end), (all_start, steal_start) = machine_ticks(), ticks
    time.sleep(settle)  # let the server close the sessions' script runners
    steal = (steal_end - steal_start) / (all_end - all_start) if all_end > all_start else 0.0
    return LevelResult(sessions, stats, wall, sampler.peak, server.rss(), cpu, client, steal)


@dataclass
class PageCpu:
    """Server CPU seconds per rerun, one session at a time (no other session running)."""

    first_page: list[float] = field(default_factory=list)  # a new session's first run (the default page)
    pages: dict[str, float] = field(default_factory=dict)  # page title -> mean CPU s of a switch to it
    slider: float = float("nan")  # mean CPU s of a radar weight-slider move


async def _page_cpu(server: AppServer, repeats: int, run_timeout: float) -> PageCpu:
    measured = PageCpu()
    for _ in range(repeats):  # new sessions, one after the other
        async with Session(server.url, run_timeout) as session:
            before = server.cpu()
            await session.open("")
            measured.first_page.append(server.cpu() - before)
    async with Session(server.url, run_timeout) as session:
        await session.open("")
        for url_path, (_, title) in list(session.pages.items()):
            await session.switch(url_path)  # once unmeasured: the page's first run fills what it caches
            before = server.cpu()
            for _ in range(repeats):
                await session.switch(url_path)
            measured.pages[title] = (server.cpu() - before) / repeats
        await session.switch("radar")
        before = server.cpu()
        for i in range(repeats):
            key = RADAR_WEIGHT_KEYS[i % len(RADAR_WEIGHT_KEYS)]
            current = session.sliders[session.slider_id(key)]
            await session.move_slider(key, next(v for v in SLIDER_VALUES if v != current))
        measured.slider = (server.cpu() - before) / repeats
    return measured


def wait_idle(server: AppServer, quiet: float = 0.05, period: float = 1.0, limit: float = 180.0) -> float:
    """Wait until the server uses under ``quiet`` CPU seconds in ``period`` seconds (its background work, such as
    explanations computed ahead of time, is done), at most ``limit`` seconds; returns the seconds waited."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        before = server.cpu()
        time.sleep(period)
        if server.cpu() - before < quiet:
            break
    return time.monotonic() - started


def page_cpu(server: AppServer, repeats: int = 5, run_timeout: float = 60.0) -> PageCpu:
    """Server CPU per rerun of every page, of a slider move and of a new session's first page."""
    return asyncio.run(_page_cpu(server, repeats, run_timeout))


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (q in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _ms(seconds: float) -> str:
    return "—" if seconds != seconds else f"{seconds * 1000:,.0f}"


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f}"


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
    for row in rows:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)), flush=True)


def report_page_cpu(measured: PageCpu) -> None:
    print()
    print("server CPU per rerun (ms), one session at a time:")
    rows = [["a new session's first page (median)", _ms(percentile(measured.first_page, 50))],
            ["radar weight-slider move", _ms(measured.slider)]]
    rows += [[f"switch to {title}", _ms(cpu)] for title, cpu in measured.pages.items()]
    print_table(["run", "CPU ms"], rows)


def report(levels: list[LevelResult]) -> None:
    print()
    print_table(
        ["sessions", "reruns done", "errors/timeouts", "p50 ms", "p95 ms", "peak RSS MB", "after RSS MB",
         "wall s", "reruns/s", "CPU ms/rerun", "server cores", "client cores", "steal"],
        [[str(lv.sessions), f"{lv.stats.reruns:,}", f"{lv.stats.errors}/{lv.stats.timeouts}",
          _ms(percentile(lv.stats.all_latencies, 50)), _ms(percentile(lv.stats.all_latencies, 95)),
          _mb(lv.peak_rss), _mb(lv.after_rss), f"{lv.wall:.1f}",
          f"{lv.stats.reruns / lv.wall:.1f}" if lv.wall else "—",
          _ms(lv.cpu / lv.stats.reruns) if lv.stats.reruns else "—",
          f"{lv.cpu / lv.wall:.2f}" if lv.wall else "—",
          f"{lv.client_cpu / lv.wall:.2f}" if lv.wall else "—", f"{lv.steal:.0%}"] for lv in levels])
    print()
    print("p50 / p95 rerun latency (ms) by action, and what came back:")
    print_table(
        ["sessions"] + list(ACTIONS) + ["deltas/rerun", "cached/rerun", "KB/rerun", "radar titles"],
        [[str(lv.sessions)]
         + [f"{_ms(percentile(lv.stats.latencies[a], 50))} / {_ms(percentile(lv.stats.latencies[a], 95))}"
            for a in ACTIONS]
         + [f"{lv.stats.deltas / lv.stats.reruns:.1f}" if lv.stats.reruns else "—",
            f"{lv.stats.cached / lv.stats.reruns:.1f}" if lv.stats.reruns else "—",
            f"{lv.stats.bytes / 1024 / lv.stats.reruns:.1f}" if lv.stats.reruns else "—",
            f"{lv.stats.radar_titles}/{len(lv.stats.latencies['radar'])}"] for lv in levels])
    samples = [(lv.sessions, s) for lv in levels for s in lv.stats.error_samples]
    if samples:
        print()
        print("first errors/timeouts:")
        for sessions, sample in samples[:10]:
            print(f"  [{sessions} sessions] {sample}")


def _positive_ints(text: str) -> list[int]:
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("a comma-separated list of positive integers")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=_positive_ints, default=[5, 10, 20, 40],
                        help="concurrent sessions per level, comma-separated (default 5,10,20,40)")
    parser.add_argument("--rounds", type=int, default=10,
                        help="rounds of radar, slider, headline, leaderboard per session (default 10)")
    parser.add_argument("--run-timeout", type=float, default=60.0, help="seconds one rerun may take (default 60)")
    parser.add_argument("--level-timeout", type=float, default=900.0,
                        help="seconds one level may take in all (default 900)")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="pause before each action, ms (default 0: every session reruns back to back)")
    parser.add_argument("--page-cpu", type=int, default=5, metavar="N",
                        help="reruns per page when measuring the server CPU of each page, one session at a "
                             "time, before the levels (default 5; 0 skips it)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--workers", type=int, default=1,
                        help="Streamlit processes: 1 is `streamlit run` alone, more is the room of "
                             "scripts/serve_room.py (that many behind HAProxy; default 1)")
    parser.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                        help="one more argument for `streamlit run`, repeatable; e.g. "
                             "--server-arg=--server.fileWatcherType=none")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    import streamlit

    print(f"bench_load: {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}, {platform.node()}, "
          f"nproc {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), Python {platform.python_version()}, "
          f"Streamlit {streamlit.__version__}")
    print(f"levels {','.join(map(str, args.sessions))} sessions; each: open + {args.rounds} x (radar, slider, "
          f"headline, leaderboard) = {1 + 4 * args.rounds} reruns; think {args.think_ms:g} ms; run timeout "
          f"{args.run_timeout:g} s, level timeout {args.level_timeout:g} s; "
          + (f"the room: {args.workers} Streamlit processes behind HAProxy" if args.workers > 1
             else "one Streamlit process")
          + (f"; server args {' '.join(args.server_arg)}" if args.server_arg else ""), flush=True)

    def on_sigterm(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    server = AppServer(args.port or None, extra_args=args.server_arg, workers=args.workers)
    levels: list[LevelResult] = []
    try:
        with server:
            print(f"app answering on http://{HOST}:{server.port}, server RSS {_mb(server.rss())} MB", flush=True)
            warm = asyncio.run(warm_up(server.url, server.workers, args.run_timeout))  # cold caches: scoring
            if warm.reruns == 0 or warm.timeouts:
                print(f"warm-up failed: {warm.error_samples}")
            first = _ms(max(warm.latencies["open"])) if warm.reruns else "—"
            print(f"warm-up ({server.workers} session(s) at once, one per process, not counted): first run {first} "
                  f"ms, server RSS {_mb(server.rss())} MB", flush=True)
            waited = wait_idle(server)
            print(f"server idle after {waited:.0f} s (background work done), server RSS {_mb(server.rss())} MB",
                  flush=True)
            if args.page_cpu:
                report_page_cpu(page_cpu(server, args.page_cpu, args.run_timeout))
            for n in args.sessions:
                level = run_level(server, n, args.rounds, args.run_timeout, args.level_timeout, args.think_ms / 1000)
                levels.append(level)
                print(f"  {n} sessions: {level.stats.reruns:,} reruns in {level.wall:.1f} s, "
                      f"{level.stats.errors} errors, {level.stats.timeouts} timeouts", flush=True)
            if server.proc is not None and server.proc.poll() is not None:
                print(f"the app exited during the benchmark:\n{server.log_tail()}")
    except ServerStartError as error:
        print(f"FAILED: the app did not start: {error}", file=sys.stderr)
        return 2
    except WrongPage as error:
        print(f"FAILED: a page switch landed on the wrong page: {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("interrupted; the app was stopped", file=sys.stderr)
        if levels:
            report(levels)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
    report(levels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
