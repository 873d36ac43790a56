"""Benchmark: the server's resident memory after N uploads, each a new session with a different file.

The app's pages run in this process through Streamlit's AppTest (the script runs as it does in the
server, with the same process-wide dataset cache). Each upload is a distinct CSV of generated runs
(a different file is scored afresh, never served from the cache); after each one the script prints
the process's resident memory, what the dataset cache holds and how many datasets it keeps. Run it
twice to see the budget at work, e.g. with the default budget and with a small one:

    python bench/bench_uploads.py [--uploads 8] [--runs 200000]
    EXPLORER_CACHE_MEMORY=300MB python bench/bench_uploads.py

Nothing is asserted; the figures go in the README.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import generate  # noqa: E402 - the benchmark's generator


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=8)
    parser.add_argument("--runs", type=int, default=200_000, help="runs per uploaded file")
    args = parser.parse_args()
    from streamlit.testing.v1 import AppTest

    from explorer import data, settings

    folder = Path(tempfile.mkdtemp(prefix="bench_uploads_"))
    _, csv = generate(args.runs, folder)
    body = csv.read_bytes()
    budget = settings.current().cache_memory
    print(f"bench_uploads: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, nproc {os.cpu_count()}, "
          f"{args.uploads} uploads of {args.runs:,} runs ({len(body) / 1e6:.0f} MB CSV each), "
          f"cache budget {budget / 1e6:,.0f} MB")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    print(f"  after the sample page: resident {rss_mb():6.0f} MB")
    for i in range(args.uploads):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)  # a new session
        at.run()
        at.radio(key="source_kind").set_value("Upload a file").run()
        t0 = time.perf_counter()
        # A different file each time (one more trailing empty line: another sha256, the same runs).
        at.file_uploader(key="upload").set_value((f"upload-{i}.csv", body + b"\n" * (i + 1), "text/csv")).run()
        seconds = time.perf_counter() - t0
        if at.exception:
            raise SystemExit(f"upload {i + 1} failed: {at.exception}")
        del at
        gc.collect()
        cache = data._cache()
        print(f"  after upload {i + 1:>2}: resident {rss_mb():6.0f} MB, cache holds {len(cache)} dataset(s), "
              f"{cache.total_bytes / 1e6:6.0f} MB ({seconds:.1f} s to a painted leaderboard)", flush=True)


if __name__ == "__main__":
    main()
