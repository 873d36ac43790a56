"""Serve the explorer to a room: several Streamlit processes behind HAProxy, each browser kept on one of them.

One Streamlit process runs every session's script under one interpreter lock, so however many viewers it
has, it uses at most one core (bench/bench_load.py: about 24 reruns a second on the 2-core machine, one core
busy, the other idle). A room gets one process per core instead. A browser's session, its uploads and its
downloads live in the memory of the process that serves it, so HAProxy (Debian's `haproxy`) pins each browser
to one process with a cookie (`explorer_worker`), set on its first request; a browser without cookies (a
websocket client) is pinned for the length of its connection. A process that dies is taken out of the
rotation by HAProxy's health check, its browsers reconnect to another one (a link restores the view), and it
is started again here.

Each process gets an equal share of the dataset cache's budget (EXPLORER_CACHE_MEMORY / cache_memory, 2GB by
default) and of the uploads' budget (EXPLORER_UPLOAD_MEMORY / upload_memory, 2GB by default), so the room's
cached datasets and uploaded files stay within the operator's figures; every other limit applies per file as
before.

    python scripts/serve_room.py [--workers N] [--port 8501] [--address 0.0.0.0] [-- STREAMLIT ARGS...]

`make room` runs it (installing haproxy when missing). It prints the address when the room is open and stops
every process on SIGINT or SIGTERM; if the launcher itself is killed (SIGKILL), the kernel stops its processes
(Linux's parent-death signal), so no worker or HAProxy is left holding the port. `--print-config` prints the
HAProxy configuration and exits.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.settings import read_settings  # noqa: E402 - after the project root is on the path

COOKIE = "explorer_worker"
WORKER_HOST = "127.0.0.1"  # the workers answer on loopback only; the room's address is HAProxy's
RESTARTS = 5  # a worker that dies this many times within RESTART_WINDOW seconds closes the room
RESTART_WINDOW = 60.0
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with(launcher: int) -> None:
    """Run in each child between fork and exec: the kernel sends it SIGTERM when the launcher dies, however it
    dies (a supervisor's SIGKILL too, which no handler of the launcher's sees). Linux only; elsewhere the
    children are stopped by the launcher's own handlers as before."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        return
    if os.getppid() != launcher:  # the launcher died before the request took effect
        os.kill(os.getpid(), signal.SIGTERM)


def haproxy_config(address: str, port: int, worker_ports: list[int]) -> str:
    """HAProxy's configuration: one frontend on ``address:port``, the workers with a sticky cookie each."""
    servers = "\n".join(f"    server w{i} {WORKER_HOST}:{p} cookie w{i} check"
                        for i, p in enumerate(worker_ports, 1))
    bind = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    return f"""\
global
    maxconn 4096
    # HAProxy binds with SO_REUSEPORT by default: a second room on the same port would silently share its
    # browsers. Without it, the second one fails to bind and says so.
    noreuseport

defaults
    mode http
    option http-server-close
    timeout connect 5s
    timeout client 60s
    timeout server 300s
    timeout http-request 30s
    timeout http-keep-alive 10s
    # A websocket (the session's stream) may stay open for a whole meeting.
    timeout tunnel 12h
    timeout client-fin 5s

frontend room
    bind {bind}
    default_backend workers

backend workers
    # New browsers go to the process with the fewest open connections (websockets are long-lived).
    balance leastconn
    cookie {COOKIE} insert indirect nocache httponly attr "SameSite=Lax"
    option httpchk GET /_stcore/health
    http-check expect string ok
    default-server inter 2s fall 2 rise 1
    # A browser pinned to a process that is down is sent to another (it starts a new session there).
    option redispatch
{servers}
"""


