"""Benchmark: issue 21's hostile inputs against the memory and CPU budget, through the CLI and a real server.

    python bench/bench_budget.py files DIR [--scale 1]     # write the hostile files (scale 1: the issue's sizes)
    python bench/bench_budget.py cli DIR [--max-memory 500MB] [--scale 1] [--also FILE ...]
    python bench/bench_budget.py server DIR [--max-memory 500MB] [--scale 1]
    python bench/bench_budget.py cache [--sessions 8] [--cache-memory 1GB] [--runs 200000]

``cli`` runs ``python -m scoring report FILE --max-memory ...`` per file and samples the resident
memory of the whole process tree (the CLI and its worker) every 20 ms. ``server`` starts
``streamlit run app.py`` with ``EXPLORER_MAX_MEMORY`` set and uploads each file from a fresh
Chromium session (real HTTP and websocket), sampling the server's process tree; after each upload
it checks ``/_stcore/health`` and that another session's page still loads. ``cache`` uploads a
distinct runs file from each of N sessions in turn with ``EXPLORER_CACHE_MEMORY`` set and prints the
server's resident memory after each. Nothing is asserted; the figures go in the README.
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

# Each finished run is counted from the websocket's own messages (RERUN_COUNTER_JS, the browser tests' counter: a
# count of the data-test-script-state attribute's changes missed quick reruns and waited out its timeout).
from bench_load import AppServer, rss_bytes  # noqa: E402 - the load bench's server and tree RSS
from e2e.browser_helpers import RERUN_COUNTER_JS  # noqa: E402
from hostile_files import PROBE, deep_eval, eval_with_member, lie_about, runs_csv, sample_member  # noqa: E402

MB = 10**6
READY = "[data-testid='stApp'][data-test-script-state='notRunning']"


# --------------------------------------------------------------------------- the files


def bomb_eval_file(path: Path, inflated: int = 2_000_000_000, declared: int = 2_000) -> None:
    """A .eval whose sample member claims ``declared`` bytes and inflates to ``inflated`` (written streaming)."""
    honest_member_file(path, b"", b" ", inflated, zip64=False)  # a member past 4 GiB would need zip64's fields
    data = lie_about(bytearray(path.read_bytes()), sample_member(), declared, zlib.crc32(b" " * declared))
    path.write_bytes(bytes(data))


def honest_member_file(path: Path, head: bytes, fill: bytes, size: int, *, zip64: bool = True) -> None:
    """A .eval whose sample member truthfully declares what it unpacks to: ``head``, then ``fill`` repeated to about
    ``size`` bytes (written streaming; blanks, one long text or a list of zeros deflate about 1000x)."""
    member = sample_member()
    with zipfile.ZipFile(path, "w") as target, zipfile.ZipFile(PROBE) as source:
        for name in source.namelist():
            if name != member:
                target.writestr(name, b"{}", zipfile.ZIP_DEFLATED)
        info = zipfile.ZipInfo(member)
        info.compress_type = zipfile.ZIP_DEFLATED
        with target.open(info, "w", force_zip64=zip64) as out:
            out.write(head)
            block = fill * (MB // len(fill))
            for _ in range(size // len(block)):
                out.write(block)


def events_eval_file(path: Path, events: int = 3_000_000) -> None:
    event = b'{"event": "info", "data": "x"}'
    body = b'{"id": 1, "epoch": 1, "events": [' + b",".join([event] * events) + b"]}"
    path.write_bytes(eval_with_member(sample_member(), body))


def long_ids_parquet(path: Path, column: str, runs: int = 400_000, width: int = 2_000) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    batch = 20_000
    writer = None
    for start in range(0, runs, batch):
        n = min(batch, runs - start)
        ids = [f"{i:010d}".ljust(width, "x") for i in range(start, start + n)]
        table = pa.table({
            "run_id": ids if column == "run_id" else [f"r{i}" for i in range(start, start + n)],
            "agent_id": ids if column == "agent_id" else ["a"] * n,
            "task_id": ["t"] * n, "status": ["completed"] * n, "success": [True] * n,
            "latency_ms": [1000.0] * n, "cost_usd": [0.01] * n, "steps": [3.0] * n,
        })
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, compression="zstd")
        writer.write_table(table)
    assert writer is not None
    writer.close()


def _count(n: float) -> str:
    """300000 -> '300k', 2e9 -> '2G': the size written into a file's name."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:g}{unit}"
    return f"{n:g}"


