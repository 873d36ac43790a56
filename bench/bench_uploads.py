"""Benchmark: a real server's resident memory as N sessions upload distinct files (or one file) in turn.

Starts ``streamlit run app.py`` on 127.0.0.1 with ``EXPLORER_CACHE_MEMORY`` set and uploads a distinct
runs CSV from each of N Chromium sessions (real HTTP and websocket, the sessions kept open so their
uploads stay in Streamlit's uploader), printing the server's process-tree resident memory after each
upload and its peak during it (``bench_budget.py cache`` is the same measurement). With ``--same``
every session uploads the same file, as a room does when a link names an upload:

    python bench/bench_uploads.py [--uploads 8] [--runs 200000] [--cache-memory 1GB] [--same]

Nothing is asserted; the figures go in the README.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_budget import run_cache  # the real-server measurement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=8, help="sessions, each uploading one distinct file")
    parser.add_argument("--runs", type=int, default=200_000, help="runs per uploaded CSV")
    parser.add_argument("--cache-memory", default=os.environ.get("EXPLORER_CACHE_MEMORY", "1GB"))
    parser.add_argument("--same", action="store_true", help="every session uploads the same file")
    args = parser.parse_args()
    run_cache(args.uploads, args.cache_memory, args.runs, args.same)


if __name__ == "__main__":
    main()