def free_port(host: str = WORKER_HOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def budget_shares(workers: int, environ: dict[str, str], root: Path = ROOT) -> dict[str, int]:
    """Each worker's dataset-cache and upload budgets in bytes (as the environment variables that set them): the
    deployment's budgets divided equally."""
    secrets_path = root / ".streamlit" / "secrets.toml"
    stored = tomllib.loads(secrets_path.read_text()) if secrets_path.is_file() else {}
    settings = read_settings(environ, stored)
    return {"EXPLORER_CACHE_MEMORY": max(1, settings.cache_memory // workers),
            "EXPLORER_UPLOAD_MEMORY": max(1, settings.upload_memory // workers)}


def cache_share(workers: int, environ: dict[str, str], root: Path = ROOT) -> int:
    """Each worker's dataset-cache budget in bytes: the deployment's budget divided equally."""
    return budget_shares(workers, environ, root)["EXPLORER_CACHE_MEMORY"]


def answers(port: int, host: str = WORKER_HOST, timeout: float = 2.0) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://{host}:{port}/_stcore/health", timeout=timeout) as response:
            return bool(response.status == 200 and response.read().strip() == b"ok")
    except OSError:
        return False


class Room:
    """The worker processes and HAProxy; ``serve`` supervises them until a signal or a failure."""

    def __init__(self, workers: int, address: str, port: int, streamlit_args: list[str], haproxy: str):
        self.address, self.port, self.haproxy = address, port, haproxy
        self.streamlit_args = streamlit_args
        self.worker_ports = [free_port() for _ in range(workers)]
        self.env = {**os.environ,
                    **{name: str(share) for name, share in budget_shares(workers, dict(os.environ)).items()},
                    # One secret for all: a browser sent to another process keeps a valid XSRF cookie.
                    "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.deaths: dict[int, list[float]] = {p: [] for p in self.worker_ports}
        self.proxy: subprocess.Popen[bytes] | None = None
        self.config_dir = tempfile.TemporaryDirectory(prefix="explorer-room-")

    def start_worker(self, port: int) -> None:
        cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
               "--server.address", WORKER_HOST, "--server.headless", "true", *self.streamlit_args]
        self.procs[port] = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL,
                                            preexec_fn=functools.partial(die_with, os.getpid()))

    def wait_for(self, ports: list[int], host: str, limit: float = 120.0) -> None:
        deadline = time.monotonic() + limit
        waiting = list(ports)
        while waiting:
            if time.monotonic() > deadline:
                raise SystemExit(f"serve_room: no answer on port(s) {waiting} within {limit:.0f} s")
            for port, proc in self.procs.items():
                if proc.poll() is not None:
                    raise SystemExit(f"serve_room: the worker on port {port} exited with {proc.returncode}")
            if self.proxy is not None and self.proxy.poll() is not None:  # e.g. the room's port is taken
                raise SystemExit(f"serve_room: HAProxy exited with {self.proxy.returncode} (is port {self.port} "
                                 "free?)")
            waiting = [p for p in waiting if not answers(p, host)]
            time.sleep(0.25)

    def check_port(self) -> None:
        """Refuse a room port another program listens on (HAProxy would fail to bind it only after the
        workers started, and the port would answer for the other program meanwhile)."""
        family = socket.AF_INET6 if ":" in self.address else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind: TIME_WAIT is no owner
            try:
                probe.bind((self.address, self.port))
            except OSError as error:
                raise SystemExit(f"serve_room: port {self.port} on {self.address or 'every address'} is taken "
                                 f"({error.strerror}); choose another with --port (make room PORT=...)") from None

    def start(self) -> None:
        self.check_port()
        for port in self.worker_ports:
            self.start_worker(port)
        self.wait_for(self.worker_ports, WORKER_HOST)
        config = Path(self.config_dir.name) / "haproxy.cfg"
        config.write_text(haproxy_config(self.address, self.port, self.worker_ports))
        self.proxy = subprocess.Popen([self.haproxy, "-f", str(config), "-db"], stdin=subprocess.DEVNULL,
                                      preexec_fn=functools.partial(die_with, os.getpid()))
        local = "127.0.0.1" if self.address in ("0.0.0.0", "::", "") else self.address
        self.wait_for([self.port], local, limit=30.0)
        shown = "localhost" if self.address in ("0.0.0.0", "::", "") else self.address
        print(f"serve_room: the room is open on http://{shown}:{self.port} ({len(self.worker_ports)} Streamlit "
              f"processes on ports {', '.join(map(str, self.worker_ports))} behind HAProxy; each keeps "
              f"{int(self.env['EXPLORER_CACHE_MEMORY']):,} bytes of datasets and "
              f"{int(self.env['EXPLORER_UPLOAD_MEMORY']):,} of uploaded files). Share this address: the processes' "
              "own URLs printed above bypass HAProxy.", flush=True)

    def supervise(self) -> int:
        """Restart a worker that dies; return when HAProxy exits or a worker keeps dying."""
        while True:
            if self.proxy is not None and self.proxy.poll() is not None:
                print(f"serve_room: HAProxy exited with {self.proxy.returncode}; closing the room", file=sys.stderr,
                      flush=True)
                return 1
            for port, proc in list(self.procs.items()):
                if proc.poll() is None:
                    continue
                now = time.monotonic()
                recent = [t for t in self.deaths[port] if now - t < RESTART_WINDOW] + [now]
                self.deaths[port] = recent
                if len(recent) >= RESTARTS:
                    print(f"serve_room: the worker on port {port} died {len(recent)} times within "
                          f"{RESTART_WINDOW:.0f} s; closing the room", file=sys.stderr, flush=True)
                    return 1
                print(f"serve_room: the worker on port {port} exited with {proc.returncode}; starting it again",
                      flush=True)
                self.start_worker(port)
            time.sleep(0.5)

    def stop(self) -> None:
        for proc in ([self.proxy] if self.proxy else []) + list(self.procs.values()):
            if proc.poll() is None:
                proc.terminate()
        for proc in ([self.proxy] if self.proxy else []) + list(self.procs.values()):
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self.config_dir.cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="Streamlit processes (default: one per core)")
    parser.add_argument("--port", type=int, default=8501, help="the room's port (default 8501)")
    parser.add_argument("--address", default="0.0.0.0", help="the room's address (default 0.0.0.0)")
    parser.add_argument("--print-config", action="store_true", help="print HAProxy's configuration and exit")
    parser.add_argument("streamlit_args", nargs="*", help="more arguments for each `streamlit run`, after --")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    haproxy = shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if os.access(p, os.X_OK)), None)
    room = Room(args.workers, args.address, args.port, args.streamlit_args, haproxy or "haproxy")
    if args.print_config:
        print(haproxy_config(args.address, args.port, room.worker_ports), end="")
        room.config_dir.cleanup()
        return 0
    if haproxy is None:
        print("serve_room: HAProxy is not installed (Debian: apt-get install haproxy; `make room` installs it)",
              file=sys.stderr)
        room.config_dir.cleanup()
        return 2

    def on_signal(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        room.start()
        return room.supervise()
    except KeyboardInterrupt:
        return 0
    finally:
        room.stop()


if __name__ == "__main__":
    sys.exit(main())