def hostile_files(scale: float = 1.0) -> dict[str, Callable[[Path], object]]:
    """The issue's hostile inputs, each size multiplied by ``scale`` (1 = the issue's table)."""
    # a member past 2 GiB needs zip64 fields, which the size-lying patch does not rewrite: 2 GB at most
    # (it is refused when the inflated bytes reach the budget, whatever comes after)
    bomb, events, deep = min(int(2e9 * scale), 2_000_000_000), int(3e6 * scale), int(2e5 * scale)
    ids, agents = int(4e5 * scale), int(1e5 * scale)
    # honest members (their directory tells the truth), within the budget: read to the end, or to the CPU limit
    blank, text, zeros = int(1.5e9 * scale), int(1e8 * scale), int(1e8 * scale)
    return {
        f"bomb-{_count(bomb)}B.eval": lambda p: bomb_eval_file(p, inflated=max(bomb, MB)),
        f"blank-{_count(blank)}B.eval": lambda p: honest_member_file(p, b"", b" ", max(blank, MB)),
        f"text-{_count(text)}B.eval": lambda p: honest_member_file(p, b'{"id": "', b"a", max(text, MB)),
        f"zeros-{_count(zeros)}B.eval": lambda p: honest_member_file(p, b"[", b"0,", max(zeros, MB)),
        f"events-{_count(events)}.eval": lambda p: events_eval_file(p, events=events),
        f"deep-{_count(deep)}.eval": lambda p: p.write_bytes(deep_eval(deep)),
        f"run_ids-{_count(ids)}.parquet": lambda p: long_ids_parquet(p, "run_id", runs=ids),
        f"agent_ids-{_count(ids)}.parquet": lambda p: long_ids_parquet(p, "agent_id", runs=ids),
        f"agents-{_count(agents)}.csv": lambda p: p.write_bytes(runs_csv(agents=agents)),
    }


