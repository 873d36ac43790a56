"""Benchmark: the SQL engine (DuckDB) on a Parquet file larger than the memory it may use.

Generates N runs (default 50,000,000) over 500 agents straight to Parquet with DuckDB (never
in Python memory), then scores them in a child process whose DuckDB memory is capped, and
prints time, the file's size on disk and in memory, and the child's peak resident memory.

    python bench/bench_sql.py [--runs 50000000] [--memory-limit 1GB] [--keep PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GENERATE = """
COPY (
  SELECT
    'run-' || i AS run_id,
    'agent-' || (hash(i, 1) % {agents}) AS agent_id,
    'task-' || (hash(i, 2) % 200) AS task_id,
    CASE WHEN hash(i, 3) % 100 < 80 THEN 'completed' WHEN hash(i, 3) % 100 < 90 THEN 'failed'
         WHEN hash(i, 3) % 100 < 96 THEN 'timeout' WHEN hash(i, 3) % 100 < 98 THEN 'cancelled'
         ELSE 'running' END AS status,
    CASE WHEN hash(i, 4) % 100 < 3 THEN NULL
         ELSE (hash(i, 5) % 1000) < 300 + (hash(i, 1) % {agents}) END AS success,
    CASE WHEN hash(i, 6) % 100 < 2 THEN NULL ELSE 200 + (hash(i, 7) % 9000) / 1.0 END AS latency_ms,
    (hash(i, 8) % 100000) / 1000000.0 AS cost_usd,
    CAST(hash(i, 9) % 30 AS INTEGER) AS steps,
    TIMESTAMPTZ '2026-06-01 00:00:00+00' + to_seconds(CAST(hash(i, 10) % 5184000 AS BIGINT)) AS finished_at
  FROM range({runs}) AS t(i)
) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
"""

CHILD = """
import resource, sys, time
# The process may not use more address space than this: the frame would not fit.
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
sys.path.insert(0, {root!r})
from scoring.engines.sql_engine import score_file_sql
t0 = time.perf_counter()
report = score_file_sql({path!r}, memory_limit={limit!r}, temp_directory={tmp!r}, threads=2)
elapsed = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
top = report.agents[0]
print(f"RESULT {{elapsed:.1f}} {{peak:.0f}} {{len(report.agents)}} {{top.agent_id}} {{top.headline.score}}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50_000_000)
    parser.add_argument("--agents", type=int, default=500)
    parser.add_argument("--memory-limit", default="1GB", help="DuckDB memory cap for the scoring process")
    parser.add_argument("--keep", default=None, help="write the Parquet file here and keep it")
    parser.add_argument("--process-cap-gb", default="3", help="address-space cap (RLIMIT_AS) of the scoring process")
    args = parser.parse_args()

    import duckdb

    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP", "/tmp")) as tmp:
        path = Path(args.keep) if args.keep else Path(tmp) / "runs.parquet"
        if not path.exists():
            t0 = time.perf_counter()
            con = duckdb.connect()
            con.execute(f"SET temp_directory = '{tmp}'")
            con.execute(GENERATE.format(agents=args.agents, runs=args.runs, path=str(path)))
            con.close()
            print(f"generated {args.runs:,} runs in {time.perf_counter() - t0:.1f} s")
        size = path.stat().st_size
        # In-memory size of the same runs as a pandas frame: measured on a 1,000,000-run slice.
        con = duckdb.connect()
        sample = con.execute(f"SELECT * FROM read_parquet('{path}') LIMIT 1000000").df()
        per_row = sample.memory_usage(deep=True).sum() / len(sample)
        con.close()
        print(f"Parquet on disk: {size / 1e9:.2f} GB; as a pandas frame: about "
              f"{per_row * args.runs / 1e9:.1f} GB ({per_row:.0f} bytes per run)")
        cap = int(float(args.process_cap_gb) * 1024**3)
        child = CHILD.format(root=str(ROOT), path=str(path), limit=args.memory_limit, tmp=tmp, cap=cap)
        out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            sys.exit(out.returncode)
        result = [line[line.index("RESULT "):] for line in out.stdout.splitlines() if "RESULT " in line]
        if not result:
            print(out.stdout, out.stderr, file=sys.stderr)
            sys.exit(1)
        elapsed, peak, agents, first, score = result[-1].split()[1:]
        print(f"SQL engine (DuckDB, memory_limit {args.memory_limit}, process capped at "
              f"{args.process_cap_gb} GB of address space): {float(elapsed):.1f} s for {args.runs:,} runs, "
              f"{agents} agents; peak resident memory {float(peak):,.0f} MB")
        print(f"leader: {first} {score}")


if __name__ == "__main__":
    main()