def write_files(folder: Path, scale: float = 1.0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, make in hostile_files(scale).items():
        path = folder / name
        if not path.exists():
            t0 = time.perf_counter()
            make(path)
            print(f"  wrote {name}: {path.stat().st_size / 1e3:,.0f} KB in {time.perf_counter() - t0:.1f} s",
                  flush=True)
        out.append(path)
    return out


# --------------------------------------------------------------------------- measuring


@contextmanager
def peak_of(pid_of: Callable[[], int], interval: float = 0.02) -> Iterator[list[int]]:
    """Samples the resident memory of a process tree on a thread; the list holds [peak]."""
    peak, stop = [0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss_bytes(pid_of()))
            stop.wait(interval)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        stop.set()
        thread.join()


def run_cli(paths: list[Path], max_memory: str | None) -> None:
    print(f"bench_budget cli: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          f"{os.getloadavg()[0]:.1f}, --max-memory {max_memory or 'default'}")
    print("| input | size | exit | seconds | peak RSS, process tree | message |")
    print("|---|---:|---:|---:|---:|---|")
    for path in paths:
        cmd = [sys.executable, "-m", "scoring", "report", str(path), "--format", "csv"]
        if max_memory:
            cmd += ["--max-memory", max_memory]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with peak_of(functools.partial(int, proc.pid)) as peak:
            _, err = proc.communicate()
        seconds = time.perf_counter() - t0
        lines = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
        message = next((line.strip(" -") for line in lines if "limit" in line),
                       lines[-1].strip(" -") if lines and proc.returncode else "scored")
        traceback = " **TRACEBACK**" if "Traceback" in err.decode(errors="replace") else ""
        print(f"| {path.name} | {path.stat().st_size / 1e6:,.1f} MB | {proc.returncode} | {seconds:.1f} | "
              f"{peak[0] / MB:,.0f} MB | {message[:160]}{traceback} |", flush=True)


# --------------------------------------------------------------------------- a real server


def _healthy(port: int) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://127.0.0.1:{port}/_stcore/health", timeout=10) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


class Browser:
    def __init__(self, port: int):
        from playwright.sync_api import sync_playwright

        self.port = port
        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path="/usr/bin/chromium",
                                                args=["--headless", "--no-sandbox", "--disable-gpu"])

    def page(self):
        context = self.browser.new_context(viewport={"width": 1400, "height": 1600})
        context.set_default_timeout(120_000)
        context.add_init_script(RERUN_COUNTER_JS)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{self.port}/")
        page.wait_for_selector(READY)
        return page

    def upload(self, page, path: Path) -> str:
        """Upload ``path`` and wait for its run to finish; the first alert's text (or 'scored')."""
        def rerun(action: Callable[[], object]) -> None:
            before = page.evaluate("() => window.__stRunsFinished || 0")
            action()
            page.wait_for_function("n => (window.__stRunsFinished || 0) > n", arg=before, timeout=300_000,
                                   polling=100)
            page.wait_for_selector(READY, timeout=300_000)

        radio = page.locator("[data-testid='stSidebar'] [data-testid='stRadioOption']", has_text="Upload a file")
        rerun(radio.click)
        file_input = page.locator("[data-testid='stSidebar'] input[type='file']")
        rerun(lambda: file_input.set_input_files(str(path)))
        refused = page.locator("[data-testid='stSidebar'] [data-testid='stAlert']", has_text="was not kept")
        if refused.count():  # past the server's upload budget (EXPLORER_UPLOAD_MEMORY)
            return " ".join(refused.first.inner_text().split())[:120]
        alerts = page.locator("[data-testid='stMain'] [data-testid='stAlert']")
        if alerts.count():
            text = alerts.first.inner_text()
            table = page.locator("[data-testid='stMain'] [data-testid='stDataFrame']")
            return " ".join(text.split())[:120] + (" (problems listed)" if table.count() else "")
        return "scored"

    def close(self) -> None:
        self.browser.close()
        self._pw.stop()


def run_server(paths: list[Path], max_memory: str) -> None:
    env = {**os.environ, "EXPLORER_MAX_MEMORY": max_memory, "PYTHONUNBUFFERED": "1"}
    with AppServer(env=env) as server:
        browser = Browser(server.port)
        try:
            warm = browser.page()  # the sample page once: the server's steady state
            warm.context.close()
            print(f"bench_budget server: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
                  f"{os.getloadavg()[0]:.1f}, EXPLORER_MAX_MEMORY={max_memory}, server tree after the sample "
                  f"page {server.rss() / MB:,.0f} MB")
            print("| upload | seconds | tree before | peak during | growth | health | other session | answer |")
            print("|---|---:|---:|---:|---:|---|---|---|")
            for path in paths:
                page = browser.page()
                before = server.rss()
                t0 = time.perf_counter()
                with peak_of(lambda: server.proc.pid) as peak:
                    answer = browser.upload(page, path)
                seconds = time.perf_counter() - t0
                healthy = _healthy(server.port)
                other = browser.page()
                loaded = "loads" if other.locator("[data-testid='stMain']").count() else "NO"
                other.context.close()
                page.context.close()
                print(f"| {path.name} | {seconds:.1f} | {before / MB:,.0f} MB | {peak[0] / MB:,.0f} MB | "
                      f"{(peak[0] - before) / MB:,.0f} MB | {'ok' if healthy else 'DOWN'} | {loaded} | {answer} |",
                      flush=True)
        finally:
            browser.close()


def run_cache(sessions: int, cache_memory: str, runs: int, same: bool = False) -> None:
    """``sessions`` sessions upload a runs CSV each, kept open; ``same``: all the same file (a room following one
    link), else distinct ones (one more newline each: another sha256, the same runs)."""
    from bench_scale import generate

    folder = Path(tempfile.mkdtemp(prefix="bench_budget_"))
    _, csv = generate(runs, folder)
    body = csv.read_bytes()
    env = {**os.environ, "EXPLORER_CACHE_MEMORY": cache_memory, "PYTHONUNBUFFERED": "1"}
    with AppServer(env=env) as server:
        browser = Browser(server.port)
        try:
            browser.page().context.close()
            start = server.rss()
            print(f"bench_budget cache: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
                  f"{os.getloadavg()[0]:.1f}, EXPLORER_CACHE_MEMORY={cache_memory}, {sessions} sessions, "
                  f"{runs:,}-run CSV ({len(body) / MB:,.0f} MB) each, {'the same file' if same else 'distinct'}; "
                  f"server tree after the sample "
                  f"page {start / MB:,.0f} MB")
            pages, worst = [], 0
            for i in range(sessions):
                path = folder / f"upload-{i}.csv"
                path.write_bytes(body + b"\n" * (1 if same else i + 1))
                page = browser.page()
                with peak_of(lambda: server.proc.pid) as peak:
                    answer = browser.upload(page, path)
                pages.append(page)  # the session stays open: its uploaded file stays in the uploader
                now = server.rss()
                worst = max(worst, peak[0])
                print(f"  after upload {i + 1}: server tree {now / MB:,.0f} MB (peak during the upload "
                      f"{peak[0] / MB:,.0f} MB); {answer}", flush=True)
                path.unlink()
            print(f"  worst peak {worst / MB:,.0f} MB; server tree with {sessions} sessions open "
                  f"{server.rss() / MB:,.0f} MB")
            for page in pages:
                page.context.close()
            time.sleep(5)
            print(f"  after every session closed (5 s): {server.rss() / MB:,.0f} MB")
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    files = sub.add_parser("files")
    files.add_argument("folder", type=Path)
    cli = sub.add_parser("cli")
    cli.add_argument("folder", type=Path)
    cli.add_argument("--max-memory", default="500MB", help="'' for the default limits")
    cli.add_argument("--also", nargs="*", type=Path, default=[], help="more files (honest ones)")
    server = sub.add_parser("server")
    server.add_argument("folder", type=Path)
    server.add_argument("--max-memory", default="500MB")
    cache = sub.add_parser("cache")
    cache.add_argument("--sessions", type=int, default=8)
    cache.add_argument("--cache-memory", default="1GB")
    cache.add_argument("--runs", type=int, default=200_000)
    cache.add_argument("--same", action="store_true", help="every session uploads the same file")
    for command in (files, cli, server):
        command.add_argument("--scale", type=float, default=1.0,
                             help="multiply every hostile file's size (1 = the issue's table; files are named by size)")
    args = parser.parse_args()
    if args.command == "cache":
        run_cache(args.sessions, args.cache_memory, args.runs, args.same)
        return
    paths = write_files(args.folder, args.scale)
    if args.command == "cli":
        run_cli(paths + list(args.also), args.max_memory or None)
    elif args.command == "server":
        run_server(paths, args.max_memory)


if __name__ == "__main__":
    main()
